"""Bugs found by running jax's own tests/random_lax_test.py and tests/nn_test.py (jax
v0.10.2) with ``jax.random`` / ``jax.nn`` / ``jax.numpy`` / ``jax.lax`` swapped for the
weaktrace mirrors. Each is checked against jax computed at test time, eagerly and
through ``weaktrace.trace`` (against ``jax.jit``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.nn as wnn
import weaktrace.numpy as wnp

# -- nn.one_hot of a traced num_classes -------------------------------------------------


def _error(fn, *args):
    with pytest.raises(Exception) as info:
        fn(*args)
    return info.value


def test_one_hot_of_a_jax_traced_num_classes_raises_jaxs_concretization_error():
    """nn_test's testOneHotConcretizationError: ``jax.jit(nn.one_hot)(3, 5)`` raises
    ConcretizationTypeError naming the argument; weaktrace raised InvalidInputError
    for a jax tracer (it only recognised its own)."""
    want = _error(jax.jit(jax.nn.one_hot), 3, 5)
    for fn in (jax.jit(wnn.one_hot), wt.trace(wnn.one_hot)):
        got = _error(fn, 3, 5)
        assert isinstance(got, type(want)), (type(got), type(want))
        assert "in jax.nn.one_hot argument `num_classes`" in str(got)
    np.testing.assert_array_equal(wnn.one_hot(wnp.asarray([0, 2]), 3),
                                  jax.nn.one_hot(jnp.asarray([0, 2]), 3))  # fmt: skip
