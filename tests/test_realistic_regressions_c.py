"""Focused regressions for bugs found by running the session-10 tests/realistic/ programs
(rope_causal ... lr_schedule) on weaktrace.

The oracle is jax itself, computed at test time.
"""

from __future__ import annotations

import jax
import jax.extend.core
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
def test_odeint_inside_a_trace(x64, full):
    if x64 and not full:
        pytest.skip("odeint and its adjoint compile slowly: x64 under --run-slow")
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


# sir_odeint.py linted as written: jax.grad of odeint with a Python-float parameter gave
# three carry-change findings at the user's odeint line for the scans of odeint's own
# adjoint (jax's `t0_bar = 0.` and the weak parameter's zeros_like cotangent): loops
# jax's library writes are not the user's; the user's own loop next to them still is.
def _sir(y, t, beta):
    return jnp_jax.stack([-beta * y[0] * y[1], beta * y[0] * y[1] - 0.1 * y[1]])


def _odeint_and_user_loop(y0, ts, x):
    def final(beta):
        return ode.odeint(_sir, y0, ts, beta)[-1, 1]

    sens = jax.grad(final)(0.5)
    total = jax.lax.fori_loop(0, 3, lambda i, c: c + x, 0.0)  # the user's weak init
    return sens, total


def _weak_to_strong_loops(jaxpr):
    """Scans (in any sub-jaxpr) whose carry enters weak and leaves strong."""
    found = 0
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "scan":
            body, nc = eqn.params["jaxpr"].jaxpr, eqn.params["num_consts"]
            nk = eqn.params["num_carry"]
            ins, outs = body.invars[nc : nc + nk], body.outvars[:nk]
            found += any(
                a.aval.weak_type and not b.aval.weak_type for a, b in zip(ins, outs, strict=True)
            )
    return found + sum(_weak_to_strong_loops(sub) for sub in jax.extend.core.subjaxprs(jaxpr))


def test_lint_leaves_jax_library_loops_to_jax():
    y0 = np.array([0.99, 0.01], np.float32)
    ts, x = np.linspace(0.0, 1.0, 3, dtype=np.float32), np.float32(2.0)
    # the oracle: jax's own trace has library loops whose weak carry turns strong
    jaxpr = jax.make_jaxpr(_odeint_and_user_loop)(y0, ts, x).jaxpr
    assert _weak_to_strong_loops(jaxpr) >= 2  # odeint's adjoint and the user's fori_loop
    report = list(wt.lint(_odeint_and_user_loop, y0, ts, x))
    user_line = _odeint_and_user_loop.__code__.co_firstlineno + 5
    assert [(f.kind, f.line) for f in report] == [("carry-change", user_line)], report
