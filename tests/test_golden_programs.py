"""Golden printed programs: a dozen small functions, reviewed by eye once.

Regenerate with ``python -m tests.test_golden_programs`` and review the diff by eye
before committing it.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import jax
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp

GOLDEN = Path(__file__).parent / "golden" / "programs.txt"

f32 = np.ones(3, np.float32)
i8 = np.ones(3, np.int8)
u8 = np.ones((), np.uint8)
i32m = np.ones((2, 3), np.int32)
bf16 = np.ones((2, 3), jax.numpy.bfloat16)
f32m = np.ones((3, 4), np.float32)

CASES = {
    "sin_times_two_plus_weak_scalar": (lambda x, y: wnp.sin(x) * 2 + y, (f32, 1.5)),
    "int8_activation_times_python_float": (lambda x: x * 0.5, (i8,)),
    "weak_only_arithmetic": (lambda a, b: a + b * 2, (2, 3.5)),
    "uint8_plus_300_wraps": (lambda x: x + 300, (u8,)),
    "mean_and_sum_of_ints": (lambda x: (x.mean(), x.sum(axis=0), wnp.prod(x)), (i32m,)),
    "where_with_python_scalar": (lambda x: wnp.where(x > 0, x, 0), (f32,)),
    "matmul_bf16_by_f32": (lambda a, b: a @ b, (bf16, f32m)),
    "floor_divide_ints": (lambda x: x // 2, (i8,)),
    "indexing": (lambda x: (x[0, 1:3], x[:, None, ::-1], x[..., -1]), (i32m,)),
    "astype_then_weak_add": (lambda x: x.astype(np.float16) + 1, (i8,)),
    "weak_comparisons_are_weak_bools": (lambda a, b: wnp.logical_and(a < b, a != 0), (2, 3.0)),
    "integer_powers": (lambda x, n: (x**3, x**n), (i8, 2)),
    "true_divide_of_ints": (lambda a, b: a / b, (i32m, 2)),
    "reductions_drop_weak": (lambda x: (wnp.max(x), wnp.argmax(x), wnp.all(x)), (2.5,)),
}


def render(name: str) -> str:
    fn, args = CASES[name]
    with jax.enable_x64(False), warnings.catch_warnings():
        warnings.simplefilter("ignore", wt.WeakLiteralOverflowWarning)
        return f"== {name}\n{wt.trace(fn).trace(*args)}\n"


def read_golden() -> dict[str, str]:
    text = GOLDEN.read_text()
    blocks = ["== " + b for b in text.split("== ")[1:]]
    return {b.split("\n", 1)[0][3:]: b for b in blocks}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_program(name):
    assert render(name) == read_golden()[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_programs_typecheck_and_match_jax(name):
    """Each golden program typechecks, and its outputs are typed as jax types them."""
    fn, args = CASES[name]
    with jax.enable_x64(False), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = wt.trace(fn).trace(*args)
        wt.typecheck(traced.program)
        jnp_fn = _as_jnp(fn)
        theirs = jax.make_jaxpr(jnp_fn)(*args).out_avals
    ours = jax.tree_util.tree_leaves(traced.out_avals)
    assert [(a.shape, a.dtype, a.weak_type) for a in ours] == [
        (tuple(a.shape), a.dtype, a.weak_type) for a in theirs
    ]


def _as_jnp(fn):
    """The same function with weaktrace.numpy swapped for jax.numpy."""
    import types

    g = dict(fn.__globals__, wnp=jax.numpy)
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


if __name__ == "__main__":  # rewrite the golden file; review `git diff` before committing
    GOLDEN.write_text("".join(render(n) for n in CASES))
