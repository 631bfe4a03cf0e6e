"""Bugs found by running jax's own upstream test files (tests/lax_numpy_*_test.py) with
``jax.numpy`` swapped for ``weaktrace.numpy``; each is checked here against jax, computed
at test time, over generated cases."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace.numpy as wnp
from tests.mirror_harness import check

SHAPES = [(0,), (1,), (2,), (3, 0), (0, 3), (2, 3)]
DIFFS = [
    ("ediff1d", lambda m, a: m.ediff1d(a)),
    ("ediff1d ends", lambda m, a: m.ediff1d(a, to_end=m.asarray([7, 8], a.dtype), to_begin=3)),
    ("diff", lambda m, a: m.diff(a)),
    ("diff n=3", lambda m, a: m.diff(a, n=3)),
    ("diff axis 0", lambda m, a: m.diff(a, axis=0)),
    ("diff prepend", lambda m, a: m.diff(a, prepend=1, axis=0)),
]


CASES = list(itertools.product(SHAPES, ["int32", "float32", "bool"]))


@pytest.mark.parametrize(("shape", "dtype"), CASES)
def test_differences_of_empty_and_short_arrays_match_jax(shape, dtype, full):
    """An axis shorter than the difference (empty results) slices as Python does: jax's
    lax_numpy_operators_test found ``ediff1d`` of a (0,) array raising a ShapeError.
    CI runs a third of the cases in one x64 mode each; --run-slow runs all in both."""
    i = CASES.index((shape, dtype))
    if not full and (i + i // 3) % 3:
        pytest.skip("CI runs every third case (--run-slow: all)")
    a = (np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(dtype)
    for x64 in (False, True) if full else (bool(i % 2),):
        with jax.enable_x64(x64):
            for label, f in DIFFS:
                check(lambda v, f=f: f(wnp, v), lambda v, f=f: f(jnp, v), a,
                      context=f"{label} {shape} {dtype}")  # fmt: skip
