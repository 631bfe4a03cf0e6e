"""Scalar boolean indices in ``x.at[...]``: a unit (True) or empty (False) axis where the
boolean stands, as in ``x[...]`` and as jax lays it out (an ``arange(0 or 1)`` index on an
inserted axis). Oracle: jax.jit of the same update, for every op and generated positions."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp

_I = np.array([0, 1])
_J = np.array([1, 2])
KEYS = {
    "true": True,
    "false": False,
    "np_true": np.array(True),
    "true_int": (True, 0),
    "int_true": (0, True),
    "ellipsis_true": (Ellipsis, True),
    "true_true": (True, True),
    "true_false": (True, False),
    "slice_false": (slice(None), False),
    "true_array": (True, _I),
    "array_true_array": (_I, True, _J),
    "true_ellipsis_int": (True, Ellipsis, 0),
    "int_ellipsis_false_int": (0, Ellipsis, False, 1),
    "slice_true_slice": (slice(None), True, slice(1, None)),
}
OPS = ["get", "set", "add", "multiply", "min", "max", "apply"]


def _run(xp, key, op, x):
    a = x.at[key]
    if op == "get":
        return a.get()
    if op == "apply":
        return a.apply(xp.sin)
    return getattr(a, op)(7.0)


@pytest.mark.ci_sample(3)
@pytest.mark.parametrize(("name", "op"), list(itertools.product(sorted(KEYS), OPS)))
def test_at_scalar_bool(name, op):
    key = KEYS[name]
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    want = jax.jit(lambda x: _run(jnp, key, op, x))(x)
    got = wt.trace(lambda x: _run(wnp, key, op, x))(x)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    eager = _run(wnp, key, op, wnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(eager), np.asarray(want))


def test_none_before_scalar_bool_follows_numpy():
    """``x[None, True]``: NumPy inserts both axes and keeps every row, (1, 1, 2, 3); jax
    0.10 counts the None as a dimension of x, and gathers only the first row. weaktrace
    gives NumPy's answer in ``x[...]`` and in ``x.at[...].get()``."""
    x = np.arange(6.0).reshape(2, 3)
    want = x[None, True]
    np.testing.assert_array_equal(np.asarray(wt.trace(lambda x: x[None, True])(x)), want)
    np.testing.assert_array_equal(np.asarray(wt.trace(lambda x: x.at[None, True].get())(x)), want)
