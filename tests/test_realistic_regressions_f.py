"""Regressions found by running the session-15 realistic programs (tests/realistic/) on
weaktrace with their imports swapped.

The oracle is jax itself, computed at test time.
"""

from __future__ import annotations

from functools import partial

import jax
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp


def _unrolled(np_mod, x, depth, scale):
    for _ in range(depth):
        x = np_mod.tanh(x) * scale
    return x


def _stack(np_mod, static_argnums):
    block = jax.checkpoint(partial(_unrolled, np_mod), static_argnums=static_argnums)

    def loss(x):
        return np_mod.sum(block(x, x.shape[0], 2.0) ** 2)

    return lambda x: (loss(x), jax.grad(loss)(x))


@pytest.mark.parametrize("static_argnums", [1, (1,), (-2,)])
def test_checkpoint_static_argnums_stays_python(static_argnums) -> None:
    """jax.checkpoint(static_argnums=...) hands the function that argument as the Python
    value it was given (a loop bound: `range(depth)`); weaktrace made it a traced weak int,
    so the loop raised TracerIntegerConversionError (found by checkpoint_policies)."""
    x = np.linspace(-1.0, 1.0, 3, dtype=np.float32)
    want = jax.jit(_stack(jax.numpy, static_argnums))(x)
    got = wt.trace(_stack(wnp, static_argnums))(x)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


def _filled(init_mod, np_mod, key, scale):
    value = np_mod.array([1.0, 2.0, 3.0]) * scale
    return init_mod.constant(value)(key, (2, 3)), init_mod.constant(scale, np_mod.float16)(
        key, (2,)
    )


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_constant_initializer_of_a_traced_value(x64: bool) -> None:
    """nn.initializers.constant(jnp.array(...)) inside a traced init: weaktrace reused jax's
    constant, whose jnp.full cannot take a weaktrace value (ForeignFunctionError)."""
    from jax.nn import initializers as jinit

    from weaktrace.nn import initializers as winit

    key = jax.random.key(0)
    with jax.enable_x64(x64):
        want = jax.jit(lambda k, s: _filled(jinit, jax.numpy, k, s))(key, 2.0)
        got = wt.trace(lambda k, s: _filled(winit, wnp, k, s))(key, 2.0)
        for a, b in zip(got, want, strict=True):
            assert (a.shape, a.dtype, a.weak_type) == (b.shape, b.dtype, b.weak_type)
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
