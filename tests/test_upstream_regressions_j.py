"""Bugs found by jax's tests/random_test.py (jax v0.10.2) run with jax.random / jax.numpy /
jax.lax swapped for weaktrace's: key dtypes in jnp.issubdtype, jax's seed error messages.
Expected answers come from jax, computed at test time."""

from __future__ import annotations

import re
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace.numpy as wnp
import weaktrace.random as wr


def _error(fn: Any, *args: Any) -> Exception:
    try:
        fn(*args)
    except Exception as err:  # compared with jax's
        return err
    raise AssertionError(f"{fn} did not raise")


@pytest.mark.parametrize("impl", ["threefry2x32", "rbg", "unsafe_rbg"])
@pytest.mark.parametrize(
    "other",
    [
        "self",
        jax.dtypes.prng_key,
        jax.dtypes.extended,
        np.generic,
        np.integer,
        np.number,
        np.uint32,
        "uint32",
    ],
)
def test_issubdtype_of_key_dtypes(impl: str, other: Any) -> None:
    # found by KeyArrayTest.test_issubdtype / PrngTest.check_key_has_impl: numpy was asked
    # to read key<fry> and raised "Cannot interpret 'key<fry>' as a data type"
    kd = jax.random.key(0, impl=impl).dtype
    assert wr.key(0, impl=impl).dtype == kd
    other = kd if other == "self" else other
    assert wnp.issubdtype(kd, other) == jnp.issubdtype(kd, other)
    assert wnp.issubdtype(other, kd) == jnp.issubdtype(other, kd)


def test_issubdtype_of_a_key_array_raises_as_jax() -> None:
    ref = _error(jnp.issubdtype, jax.random.key(1), jax.dtypes.prng_key)
    got = _error(wnp.issubdtype, wr.key(1), jax.dtypes.prng_key)
    assert isinstance(got, type(ref))


@pytest.mark.parametrize("ctor", ["key", "PRNGKey"])
@pytest.mark.parametrize("seed", ["a_key", "arange4", "pi", "jnp_arange4"])
def test_bad_seed_errors_say_what_jax_says(ctor: str, seed: str) -> None:
    # found by KeyArrayTest.test_key_as_seed / test_non_scalar_seed / test_non_integer_seed:
    # the messages always said "key ..." (also for PRNGKey) and "the seed must be ..."
    seeds = {
        "a_key": (jax.random.key(0), wr.key(0)),
        "arange4": (np.arange(4), np.arange(4)),
        "pi": (np.pi, np.pi),
        "jnp_arange4": (jnp.arange(4), jnp.arange(4)),
    }
    jseed, wseed = seeds[seed]
    ref = _error(getattr(jax.random, ctor), jseed)
    got = _error(getattr(wr, ctor), wseed)
    assert isinstance(got, type(ref))
    # jax's message up to the first punctuation that follows the key phrase
    head = re.split(r"[;,]", str(ref))[0]
    assert str(got).startswith(head) or head in str(got), (ref, got)


def test_convert_a_key_to_int_is_jaxs_value_error() -> None:
    # found by JnpWithKeyArrayTest.test_errors: the convert reached lowering and failed
    # there ("'stablehlo.convert' op requires the same shape"), no named error
    import jax.lax as jlax

    import weaktrace.lax as wlax

    ref = _error(jlax.convert_element_type, jax.random.key(0), int)
    got = _error(wlax.convert_element_type, wr.key(0), int)
    assert isinstance(got, type(ref))
    assert re.match(r"Cannot convert_element_type from key<fry> to int(32|64)", str(got))


@pytest.mark.parametrize("traced", [False, True])
def test_full_like_with_a_key_fill_broadcasts_the_key(traced: bool) -> None:
    # found by JnpWithKeyArrayTest.test_full_like_with_key_fillvalue: the key fill was
    # converted to uint32 and lowering failed
    import weaktrace as wt

    fn = wt.trace(wnp.full_like) if traced else wnp.full_like
    jfn = jax.jit(jnp.full_like) if traced else jnp.full_like
    ref = jfn(jax.random.split(jax.random.key(789543)), jax.random.key(42))
    got = fn(wr.split(wr.key(789543)), wr.key(42))
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(wr.key_data(got), jax.random.key_data(ref))


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("make", ["zeros", "ones", "full100", "fullkey"])
def test_creation_with_a_key_dtype_makes_keys(make: str, traced: bool) -> None:
    # found by JnpWithKeyArrayTest.test_full / test_full_with_key_fillvalue: dtype=key<fry>
    # was refused as "cannot interpret key<fry> as a dtype"
    import weaktrace as wt

    def build(np_: Any, rnd: Any) -> Any:
        def fn(keys: Any) -> Any:
            if make == "fullkey":
                return np_.full(keys.shape, rnd.key(42), dtype=keys.dtype)
            if make == "full100":
                return np_.full(keys.shape, 100, dtype=keys.dtype)
            return getattr(np_, make)(keys.shape, dtype=keys.dtype)

        return fn

    jfn, wfn = build(jnp, jax.random), build(wnp, wr)
    ref = (jax.jit(jfn) if traced else jfn)(jax.random.split(jax.random.key(789543)))
    got = (wt.trace(wfn) if traced else wfn)(wr.split(wr.key(789543)))
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(wr.key_data(got), jax.random.key_data(ref))


@pytest.mark.parametrize("traced", [False, True])
def test_full_with_an_array_fill_and_a_dtype_broadcasts(traced: bool) -> None:
    # found by JnpWithKeyArrayTest.test_full_with_key_fillvalue's reference call
    # jnp.full((2, 2), key_data(k), dtype=uint32): with a dtype, an array fill raised
    # "cannot broadcast (2,) to (2, 2)"
    import weaktrace as wt

    fill = np.arange(2, dtype=np.uint32)
    jfn = lambda f: jnp.full((2, 2), f, dtype="uint32")  # noqa: E731
    wfn = lambda f: wnp.full((2, 2), f, dtype="uint32")  # noqa: E731
    ref = (jax.jit(jfn) if traced else jfn)(fill)
    got = (wt.trace(wfn) if traced else wfn)(fill)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)
