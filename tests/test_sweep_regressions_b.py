"""Focused regressions for bugs found by running the slow sweeps (``--run-slow``) of
weaktrace.random, weaktrace.numpy.fft and weaktrace.numpy.linalg in full (issue #14):
the sweeps keep running only under ``--run-slow``; the case that found each bug is
checked here, in CI, in a few seconds.

The oracle is jax itself, computed at test time: where jax raises, weaktrace raises the
same kind of error; where jax computes, weaktrace computes the same values and dtype.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.random as wr

X64 = pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])


def _outcome(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn()
        except Exception as err:  # compared by the caller
            return err


def _same_outcome(ours: Callable[[], Any], theirs: Callable[[], Any], where: str) -> None:
    """Both raise the same kind of error (jax's class), or both compute equal arrays."""
    want, got = _outcome(theirs), _outcome(ours)
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), f"{where}: jax raised {want!r}, weaktrace {got!r}"
        return
    assert not isinstance(got, Exception), f"{where}: jax computed, weaktrace raised {got!r}"
    assert (got.shape, got.dtype) == (want.shape, want.dtype), (
        f"{where}: {got.dtype}{list(got.shape)} != {want.dtype}{list(want.shape)}"
    )
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=where)


# -- weaktrace.random ------------------------------------------------------------------------

# jax.random checks these samplers' parameters with `_check_all_safe_to_cast` (a float32
# parameter cannot become float16 samples); weaktrace checked only rayleigh and wald and
# silently rounded the others' parameters (found by test_random --run-slow: triangular,
# pareto, t, chisquare with dtype=float16).
_SAFE_CAST = {
    "beta": (np.float16(1.5), np.float32(2.0)),
    "pareto": (np.float32(1.5),),
    "t": (np.float32(3.0),),
    "chisquare": (np.ones(3, np.float32),),
    "f": (np.float16(2.0), np.float32(3.0)),
    "rayleigh": (np.float32(1.0),),
    "wald": (np.float32(1.0),),
    "triangular": (0.0, np.float32(0.5), np.ones(3)),
    "lognormal": (np.float32(0.5),),
}


# the samplers built on jax's gamma kernel compile for seconds: their float32 case (which
# computes) is left to test_random
_GAMMA_BASED = ("beta", "t", "chisquare", "f")
_SAFE_CAST_CASES = [(name, dtype, x64) for name in sorted(_SAFE_CAST)
                    for dtype in ("float16", "bfloat16", "float32") for x64 in (False, True)
                    if dtype != "float32" or (name not in _GAMMA_BASED and x64)]  # fmt: skip


@pytest.mark.parametrize(("name", "dtype", "x64"), _SAFE_CAST_CASES)
def test_sampler_parameters_are_cast_safely(name, dtype, x64):
    """Eager and traced, with a float32 parameter: jax refuses a narrower dtype
    (TypePromotionError) and samples at float32; weaktrace does the same."""
    args = _SAFE_CAST[name]
    jfn, wfn = getattr(jax.random, name), getattr(wr, name)
    key = jax.random.key(3)
    with jax.enable_x64(x64):
        where = f"{name} dtype={dtype} x64={x64}"
        _same_outcome(lambda: wfn(key, *args, dtype=dtype), lambda: jfn(key, *args, dtype=dtype),
                      f"{where} eager")  # fmt: skip
        _same_outcome(
            lambda: wt.trace(lambda k, *a: wfn(k, *a, dtype=dtype))(key, *args),
            lambda: jax.jit(lambda k, *a: jfn(k, *a, dtype=dtype))(key, *args),
            f"{where} traced",
        )


