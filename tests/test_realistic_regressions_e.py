"""Regressions and known divergences found by running session-13 realistic programs (written
in /tmp/rp13, not added to tests/realistic/) on weaktrace with their imports swapped.

The oracle is jax itself, computed at test time.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import weaktrace as wt


def _is_array(x: object) -> bool:
    """equinox's ``is_array`` / flax's filters: how libraries split a pytree into arrays
    (differentiated, traced) and static leaves."""
    return isinstance(x, jax.Array | np.ndarray | np.generic)


def _partitioned(x: object) -> object:
    model = {"w": x, "scale": 2.0, "act": "sum"}
    return [leaf * 2 for leaf in jax.tree_util.tree_leaves(model) if _is_array(leaf)]


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_traced_value_is_a_jax_array(x64: bool) -> None:
    """Under jax.jit a traced argument is a jax.Array (isinstance holds inside and outside
    traces, as jax documents), so array filters keep it; under weaktrace.trace the filter
    dropped it and the program returned [] (found by array_partition, an equinox-style
    partition/combine before jax.grad)."""
    x = np.arange(3.0, dtype=np.float32)
    with jax.enable_x64(x64):
        want = jax.jit(_partitioned)(x)
        got = wt.trace(_partitioned)(x)
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_eager_value_is_a_jax_array() -> None:
    """Eagerly weaktrace's results are jax arrays, so the same filter keeps them (as jax's)."""
    x = np.arange(3.0, dtype=np.float32)
    assert len(_partitioned(wt.numpy.asarray(x))) == len(_partitioned(jax.numpy.asarray(x))) == 1
