"""Gaps found by running jax v0.10.2's own test files with jax.numpy / lax / nn / random /
scipy swapped for weaktrace's mirrors (issues #13, #14, #12), session 13. Expected answers
come from jax, computed at test time."""

from __future__ import annotations

import functools
import itertools
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.numpy as wnp
import weaktrace.random as wrandom


def _describe(fn: Any) -> str:
    """dtype, weak flag and values of fn(), or the builtin class of what it raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:  # the builtin jax raises; weaktrace's classes subclass it
        base = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        return f"raises {base.__name__}"
    weak = getattr(getattr(r, "aval", None), "weak_type", None)
    return f"{np.asarray(r).tolist()} {r.dtype} weak={weak}"


# -- a Python int fill goes straight to the fill's dtype --------------------------------
# jax's random_test test_gather_fill fills uint32 key data with np.iinfo('uint32').max (a
# Python int) under x64 off. jax converts a Python fill straight to the target dtype
# (wrapping what does not fit); weaktrace first made it a weak int32 and raised
# OverflowError, in jnp.full_like, lax.full and lax.full_like (jnp.full was right).

FILLS = [2**32 - 1, 2**31, 2**40, -1, 300, 2**63, -(2**63) - 1]
FILL_DTYPES = ["uint32", "int32", "uint8", "float32", "bool", "int64", "uint64", None]


def _fill(fn: str, m: Any, lx: Any, x: Any, fill: int, dt: Any) -> Any:
    if fn == "jnp.full_like":
        return m.full_like(x, fill, dtype=dt)
    if fn == "lax.full_like":
        return lx.full_like(x, fill, dtype=dt)
    if fn == "lax.full":
        return lx.full((2,), fill, dtype=dt)
    return m.full((2,), fill, dtype=dt)


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("fn", ["jnp.full_like", "lax.full_like", "lax.full", "jnp.full"])
def test_python_int_fill_converts_straight_to_the_dtype_as_jax(fn: str, x64: bool) -> None:
    mods = {"jax": (jnp, jax.lax), "wt": (wnp, wlax)}
    with jax.enable_x64(x64):
        for fill, dt, xdt in itertools.product(FILLS, FILL_DTYPES, ["uint32", "float32"]):
            got = {}
            for name, (m, lx) in mods.items():
                x = m.zeros(2, xdt)
                got[name] = _describe(functools.partial(_fill, fn, m, lx, x, fill, dt))
            assert got["wt"] == got["jax"], (fill, dt, xdt)


def test_python_int_fill_of_a_weak_array_stays_weak_and_wraps_as_jax() -> None:
    want = _describe(functools.partial(jnp.full_like, jnp.asarray(3), 2**32 - 1))
    got = _describe(functools.partial(wnp.full_like, wnp.asarray(3), 2**32 - 1))
    assert got == want


def test_python_int_fill_under_trace_matches_jax_jit() -> None:
    def f(m: Any) -> Any:
        return lambda k: m.full_like(k, np.iinfo("uint32").max)

    k = np.zeros(2, np.uint32)
    want = jax.jit(f(jnp))(k)
    got = wt.trace(f(wnp))(k)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# -- an invalid raw key says what jax says ------------------------------------------------
# random_test test_legacy_prng_key_flag matches jax's "JAX encountered invalid PRNG key
# data" on a TypeError; weaktrace raised a TypeError with its own words only.


@pytest.mark.parametrize("bad", [np.zeros(1, np.float32), np.zeros(3, np.uint32)])
def test_invalid_raw_key_message_matches_jax(bad: np.ndarray) -> None:
    with pytest.raises(TypeError, match="JAX encountered invalid PRNG key data"):
        jax.random.uniform(jnp.asarray(bad))
    with pytest.raises(TypeError, match="JAX encountered invalid PRNG key data"):
        wrandom.uniform(wnp.asarray(bad))
