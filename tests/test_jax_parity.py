"""weaktrace.promote_types / result_type against jax.numpy, computed at test time."""

from __future__ import annotations

import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import weaktrace as wt
from tests.oracle import (
    MODE_IDS,
    MODES,
    assert_same,
    dtype_specs,
    jax_mode,
    outcome,
    pairs,
    value_forms,
)

DTYPE_SPECS = dtype_specs()
FORMS = value_forms()


def _result_with_flag(*args):
    return jax.dtypes.result_type(*args, return_weak_type_flag=True)


def _ours_with_flag(*args):
    return wt.result_type(*args, return_weak_type_flag=True)


@pytest.mark.parametrize(("strict", "x64"), MODES, ids=MODE_IDS)
def test_promote_types_every_pair(strict, x64):
    with jax_mode(strict, x64):
        for a, b in pairs(DTYPE_SPECS):
            jax_out = outcome(jnp.promote_types, a, b)
            for _ in range(2):  # the second call is served by the cache
                assert_same(jax_out, outcome(wt.promote_types, a, b), f"promote_types({a}, {b})")


@pytest.mark.parametrize(("strict", "x64"), MODES, ids=MODE_IDS)
def test_result_type_every_dtype_pair(strict, x64):
    with jax_mode(strict, x64):
        for a, b in pairs(DTYPE_SPECS):
            jax_out = outcome(_result_with_flag, a, b)
            for _ in range(2):
                assert_same(jax_out, outcome(_ours_with_flag, a, b), f"result_type({a}, {b})")


@pytest.mark.parametrize(("strict", "x64"), MODES, ids=MODE_IDS)
def test_result_type_value_forms(strict, x64, full):
    """Arrays (numpy, jax, weak jax), numpy scalars, Python scalars, names, bad input."""
    all_pairs = list(pairs(FORMS))
    chosen = all_pairs if full else random.Random(0).sample(all_pairs, 4000)
    with jax_mode(strict, x64):
        for form in FORMS:
            assert_same(
                outcome(_result_with_flag, form), outcome(_ours_with_flag, form), repr(form)
            )
        for a, b in chosen:
            jax_out = outcome(_result_with_flag, a, b)
            assert_same(jax_out, outcome(_ours_with_flag, a, b), f"result_type({a!r}, {b!r})")


@pytest.mark.parametrize(("strict", "x64"), MODES, ids=MODE_IDS)
@given(args=st.lists(st.sampled_from(FORMS), min_size=1, max_size=5))
def test_result_type_random_argument_lists(strict, x64, args):
    with jax_mode(strict, x64):
        jax_out = outcome(_result_with_flag, *args)
        assert_same(jax_out, outcome(_ours_with_flag, *args), f"result_type{tuple(args)!r}")
        assert_same(outcome(jnp.result_type, *args), outcome(wt.result_type, *args), "no flag")


def test_result_type_needs_an_argument():
    with pytest.raises(wt.TypePromotionError, match="at least one"):
        wt.result_type()
    with pytest.raises(ValueError):
        jnp.result_type()


def test_explicit_policy_overrides_config():
    strict = wt.policy("jax", strict=True)
    with jax_mode(False, False):
        with pytest.raises(wt.TypePromotionError, match="strict"):
            wt.promote_types("int8", "int16", policy=strict)
        assert wt.promote_types("int8", "int16") == np.dtype("int16")
        x64 = wt.policy("jax", x64=True)
        with jax_mode(False, True):
            expected = jnp.promote_types("uint32", "int8")
        assert wt.promote_types("uint32", "int8", policy=x64) == expected
        assert wt.result_type(np.uint32, np.int8, policy=x64) == expected
        assert wt.result_type(1.5, policy=x64) == np.dtype("float64")


def test_error_messages_name_inputs_in_order_and_say_what_to_do():
    with pytest.raises(wt.TypePromotionError) as info:
        wt.promote_types("float8_e4m3fn", "bfloat16")
    msg = str(info.value)
    assert msg.index("float8_e4m3fn") < msg.index("bfloat16")
    assert "astype" in msg
    with jax_mode(True, False), pytest.raises(wt.TypePromotionError) as info:
        wt.result_type(np.zeros(2, np.int16), np.int8(1))
    msg = str(info.value)
    assert msg.index("int16") < msg.index("int8") and "standard" in msg
    with pytest.raises(TypeError, match="Cannot determine the dtype"):
        wt.result_type(object())


def test_x64_warning_is_not_cached_away():
    """An explicit 64-bit dtype under x32 warns on every call, as in JAX."""
    with jax_mode(False, False):
        for _ in range(3):
            with pytest.warns(UserWarning, match="int64"):
                assert wt.result_type("int64") == jnp.result_type(np.int32)
