"""Gradients of every one-array function of jax.numpy, jax.nn and jax.scipy.special,
through weaktrace.trace, against jax's own (custom JVPs included: a function whose
derivative jax defines by hand at a point, such as i0 or sinc at 0, must agree there).

The names are enumerated from jax at test time; a function jax cannot differentiate on a
float32 vector is skipped. First and second derivatives; CI runs a sample of the names
(a stable one), ``--run-slow`` all of them.
"""

from __future__ import annotations

import random
import warnings

import jax
import jax.nn
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.nn as wnn
import weaktrace.numpy as wnp
import weaktrace.scipy.special as wss

# Tolerance: series functions (zeta, polygamma) differ in float32's last bits between two
# compiled programs; a wrong custom JVP differs in the leading digit (0 vs 1 for i0 at 0).
# kinks and special points: signed zeros, +-1, a small value
X = np.array([-2.0, -1.0, -0.5, -0.0, 0.0, 1e-3, 0.5, 1.0, 2.5], np.float32)
_MODULES = {"numpy": (jnp, wnp), "nn": (jax.nn, wnn), "scipy.special": (jss, wss)}
# jax answers these from the values (nonzero, unique...): jit and weaktrace.trace cannot
_VALUE_SHAPED = {"argwhere", "flatnonzero", "nonzero", "roots", "trim_zeros", "unique",
                 "unique_counts", "unique_values", "unique_all", "unique_inverse", "where",
                 "extract", "compress"}  # fmt: skip
# always in the CI sample: the functions whose derivatives jax defines by hand
_ALWAYS = {"numpy.i0", "numpy.sinc", "numpy.frexp", "numpy.ldexp", "nn.relu", "nn.softmax",
           "scipy.special.logsumexp", "scipy.special.xlogy", "numpy.abs", "numpy.sqrt"}  # fmt: skip


def _names() -> list[str]:
    out = []
    for label, (jm, wm) in _MODULES.items():
        for name in sorted(dir(jm)):
            fn = getattr(jm, name, None)
            if name.startswith("_") or name in _VALUE_SHAPED or isinstance(fn, type):
                continue
            if callable(fn) and hasattr(wm, name):
                out.append(f"{label}.{name}")
    return out


def _binary_names() -> list[str]:
    # unravel_index's second argument is a shape: jax.jit gives NaNs for a traced float one,
    # weaktrace raises ShapeError. can_cast is numpy's own function (jax's is the same
    # object): numpy reads a jax tracer's dtype, a weaktrace one raises ForeignFunctionError
    skip = {"numpy.unravel_index", "numpy.can_cast"}
    return [n for n in _names() if not n.startswith("nn.") and n not in skip]


def _loss(xnp, fn):
    return lambda v: xnp.sum(xnp.real(xnp.asarray(fn(v))).astype(xnp.float32))


def _grads(loss, order):
    g = jax.grad(loss)
    if order == 2:
        first = g
        g = jax.grad(lambda v: jnp.sum(first(v)))
    return g


@pytest.mark.slow
@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("name", _names())
@pytest.mark.ci_sample(2)
def test_gradient_equals_jax(name, order, full):
    if not full and name not in _ALWAYS and random.Random(name).random() > 0.1:
        pytest.skip("in the --run-slow sweep")
    label, fname = name.rsplit(".", 1)
    jm, wm = _MODULES[label]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = np.asarray(_grads(jax.jit(_loss(jnp, getattr(jm, fname))), order)(X))
        except Exception:  # jax cannot differentiate it on one float vector
            pytest.skip("jax raises")
        got = np.asarray(_grads(wt.trace(_loss(wnp, getattr(wm, fname))), order)(X))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-6, equal_nan=True, err_msg=name)


Y = np.array([1.0, -1.0, 0.0, -0.0, 0.5, 2.0, 2.5, 0.0, 3.0], np.float32)


@pytest.mark.slow
@pytest.mark.parametrize("name", _binary_names())
def test_two_argument_gradient_equals_jax(name, full):
    """The gradient with respect to both arguments of functions jax can call on two
    float32 vectors (the scan found owens_t and roll with a float shift raising)."""
    if not full and name not in _ALWAYS and random.Random(name).random() > 0.1:
        pytest.skip("in the --run-slow sweep")
    label, fname = name.rsplit(".", 1)
    jm, wm = _MODULES[label]

    def loss(xnp, fn):
        return lambda a, b: xnp.sum(xnp.real(xnp.asarray(fn(a, b))).astype(xnp.float32))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = jax.grad(jax.jit(loss(jnp, getattr(jm, fname))), (0, 1))(X, Y)
        except Exception:  # jax cannot differentiate its jit of it (as ours is a jit)
            pytest.skip("jax raises")
        got = jax.grad(wt.trace(loss(wnp, getattr(wm, fname))), (0, 1))(X, Y)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-3, atol=1e-6,
                                   equal_nan=True, err_msg=name)  # fmt: skip