def _both(jfn: Callable[..., Any], wfn: Callable[..., Any], args: tuple, kw: dict, where: str):
    """Eager against jax eager, weaktrace.trace against jax.jit (key traced), and the
    traced avals against jax.eval_shape's."""
    key, *rest = args
    _same_outcome(lambda: wfn(*args, **kw), lambda: jfn(*args, **kw), f"{where} eager")
    _same_outcome(
        lambda: wt.trace(lambda k: wfn(k, *rest, **kw))(key),
        lambda: jax.jit(lambda k: jfn(k, *rest, **kw))(key),
        f"{where} traced",
    )
    want = _outcome(lambda: jax.eval_shape(lambda k: jfn(k, *rest, **kw), key))
    if not isinstance(want, Exception):
        (aval,) = jax.tree_util.tree_leaves(
            wt.trace(lambda k: wfn(k, *rest, **kw)).trace(key).out_avals
        )
        assert (aval.shape, aval.dtype) == (want.shape, want.dtype), f"{where}: traced {aval}"


_A2 = np.arange(12, dtype=np.int16).reshape(3, 4)
_CHOICE = {
    # zero draws: jax returns jnp.zeros(shape, dtype of a) before looking at a's shape;
    # weaktrace gave a[:axis] + shape + a[axis+1:] and, for an int population, int32
    "zero draws of a matrix": (_A2, {"shape": (0,), "axis": 1}),
    "zero draws of an int16 population": (np.int16(4), {"shape": (0,)}),
    "zero draws of an int population": (4, {"shape": (0,), "replace": False}),
    "zero draws, weighted": (np.arange(4.0), {"shape": (0,), "p": np.ones(4, np.float32)}),
    # an int population without replacement is permutation(key, n, axis): jax refuses an
    # axis beyond the arange's one dimension; weaktrace sampled
    "int population, axis 1": (5, {"shape": (3,), "replace": False, "axis": 1}),
    "int population, axis -1": (5, {"shape": (2, 2), "replace": False, "axis": -1}),
    "int population, axis 1, replace": (5, {"shape": (3,), "axis": 1}),
    "int population, axis 1, weighted": (
        4,
        {"shape": (2,), "replace": False, "axis": 1, "p": np.full(4, 0.25, np.float32)},
    ),
}


# x64 off and on where the dtype depends on it (an int population), one mode elsewhere
_CHOICE_CASES = [(label, x64) for i, label in enumerate(_CHOICE) for x64 in (False, True)
                 if "zero draws of an int" in label or x64 == bool(i % 2)]  # fmt: skip


@pytest.mark.parametrize(("label", "x64"), _CHOICE_CASES)
def test_choice_edge_cases_as_jax(label, x64):
    """Found by test_random --run-slow (the shape (0,) and axis=1 cases of choice)."""
    a, kw = _CHOICE[label]
    with jax.enable_x64(x64):
        _both(jax.random.choice, wr.choice, (jax.random.key(1), a), kw, label)


_F_SHAPES = [((3,), (), (2, 3)), ((), (3,), (2, 3)), ((3,), (3,), (2, 3)), ((3,), (2, 3), None),
             ((), (), (2, 3)), ((1, 3), (), (2, 3)), ((3,), (), None)]  # fmt: skip


@pytest.mark.parametrize(("num", "den", "shape"), _F_SHAPES)
def test_f_parameter_ranks_as_jax(num, den, shape):
    """jax.random.f divides its chi-square samples (of the result's shape) by each
    parameter with lax.div, which refuses a parameter of another nonzero rank
    (TypeError); weaktrace's trace accepted it (found by test_random --run-slow: f with
    dfnum of shape (3,) and shape=(2, 3))."""
    dfnum, dfden = np.full(num, 2.0, np.float32), np.full(den, 3.0, np.float32)
    key = jax.random.key(2)
    where = f"f({num}, {den}, shape={shape})"
    want = _outcome(lambda: jax.eval_shape(lambda k: jax.random.f(k, dfnum, dfden, shape), key))
    got = _outcome(lambda: wt.trace(lambda k: wr.f(k, dfnum, dfden, shape)).trace(key).out_avals)
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), f"{where}: jax raised {want!r}, weaktrace {got!r}"
    else:
        assert not isinstance(got, Exception), f"{where}: jax traced, weaktrace raised {got!r}"
        (aval,) = jax.tree_util.tree_leaves(got)
        assert (aval.shape, aval.dtype) == (want.shape, want.dtype), where
