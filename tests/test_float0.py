"""float0 values inside weaktrace.trace against jax.jit (issue #14).

jax.grad(..., allow_int=True) gives an integer argument a float0 gradient: an array of
no data. jax.jit returns one, accepts one as an argument and passes one to its
transformations (a tangent or cotangent of an integer value); shape operations keep it
and arithmetic refuses it with a TypeError. weaktrace.trace must do the same: every
program here runs under both, and the results (pytree, dtype, shape, weak flag, values)
or the error family must agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.numpy as wnp

F0 = jax.dtypes.float0
X = np.linspace(0.5, 2, 3).astype(np.float32)
N = np.arange(2, dtype=np.int32)


def _loss(x: Any, n: Any) -> Any:
    return (x * x).sum() * 2


def _int_grad(x: Any, n: Any) -> Any:
    """A float0 made inside the trace: the gradient of an integer argument."""
    return jax.grad(_loss, argnums=1, allow_int=True)(x, n)


Program = Callable[[Any, Any, Any, Any], Any]  # (numpy module, lax module, x, n)

PROGRAMS: dict[str, Program] = {
    "grad returns float0": lambda m, lx, x, n: jax.grad(_loss, (0, 1), allow_int=True)(x, n),
    "grad of a scalar int": lambda m, lx, x, n: jax.grad(_loss, (0, 1), allow_int=True)(x, n[0]),
    "value_and_grad": lambda m, lx, x, n: jax.value_and_grad(_loss, (0, 1), allow_int=True)(x, n),
    "float0 in a dict": lambda m, lx, x, n: {"g": _int_grad(x, n), "x": x},
    "jvp float0 tangent": lambda m, lx, x, n: jax.jvp(
        lambda a, k: a * k[0], (x, n), (x, np.zeros(n.shape, F0))
    ),
    "vjp float0 cotangent": lambda m, lx, x, n: jax.vjp(lambda a, k: (a * 2, k + 1), x, n)[1](
        (x, np.zeros(n.shape, F0))
    ),
    "traced float0 into vjp": lambda m, lx, x, n: jax.vjp(lambda a, k: (a * 2, k * 3), x, n)[1](
        (x, _int_grad(x, n))
    ),
    "traced float0 into jvp": lambda m, lx, x, n: jax.jvp(
        lambda a, k: a * k[0], (x, n), (x, _int_grad(x, n))
    ),
    "float0 argument of grad": lambda m, lx, x, n: jax.grad(lambda a, t: (a * a).sum())(
        x, _int_grad(x, n)
    ),
    "vmap of grad": lambda m, lx, x, n: jax.vmap(
        lambda r: jax.grad(_loss, (0, 1), allow_int=True)(r, n)
    )(m.stack([x, x])),
    # shape operations keep a float0, conversion makes zeros
    "reshape": lambda m, lx, x, n: m.reshape(_int_grad(x, n), (2, 1)),
    "concatenate": lambda m, lx, x, n: m.concatenate([_int_grad(x, n)] * 2),
    "index": lambda m, lx, x, n: _int_grad(x, n)[0],
    "where": lambda m, lx, x, n: m.where(True, _int_grad(x, n), _int_grad(x, n)),
    "zeros_like": lambda m, lx, x, n: m.zeros_like(_int_grad(x, n)),
    "astype float32": lambda m, lx, x, n: _int_grad(x, n).astype(np.float32),
    "convert_element_type": lambda m, lx, x, n: lx.convert_element_type(_int_grad(x, n), "int8"),
    "zeros of dtype float0": lambda m, lx, x, n: m.zeros(3, F0),
    "astype float0": lambda m, lx, x, n: x.astype(F0),
    # arithmetic refuses it
    "add": lambda m, lx, x, n: m.add(_int_grad(x, n), 1),
    "operator *": lambda m, lx, x, n: _int_grad(x, n) * x[:2],
    "equal": lambda m, lx, x, n: _int_grad(x, n) == _int_grad(x, n),
    "negative": lambda m, lx, x, n: -_int_grad(x, n),
    "sum": lambda m, lx, x, n: m.sum(_int_grad(x, n)),
    "lax.add": lambda m, lx, x, n: lx.add(_int_grad(x, n), _int_grad(x, n)),
}


def _sig(a: Any) -> tuple[Any, ...]:
    return (np.shape(a), np.dtype(a.dtype), bool(getattr(a, "weak_type", False)))


def _compare(ours: Callable[..., Any], theirs: Callable[..., Any], *args: Any) -> None:
    """wt.trace(ours) against jax.jit(theirs): results and traced types, or errors."""
    try:
        want = jax.jit(theirs)(*args)
    except Exception as err:  # jax refuses: so must we, in the same family
        family = TypeError if isinstance(err, TypeError) else ValueError
        assert isinstance(err, family), err
        with pytest.raises(family):
            wt.trace(ours)(*args)
        return
    traced = wt.trace(ours)
    avals = jax.tree_util.tree_leaves(traced.trace(*args).out_avals)
    shapes = jax.tree_util.tree_leaves(jax.eval_shape(theirs, *args))
    assert [_sig(a) for a in avals] == [_sig(s) for s in shapes]
    got = traced(*args)
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True):
        assert _sig(g) == _sig(w), (g, w)
        if np.dtype(w.dtype) != F0:
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


@pytest.mark.ci_sample(2)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("x64", [False, True])
def test_float0_inside_trace_matches_jax_jit(name: str, x64: bool) -> None:
    program = PROGRAMS[name]
    with jax.enable_x64(x64):
        _compare(
            lambda x, n: program(wnp, wlax, x, n), lambda x, n: program(jnp, jax.lax, x, n), X, N
        )


@pytest.mark.parametrize("shape", [(), (2,)])
def test_float0_arguments_pass_through(shape: tuple[int, ...]) -> None:
    """A float0 argument of the traced function, returned and passed to jax.vjp."""

    def f(x: Any, n: Any, t: Any) -> Any:
        pull = jax.vjp(lambda a, k: (a * 2, k), x, n)[1]
        return t, pull((x, t))

    n = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    _compare(f, f, X, n, np.zeros(shape, F0))


def test_float0_output_prints_as_jax_prints_it() -> None:
    """The traced program's float0 output: a float0 literal, as in jax's jaxpr, and an
    out_aval of dtype float0 and the integer argument's shape."""
    f = PROGRAMS["grad of a scalar int"]
    traced = wt.trace(lambda x, n: f(wnp, wlax, x, n)).trace(X, N)
    jaxpr = jax.make_jaxpr(lambda x, n: f(jnp, jax.lax, x, n))(X, N)
    out = traced.out_avals[1]
    assert (out.shape, out.dtype) == (jaxpr.out_avals[1].shape, jaxpr.out_avals[1].dtype)
    assert "float0[]" in str(traced.program) and "float0[]" in str(jaxpr)
