"""weaktrace.lint of 64-bit jax arrays, made while x64 was on.

Lint traces with x64 off (DESIGN.md §6). jax keeps a float64 *jax array* float64 when x64
is switched off (it narrows numpy arrays and ShapeDtypeStructs), so its own functions
then mixed widths: ``jnp.diagonal`` multiplied the float64 matrix by a float32 ``eye`` and
lint crashed with jax's TypeError; elsewhere lint reported promotions of float64 operands
and carries "entering as float64" that no run of the program has. Found by linting the
realistic programs (tests/realistic/) with their x64 inputs: two crashed, twenty had
such findings.

The oracle: the same program linted with the same values as numpy arrays, which x64
off narrows as jax does for every other input; and jax itself (x64 on) runs each program.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import weaktrace as wt


def _scan_carry(x, s):
    def body(c, v):
        return c * s + v, c

    return lax.scan(body, jnp.zeros_like(x[0]), x)


PROGRAMS = {
    "slogdet": (lambda a: jnp.linalg.slogdet(a)[1], lambda rng: (rng.normal(size=(3, 3)),)),
    "diagonal": (lambda a: jnp.diagonal(a).sum(), lambda rng: (rng.normal(size=(4, 4)),)),
    "mixed": (lambda a, w: a @ w.astype(jnp.float32) + 1.5,
              lambda rng: (rng.normal(size=(2, 3)).astype(np.float32), rng.normal(size=(3, 2)))),
    "scan": (_scan_carry, lambda rng: (rng.normal(size=(5, 2)), rng.normal(size=()))),
    "ints": (lambda i, x: x[i] * 2, lambda rng: (np.arange(3), rng.normal(size=(4,)))),
    "dtype_of": (lambda x: jnp.zeros(3, x.dtype) + x.sum(), lambda rng: (rng.normal(size=(3,)),)),
}  # fmt: skip


def _report(fn, args):
    return sorted((f.kind, f.line, f.message) for f in wt.lint(fn, *args))


@pytest.mark.parametrize("name", PROGRAMS)
def test_jax_arrays_made_with_x64_lint_as_numpy_arrays_do(name):
    fn, make = PROGRAMS[name]
    values = make(np.random.default_rng(0))
    with jax.enable_x64(True):
        arrays = [jnp.asarray(v) for v in values]
        jax.jit(fn)(*arrays)  # a valid program, where it was written for
    assert any(a.dtype.itemsize == 8 for a in arrays)
    assert _report(fn, arrays) == _report(fn, values)


def test_weak_jax_scalars_stay_weak():
    """A weak float64 jax scalar narrows to a weak float32 one (no promotion finding
    where the numpy policy of x64 off sees a weak scalar)."""
    with jax.enable_x64(True):
        s = jnp.asarray(2.0)
    assert s.weak_type and s.dtype == np.float64
    x = np.ones(3, np.float32)
    report = wt.lint(lambda x, s: x * s, x, s)
    assert [f.kind for f in report] == ["x64-truncation"]


def test_captured_64_bit_jax_arrays_get_a_named_error():
    """A 64-bit jax array the function reads from a closure cannot be narrowed (lint
    traces the function as it is): jax's TypeError became a named error saying what to do.
    jax itself runs the function with x64 on, where the array was made."""
    with jax.enable_x64(True):
        w = jnp.eye(3)

        def f(x):
            return jnp.linalg.slogdet(w)[1] + x.sum()

        jax.jit(f)(np.ones(3, np.float32))
    with pytest.raises(wt.InvalidInputError, match=r"made while x64 was on \(float64\[3, 3\]\)"):
        wt.lint(f, np.ones(3, np.float32))
    # the same function with a 32-bit array lints (a clean report)
    w = jnp.eye(3, dtype=np.float32)
    assert not list(wt.lint(f, np.ones(3, np.float32)))
