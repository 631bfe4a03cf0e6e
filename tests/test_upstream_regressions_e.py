"""Bugs found by running jax's own tests/lax_numpy_{einsum,ufuncs,vectorize,setops,
indexing,reducers,operators}_test.py (jax v0.10.2) with ``jax.numpy`` and ``jax.lax``
swapped for weaktrace's mirrors. Each is checked here against jax, computed at test time."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace.lax as wlax

# -- lax.dtype of a dtype-like ---------------------------------------------------------
# lax_numpy_indexing_test calls ``lax.dtype(np.float32)`` while collecting its cases;
# weaktrace's lax.dtype took only values (InvalidInputError), so the file did not load.

DTYPE_LIKES = [np.float32, np.float64, np.int64, np.uint16, float, int, bool, complex,
               "int8", "float64", "bfloat16", np.dtype("uint16"), jnp.bfloat16, 3, 2.5,
               np.int8(3), np.ones(2, np.float64)]  # fmt: skip


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("spec", DTYPE_LIKES, ids=repr)
def test_lax_dtype_takes_dtype_likes_as_jax_does(spec, x64):
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert wlax.dtype(spec) == jax.lax.dtype(spec)


def test_lax_dtype_of_none_is_jaxs_error():
    with pytest.raises(ValueError) as theirs:
        jax.lax.dtype(None)
    with pytest.raises(ValueError, match=str(theirs.value)):
        wlax.dtype(None)
