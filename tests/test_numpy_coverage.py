"""Every weaktrace.numpy function with its keyword arguments, against jax.numpy under
jax.jit: same shape, dtype, weak flag and values (the random programs cover the
promotion matrix; this covers the signatures)."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp

A = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
I8 = np.arange(12, dtype=np.int8).reshape(3, 4) - 5
B3 = np.ones((2, 4, 5), np.float32)

CALLS = {
    "full traced fill": (lambda m: lambda x: m.full((2, 2), x[0, 0]), A),
    "full with dtype": (lambda m: lambda x: m.full((2,), 3, dtype=np.int16), A),
    "arange float step": (lambda m: lambda x: m.arange(0.0, 2.0, 0.5) + x[0, 0], A),
    "arange int stop": (lambda m: lambda x: m.arange(5) * x[0, 0], I8),
    "arange with dtype": (lambda m: lambda x: m.arange(3, dtype=np.float16), A),
    "concatenate axis None": (lambda m: lambda x: m.concatenate([x, x], axis=None), A),
    "concatenate axis 1": (lambda m: lambda x: m.concatenate([x, x * 2], axis=1), I8),
    "stack axis 1": (lambda m: lambda x: m.stack([x, x], axis=1), A),
    "stack axis -1 mixed": (lambda m: lambda x: m.stack([x, x.astype(np.int16)], axis=-1), I8),
    "mean axis keepdims": (lambda m: lambda x: m.mean(x, axis=1, keepdims=True), I8),
    "mean dtype": (lambda m: lambda x: m.mean(x, dtype=np.float16), A),
    "sum axis tuple": (lambda m: lambda x: m.sum(x, axis=(0, 1)), I8),
    "sum dtype": (lambda m: lambda x: m.sum(x, dtype=np.int8), I8),
    "prod axis": (lambda m: lambda x: m.prod(x, axis=0), I8),
    "max keepdims": (lambda m: lambda x: m.max(x, axis=1, keepdims=True), A),
    "min axis -1": (lambda m: lambda x: m.min(x, axis=-1), I8),
    "argmax keepdims": (lambda m: lambda x: m.argmax(x, axis=1, keepdims=True), A),
    "argmin no axis": (lambda m: lambda x: m.argmin(x), I8),
    "all axis": (lambda m: lambda x: m.all(x > -3, axis=0), A),
    "any": (lambda m: lambda x: m.any(x), I8),
    "squeeze axis": (lambda m: lambda x: m.squeeze(x[None], axis=0), A),
    "expand_dims tuple": (lambda m: lambda x: m.expand_dims(x, (0, 3)), A),
    "transpose axes": (lambda m: lambda x: m.transpose(x[None], (2, 0, 1)), A),
    "broadcast_to": (lambda m: lambda x: m.broadcast_to(x[0], (2, 4)), I8),
    "ravel": (lambda m: lambda x: m.ravel(x), A),
    "reshape -1": (lambda m: lambda x: m.reshape(x, (2, -1)), I8),
    "method reshape": (lambda m: lambda x: x.reshape(4, 3), A),
    "clip min only": (lambda m: lambda x: m.clip(x, 0), I8),
    "clip max only": (lambda m: lambda x: m.clip(x, max=2.5), I8),
    "round decimals": (lambda m: lambda x: m.round(x / 3, 2), A),
    "trunc": (lambda m: lambda x: m.trunc(x / 3), A),
    "dot 2d x 3d": (lambda m: lambda x: m.dot(x, m.ones((2, 4, 5), np.float32)), A),
    "matmul batch broadcast": (lambda m: lambda x: m.matmul(m.ones((2, 3, 4), np.float32), x.T), A),
    "matmul vector": (lambda m: lambda x: x @ m.ones(4, np.int8), I8),
    "where scalar cond": (lambda m: lambda x: m.where(True, x, 0.5), I8),
    "zeros with dtype": (lambda m: lambda x: m.zeros((4,), np.int8) + x[0], I8),
    "ones default": (lambda m: lambda x: m.ones(3) * x[0, 0], I8),
    "asarray list": (lambda m: lambda x: m.asarray([1, 2.5]) + x[0, :2], A),
    "asarray dtype": (lambda m: lambda x: m.asarray(x, dtype=np.int32), A),
    "array ndmin": (lambda m: lambda x: m.array(x[0, 0], ndmin=2), A),
    "astype bool": (lambda m: lambda x: x.astype(bool), A),
    "full_like dtype": (lambda m: lambda x: m.full_like(x, 7, dtype=np.float16), I8),
    "log2 log10": (lambda m: lambda x: m.log2(m.abs(x) + 1) + m.log10(m.abs(x) + 1), I8),
    "reciprocal square": (lambda m: lambda x: m.reciprocal(x + 6) + m.square(x), I8),
    "isinf isnan isfinite": (lambda m: lambda x: (m.isinf(x / 0.0), m.isnan(x), m.isfinite(x)), A),
    "logical ops": (lambda m: lambda x: (m.logical_xor(x, 2), m.logical_not(x)), I8),
    "shifts": (lambda m: lambda x: (m.left_shift(x, 2), m.right_shift(x, 1)), I8),
    "real imag conj": (lambda m: lambda x: (m.real(x * 1j), m.imag(x), m.conj(x + 1j)), A),
    "arctan2 power": (lambda m: lambda x: (m.arctan2(x, 2), m.power(m.abs(x), 0.5)), A),
    "mod and floor_divide floats": (lambda m: lambda x: (x % 3, x // -2.5), A),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CALLS))
def test_function_matches_jax_numpy(name):
    make, arg = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = jax.tree_util.tree_leaves(jax.jit(make(jnp))(arg))
        ours = jax.tree_util.tree_leaves(wt.trace(make(wnp))(arg))
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs, strict=True):
        assert (o.shape, o.dtype, o.weak_type) == (t.shape, t.dtype, t.weak_type), name
        np.testing.assert_allclose(
            np.asarray(o, np.float64), np.asarray(t, np.float64), rtol=1e-3, err_msg=name
        )
