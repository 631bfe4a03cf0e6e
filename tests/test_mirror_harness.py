"""The mirror harness itself: it passes a right mirror and catches wrong ones."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace.numpy as wnp
from tests.mirror_harness import check


@pytest.mark.parametrize("x64", [False, True])
def test_passes_a_faithful_mirror(x64):
    with jax.enable_x64(x64):
        x = np.arange(4, dtype=np.int8)
        check(lambda a, s: wnp.sin(a) * s, lambda a, s: jnp.sin(a) * s, x, 2.5)
        check(lambda a: wnp.where(a > 1, a, 0.5), lambda a: jnp.where(a > 1, a, 0.5), x)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (lambda a: wnp.sin(a), lambda a: jnp.cos(a)),  # values
        (lambda a: wnp.sin(a).astype(np.float16), lambda a: jnp.sin(a)),  # dtype
        (lambda a: wnp.sum(a, axis=0), lambda a: jnp.sum(a, axis=0, keepdims=True)),  # shape
        (lambda a: wnp.asarray(2.0), lambda a: jnp.asarray(np.float32(2.0))),  # weak flag
    ],
)
def test_catches_a_wrong_mirror(ours, theirs):
    with pytest.raises(AssertionError):
        check(ours, theirs, np.arange(1.0, 5.0, dtype=np.float32).reshape(2, 2) * 0.5 + 2.0)
