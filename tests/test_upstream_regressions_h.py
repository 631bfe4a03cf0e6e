"""Bugs found by running jax v0.10.2's tests/lax_numpy_test.py (the chunks not run since
session 9) and lax_numpy_{ufuncs,operators,reducers,indexing}_test.py under
JAX_ENABLE_X64=1, with jax.numpy / jax.lax swapped for weaktrace's. Each expected
answer is jax's, computed at test time."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace.numpy as wnp
from tests.mirror_harness import check

# -- packbits under jax_numpy_rank_promotion='raise' ----------------------------------------
# weaktrace's packbits shifted the (..., n, 8) bit groups by a rank-1 vector of bit
# positions, an implicit rank promotion: under 'raise' (the mode jax's tests run in)
# every packbits of a 2-d or larger array, or along an axis, raised RankPromotionError
# where jax's packbits works. Found by testPackbits (chunk 02).

PACK_CASES = {
    "matrix": ((np.arange(24).reshape(3, 8) % 3).astype(np.int32), None, "big"),
    "matrix_axis0": ((np.arange(24).reshape(8, 3) % 2).astype(bool), 0, "little"),
    "rank3_axis1": ((np.arange(60).reshape(3, 5, 4) % 4).astype(np.uint8), 1, "big"),
    "rank3_last": ((np.arange(60).reshape(3, 4, 5) % 2).astype(np.int8), -1, "little"),
}


@pytest.mark.parametrize("mode", ["raise", "allow"])
@pytest.mark.parametrize("name", sorted(PACK_CASES))
def test_packbits_needs_no_rank_promotion(name, mode):
    x, axis, order = PACK_CASES[name]
    with jax.numpy_rank_promotion(mode):
        check(
            lambda a: wnp.packbits(a, axis=axis, bitorder=order),
            lambda a: jnp.packbits(a, axis=axis, bitorder=order),
            x,
            context=f"packbits {name} {mode}",
        )
