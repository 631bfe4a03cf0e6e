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
