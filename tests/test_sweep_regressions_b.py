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
    assert got.dtype == want.dtype, f"{where}: {got.dtype} != {want.dtype}"
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
