"""A jax array on the left of an operator whose right operand is a weaktrace tracer
(``jax_array + x`` with the jax array a closed-over constant, e.g. an eager result or a
module-level constant of a program whose imports were swapped) computes as under
jax.jit, in a trace and inside control-flow bodies and solves run eagerly.

Regression: jax's operators call ``__jax_array__`` on the right operand, and the
tracer's raised ForeignFunctionError instead of letting Python try the tracer's
reflected operator."""

# ruff: noqa: B023  (every lambda made in a loop is called within that iteration)
from __future__ import annotations

import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.numpy as wnp

BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow, "matmul": operator.matmul, "lt": operator.lt, "le": operator.le,
    "eq": operator.eq, "ne": operator.ne, "gt": operator.gt, "ge": operator.ge,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "lshift": operator.lshift, "rshift": operator.rshift,
}  # fmt: skip
CONSTS = {  # name -> the closed-over jax array (made at test time)
    "f32": lambda: jnp.arange(3.0, dtype=jnp.float32) + 1,
    "i32": lambda: jnp.arange(3, dtype=jnp.int32) + 1,
    "weak f": lambda: jnp.asarray(2.0),
    "bool": lambda: jnp.array([True, False, True]),
}
ARGS = [np.full(3, 2, np.float32), np.full(3, 2, np.int8), np.full(3, 1, np.uint8), 3, 1.5]


def _outcome(fn):
    try:
        out = fn()
    except Exception as e:  # the outcome is compared
        return type(e)
    return (np.asarray(out).dtype, bool(getattr(out, "weak_type", False)), np.asarray(out))


def _same(ours, theirs, what):
    if isinstance(theirs, type):
        assert isinstance(ours, type), f"{what}: jax raised {theirs}, weaktrace gave {ours}"
        related = issubclass(ours, theirs) or issubclass(theirs, ours)
        assert related or issubclass(ours, wt.WeaktraceError), what
        return
    assert not isinstance(ours, type), f"{what}: jax gave {theirs}, weaktrace raised {ours}"
    assert ours[:2] == theirs[:2], f"{what}: {ours[:2]} vs jax {theirs[:2]}"
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6, err_msg=what)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("const", sorted(CONSTS))
def test_jax_array_operator_tracer_as_jit(const, x64, full):
    """Every operator; CI: one argument kind per operator, in turn (--run-slow: all)."""
    with jax.enable_x64(x64):
        c = CONSTS[const]()
        for i, (name, op) in enumerate(BINARY.items()):
            for arg in ARGS if full else [ARGS[i % len(ARGS)]]:
                fn = lambda y: op(c, y)  # noqa: E731
                what = f"{const} {name} {arg!r}"
                _same(_outcome(lambda: wt.trace(fn)(arg)), _outcome(lambda: jax.jit(fn)(arg)),
                      what)  # fmt: skip


BODIES = {  # name -> fn(lax module, numpy module, closed-over jax array a, x)
    "fori": lambda L, N, a, x: L.fori_loop(0, 3, lambda i, c: a @ c / 4, x),
    "while": lambda L, N, a, x: L.while_loop(lambda c: N.sum(c) < 50, lambda c: a @ c, x),
    "scan": lambda L, N, a, x: L.scan(lambda c, _: (a @ c, a[0] - c), x, None, length=2),
    "cond": lambda L, N, a, x: L.cond(True, lambda c: a + c, lambda c: a - c, x),
    "linear solve": lambda L, N, a, x: L.custom_linear_solve(
        lambda v: a @ v, x, lambda mv, r: r / 4, has_aux=False
    ),
    "root": lambda L, N, a, x: L.custom_root(
        lambda v: a @ v - x, x, lambda f, g: g / 4, lambda g, r: r / 4
    ),
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_closed_over_jax_array_in_bodies_eager_and_traced(name):
    a = jnp.eye(3, dtype=jnp.float32) * 4
    x = np.ones(3, np.float32)
    fn = BODIES[name]
    want = jax.jit(lambda v: fn(lax, jnp, a, v))(x)
    for got in (fn(wlax, wnp, a, jnp.asarray(x)), wt.trace(lambda v: fn(wlax, wnp, a, v))(x)):
        for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want),
                        strict=True):  # fmt: skip
            assert g.dtype == w.dtype and g.shape == w.shape, name
            np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=name)
