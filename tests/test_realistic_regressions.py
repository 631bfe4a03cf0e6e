"""Focused regressions for bugs found by running tests/realistic/ programs on weaktrace.

The oracle is jax itself, computed at test time.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp_jax
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.numpy as wnp

# rk4_ode.py: `jnp.array([v, -x])` inside an eager lax.fori_loop body, whose carry
# elements are jax tracers there (weaktrace's eager control flow is jax's own).


def _body(np_mod, dtype):
    def body(i, y):
        x, v = y
        return np_mod.array([v, -x + 1.0 * i], dtype=dtype)

    return body


@pytest.mark.parametrize("dtype", [None, "float32"])
@pytest.mark.parametrize("x64", [False, True])
def test_array_of_jax_tracers_in_eager_loop_body(dtype, x64):
    with jax.enable_x64(x64):
        y0 = np.array([1.0, 0.5], np.float32)
        want = jax.lax.fori_loop(0, 3, _body(jnp_jax, dtype), y0)
        got = wlax.fori_loop(0, 3, _body(wnp, dtype), y0)
        traced = wt.trace(lambda y: wlax.fori_loop(0, 3, _body(wnp, dtype), y))(y0)
        for out in (got, traced):
            assert (out.dtype, out.shape, out.weak_type) == (want.dtype, want.shape, want.weak_type)
            np.testing.assert_array_equal(np.asarray(out), np.asarray(want))


# batch_norm.py: `x.var(axis=0)`, as jax.Array has it (Tracer's IR slot was once named
# `var` and shadowed the method).
@pytest.mark.parametrize("ddof", [0, 1])
def test_var_method_on_traced_value(ddof):
    x = np.random.default_rng(1).standard_normal((6, 3)).astype(np.float32)
    want = jax.jit(lambda x: x.var(axis=0, ddof=ddof))(x)
    got = wt.trace(lambda x: x.var(axis=0, ddof=ddof))(x)
    assert (got.dtype, got.shape, got.weak_type) == (want.dtype, want.shape, want.weak_type)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


# optax_chain.py: `1 - b1**count` (optax's bias correction, an int32 count under a weak
# float) was reported "in forward_operator_to_aval.<locals>.op", jax's operator closure;
# lint names the jnp function the operator calls, as `c * 0.5` is named `mul`.
def test_lint_names_the_jnp_function_an_operator_forwards_to():
    def bias_correction(count):
        return 1 - 0.9**count

    count = jax.ShapeDtypeStruct((), jnp_jax.int32)
    # the oracle: jax promotes the int32 count to float32 there
    assert jax.eval_shape(bias_correction, count).dtype != count.dtype
    (finding,) = list(wt.lint(bias_correction, count))
    assert finding.kind == "implicit-promotion"
    assert " in power (" in finding.message, finding.message
    assert "<locals>" not in finding.message


# `out, pullback = jax.vjp(f, x, y)` inside a traced function (found probing the jax
# transformations realistic programs call): jax.vjp was not wrapped, so the traced
# primals reached jax and raised ForeignFunctionError.
def _vjp_program(np_mod):
    def f(x, y):
        out, pullback = jax.vjp(lambda a, b: (np_mod.sin(a) * b, np_mod.sum(a * b)), x, y)
        gx, gy = pullback((np_mod.ones_like(out[0]), 2.0 * np_mod.ones_like(out[1])))
        o2, pullback2, aux = jax.vjp(lambda a: (np_mod.tanh(a), a.sum()), x, has_aux=True)
        return out, gx, gy, o2, pullback2(o2)[0], aux

    return f


@pytest.mark.parametrize("x64", [False, True])
def test_jax_vjp_inside_a_trace(x64):
    x, y = np.arange(3, dtype=np.float32), np.float32(2.0)
    with jax.enable_x64(x64):
        want = jax.jit(_vjp_program(jnp_jax))(x, y)
        got = wt.trace(_vjp_program(wnp))(x, y)
        eager = _vjp_program(wnp)(x, y)
    for out in (got, eager):
        assert jax.tree_util.tree_structure(out) == jax.tree_util.tree_structure(want)
        leaves = zip(jax.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(want), strict=True)
        for g, w in leaves:
            assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type)
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


# `jax.eval_shape(fn, params)` inside a traced function (shapes for buffers, as init code
# does): it handed the traced values to jax. The structs seen inside the trace must be
# the ones jax.eval_shape gives inside jax.jit, weak flags included.
def _eval_shape_program(np_mod, seen):
    def f(p, scale):
        shapes = jax.eval_shape(
            lambda q, t: {"m": q["a"] @ q["a"], "c": q["b"] * t, "w": t * 2}, p, scale
        )
        seen.append(shapes)
        m = shapes["m"]
        return np_mod.zeros(m.shape, m.dtype) + p["a"], np_mod.full((), 1, shapes["w"].dtype)

    return f


@pytest.mark.parametrize("scale", [2, np.float32(2), 2.5])
def test_jax_eval_shape_inside_a_trace(scale):
    p = {"a": np.ones((2, 2), np.float32), "b": np.zeros(3, np.int8)}
    theirs, ours = [], []
    want = jax.jit(_eval_shape_program(jnp_jax, theirs))(p, scale)
    got = wt.trace(_eval_shape_program(wnp, ours))(p, scale)
    assert jax.tree_util.tree_structure(ours[-1]) == jax.tree_util.tree_structure(theirs[-1])
    for a, b in zip(jax.tree_util.tree_leaves(ours[-1]), jax.tree_util.tree_leaves(theirs[-1]),
                    strict=True):  # fmt: skip
        assert (a.shape, a.dtype, a.weak_type) == (b.shape, b.dtype, b.weak_type)
    for g, w in zip(got, want, strict=True):
        assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type)
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
