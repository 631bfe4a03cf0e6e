"""Focused regressions for bugs found by running the session-10 tests/realistic/ programs
(rope_causal ... lr_schedule) on weaktrace.

The oracle is jax itself, computed at test time.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp_jax
import numpy as np
import pytest
from jax.experimental import ode

import weaktrace as wt
import weaktrace.numpy as wnp


def _agree(got, want, rtol=1e-5):
    g, w = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for a, b in zip(g, w, strict=True):
        assert (a.shape, a.dtype, a.weak_type) == (b.shape, b.dtype, b.weak_type)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-6)


# sir_odeint.py: jax.experimental.ode.odeint inside weaktrace.trace closure-converts its
# func on the traced arguments and raised ForeignFunctionError; it is now recorded as a
# transformation of func (jax's integrator and adjoint gradient run when it lowers).
def _ode_program(np_mod):
    def decay(y, t, k):
        return {"a": -k * y["a"], "b": y["a"] - 0.5 * y["b"] * t}

    def run(y0, ts, k, scale):
        def forced(y, t):  # closes over a traced value
            return -scale * y + np_mod.sin(t)

        traj = ode.odeint(decay, y0, ts, k, rtol=1e-6, atol=1e-8)
        forced_traj = ode.odeint(forced, scale * np_mod.ones(2), ts)

        def final(k):
            return ode.odeint(decay, y0, ts, k, rtol=1e-6, atol=1e-8)["b"][-1].sum()

        return traj, forced_traj, jax.grad(final)(k)

    return run


@pytest.mark.parametrize("x64", [False, True])
def test_odeint_inside_a_trace(x64):
    with jax.enable_x64(x64):
        f = np.float64 if x64 else np.float32  # jax's odeint needs y0 and t of one dtype
        y0 = {"a": f(1.0), "b": np.array([0.5, 0.25], f)}
        args = (y0, np.linspace(0.0, 2.0, 4, dtype=f), np.float32(0.7), np.float32(1.5))
        want = jax.jit(_ode_program(jnp_jax))(*args)
        traced = wt.trace(_ode_program(wnp))
        avals = traced.trace(*args).out_avals
        shapes = jax.eval_shape(_ode_program(jnp_jax), *args)
        for a, s in zip(jax.tree_util.tree_leaves(avals), jax.tree_util.tree_leaves(shapes),
                        strict=True):  # fmt: skip
            assert (a.shape, a.dtype, a.weak_type) == (s.shape, s.dtype, s.weak_type)
        _agree(traced(*args), want)
        _agree(_ode_program(wnp)(*args), _ode_program(jnp_jax)(*args))
