"""Focused regressions for bugs found by the session-14 ``--run-slow`` sweeps of
weaktrace.scipy (issue #14): the case that found a bug is checked here, in CI, in a few
seconds; the sweep itself keeps running only under ``--run-slow``.

The oracle is jax itself, computed at test time (tests/mirror_harness.py: eager, traced
and compiled weaktrace against jax eager and jit, shapes, dtypes, weak flags, values and
errors).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import weaktrace.numpy as wnp
import weaktrace.scipy.linalg as wsl
from tests.mirror_harness import check


def _gen(dt: str, shape: tuple[int, ...]) -> np.ndarray:
    """A diagonally dominant matrix (its Schur form is well conditioned) of dtype `dt`."""
    n = shape[-1]
    a = np.arange(np.prod(shape)).reshape(shape) % 3 + 4 * np.eye(n, dtype=np.int64)
    return (a > 2) if dt == "bool" else a.astype(jnp.dtype(dt))


# -- weaktrace.scipy.linalg: schur(output="complex") casts first ---------------------------


SCHUR = [("bool", False), ("int8", False), ("uint8", True), ("int32", False), ("int32", True),
         ("int64", True), ("float16", False), ("bfloat16", True)]  # fmt: skip


@pytest.mark.parametrize(("dt", "x64"), SCHUR, ids=[f"{d}-x64={x}" for d, x in SCHUR])
def test_schur_complex_of_non_lapack_dtypes_computes_as_jax(dt, x64):
    """test_scipy_linalg --run-slow, "schur complex-int32/bool": jax's complex form casts
    the matrix to a complex dtype (complex128 from 64-bit kinds, else complex64) before
    decomposing, so int and bool matrices compute; weaktrace refused them with
    OperandTypeError (the real form's check ran for both forms), and its rule sent float16
    to the kernel check. The real form still refuses them, as jax does."""
    a = _gen(dt, (3, 3))
    with jax.enable_x64(x64):
        check(lambda x: wsl.schur(x, output="complex"), lambda x: jsl.schur(x, output="complex"),
              a, rtol=1e-4, atol=1e-4, context=f"schur complex {dt}")  # fmt: skip
        check(wsl.schur, jsl.schur, a, context=f"schur real {dt}")


# -- weaktrace.scipy.linalg: hessenberg of an empty matrix is zeros_like -------------------

EMPTY = [(0, 0), (2, 0, 0), (3, 0), (0,)]


@pytest.mark.parametrize("shape", EMPTY, ids=[str(s) for s in EMPTY])
@pytest.mark.parametrize(("dt", "x64"), [("int32", False), ("bool", True), ("float16", False)])
def test_hessenberg_of_empty_matrices_is_zeros_like_as_jax(dt, shape, x64):
    """test_scipy_linalg --run-slow, "hessenberg q-int32/bool-(0, 0)": jax returns
    zeros_like(a) (twice with calc_q) when the last dimension is 0, before any dtype or
    squareness check; weaktrace raised OperandTypeError for int and bool (and ShapeError
    for a non-square or 1-D empty a)."""
    a = np.zeros(shape, np.bool_ if dt == "bool" else jnp.dtype(dt))
    with jax.enable_x64(x64):
        for calc_q in (False, True):
            check(lambda x, q=calc_q: wsl.hessenberg(x, calc_q=q),
                  lambda x, q=calc_q: jsl.hessenberg(x, calc_q=q), a,
                  context=f"hessenberg calc_q={calc_q} {dt}{list(shape)}")  # fmt: skip


@pytest.mark.parametrize("calc_q", [False, True])
def test_hessenberg_of_a_weak_empty_matrix_keeps_the_weak_flag(calc_q):
    """zeros_like keeps a weak operand weak (H and Q); a non-empty one gives a strong Q."""
    for shape in ((0, 0), (2, 2)):
        check(lambda x, s=shape: wsl.hessenberg(wnp.broadcast_to(x, s), calc_q=calc_q),
              lambda x, s=shape: jsl.hessenberg(jnp.broadcast_to(x, s), calc_q=calc_q), 1.5,
              context=f"hessenberg weak {shape}")  # fmt: skip
