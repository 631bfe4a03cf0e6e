"""weaktrace's TypePromotionError is jax's: code (and jax's own tests/dtypes_test.py,
run against weaktrace) that catches ``jax.dtypes.TypePromotionError`` and matches its
words ("Input dtypes ... have no available implicit dtype promotion path", "8-bit floats
do not support implicit promotion", ...) works unchanged. jax is the oracle: every pair
of dtypes and Python types that jnp.promote_types rejects, strict and standard."""

from __future__ import annotations

import itertools
import re
from typing import Any

import jax
import jax.numpy as jnp
import pytest

import weaktrace as wt
from tests.peers._jax_cases import ALL_DTYPES, PY_TYPES

SPECS: list[Any] = [*ALL_DTYPES, *PY_TYPES]
# The phrases of jax's message that upstream's tests match.
PHRASES = [
    r"Input dtypes .* have no available implicit dtype promotion path"
    r"( when jax_numpy_dtype_promotion=strict)?",
    r"\d-bit floats do not support implicit promotion",
    r"1-bit, 2-bit and 4-bit integers do not support implicit promotion",
]


def _rejected(promotion: str) -> list[tuple[Any, Any, str]]:
    out = []
    with jax.numpy_dtype_promotion(promotion):
        for a, b in itertools.product(SPECS, repeat=2):
            try:
                jnp.promote_types(a, b)
            except jax.dtypes.TypePromotionError as err:
                out.append((a, b, str(err)))
    return out


@pytest.mark.parametrize("promotion", ["standard", "strict"])
def test_promotion_errors_are_jax_type_promotion_errors_with_jax_words(
    promotion: str, full: bool
) -> None:
    rejected = _rejected(promotion)
    assert rejected
    cases = rejected if full else rejected[:: max(1, len(rejected) // 150)]
    for a, b, theirs in cases:
        with jax.numpy_dtype_promotion(promotion), pytest.raises(Exception) as info:
            wt.promote_types(a, b)
        assert isinstance(info.value, jax.dtypes.TypePromotionError), (a, b, info.value)
        assert isinstance(info.value, wt.TypePromotionError), (a, b, info.value)
        ours = str(info.value)
        for pattern in PHRASES:
            said = re.search(pattern, theirs)
            if said is not None:
                assert said.group(0).split(" have ")[-1] in ours, (a, b, theirs, ours)
                assert re.search(pattern, ours), (a, b, pattern, ours)


# Upstream test_check_dtype_array: an array as a dtype is a ValueError, eager and traced.

DTYPE_TAKERS = {
    "zeros": lambda m, x: m.zeros(3, dtype=x),
    "asarray": lambda m, x: m.asarray([1, 2], dtype=x),
    "full": lambda m, x: m.full((2,), 1, dtype=x),
    "astype": lambda m, x: x.astype(x),
}


def _error(fn: Any, *args: Any) -> BaseException:
    with pytest.raises(Exception) as info:
        fn(*args)
    return info.value


@pytest.mark.parametrize("name", sorted(DTYPE_TAKERS))
@pytest.mark.parametrize("dtype", ["int32", "float32", "bool"])
def test_an_array_as_dtype_is_a_value_error_as_in_jax(name: str, dtype: str) -> None:
    fn = DTYPE_TAKERS[name]
    x = jnp.ones(4, dtype=dtype)
    for jax_call, wt_call in [
        (lambda: fn(jnp, x), lambda: fn(wt.numpy, x)),
        (lambda: jax.jit(lambda v: fn(jnp, v))(x), lambda: wt.trace(lambda v: fn(wt.numpy, v))(x)),
    ]:
        theirs, ours = _error(jax_call), _error(wt_call)
        assert isinstance(theirs, ValueError) and isinstance(ours, ValueError), (theirs, ours)
        assert str(theirs).split(";")[0] in str(ours), (theirs, ours)
