"""Random programs traced by jax.make_jaxpr (jax.numpy) and weaktrace.trace (weaktrace.numpy):
every output's shape, dtype and weak_type must be equal, x64 on and off, and where
JAX raises we raise. CI runs a sample; --run-slow (or WEAKTRACE_FULL=1) runs thousands.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import pytest
from hypothesis import HealthCheck, given, settings

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.programs import Program, make_args, make_fn, programs


def jax_avals(program: Program, args: list) -> list[tuple]:
    out = jax.make_jaxpr(make_fn(program, jnp))(*args).out_avals
    return [(tuple(a.shape), a.dtype, bool(a.weak_type)) for a in out]


def our_avals(program: Program, args: list) -> list[tuple]:
    out = jax.tree_util.tree_leaves(wt.trace(make_fn(program, wnp)).trace(*args).out_avals)
    return [(a.shape, a.dtype, a.weak_type) for a in out]


def run_both(program: Program, x64: bool) -> tuple[object, object]:
    args = make_args(program, x64=x64)
    results = []
    for f in (jax_avals, our_avals):
        with jax.enable_x64(x64), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                results.append(f(program, args))
            except Exception as e:  # the class is compared below
                results.append(e)
    return results[0], results[1]


def check(program: Program, x64: bool) -> None:
    theirs, ours = run_both(program, x64)
    context = f"x64={x64}\n{program}\njax: {theirs!r}\nours: {ours!r}"
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"jax raised, we did not:\n{context}"
        return
    if isinstance(ours, Exception):
        # Some programs jax traces but cannot lower (argmax of complex: lax.gt rejects
        # complex at lowering); raising at trace time is right when jax.jit raises.
        assert jax_jit_raises(program, x64), f"we raised, jax did not:\n{context}"
        return
    assert ours == theirs, f"avals differ:\n{context}"


def jax_jit_raises(program: Program, x64: bool) -> bool:
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            jax.block_until_ready(jax.jit(make_fn(program, jnp))(*make_args(program, x64=x64)))
        except Exception:  # any error: jax cannot run the program either
            return True
    return False


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(program=programs())
def test_random_programs_match_jax_avals(x64, program):
    check(program, x64)


# -- values: weaktrace's compiled program against jax.jit of the jax.numpy program -----


def _leaves(out: object) -> list:
    return jax.tree_util.tree_leaves(out)


def run_values(program: Program, x64: bool) -> tuple[object, object]:
    args = make_args(program, seed=1, x64=x64)
    results = []
    for run in (
        lambda: _leaves(jax.jit(make_fn(program, jnp))(*args)),
        lambda: _leaves(wt.trace(make_fn(program, wnp))(*args)),
    ):
        with jax.enable_x64(x64), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                results.append(run())
            except Exception as e:  # compared below
                results.append(e)
    return results[0], results[1]


def assert_close(theirs: object, ours: object, context: str) -> None:
    """Same dtype and weak flag; integer/bool values bitwise, floating within a few ulps."""
    import numpy as np

    assert isinstance(theirs, jax.Array) and isinstance(ours, jax.Array), context
    assert (ours.dtype, ours.weak_type, ours.shape) == (
        theirs.dtype,
        theirs.weak_type,
        theirs.shape,
    ), context
    a = np.asarray(theirs)
    b = np.asarray(ours)
    if a.dtype.kind in "biu" or a.dtype.name in ("int4", "uint4", "int2", "uint2"):
        assert np.array_equal(a, b), context
        return
    wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    got = b.astype(wide.dtype)
    eps = float(jnp.finfo(a.dtype if a.dtype.kind != "c" else np.finfo(a.dtype).dtype).eps)
    np.testing.assert_allclose(
        got, wide, rtol=4 * eps, atol=4 * eps, equal_nan=True, err_msg=context
    )


def check_values(program: Program, x64: bool) -> None:
    theirs, ours = run_values(program, x64)
    context = f"x64={x64}\n{program}\njax: {theirs!r}\nours: {ours!r}"
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"jax raised, we did not:\n{context}"
        return
    assert not isinstance(ours, Exception), f"we raised, jax did not:\n{context}"
    assert len(ours) == len(theirs), context
    for t, o in zip(theirs, ours, strict=True):
        assert_close(t, o, context)


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
          max_examples=max(25, settings.default.max_examples // 4))  # compiles: fewer  # fmt: skip
@given(program=programs())
def test_random_programs_compute_what_jax_computes(x64, program):
    check_values(program, x64)
