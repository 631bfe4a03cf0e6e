"""``searchsorted``'s methods are jax's: ``'scan'`` (the default) and ``'scan_unrolled'``
are its binary search, ``'compare_all'`` and ``'sort'`` count.

weaktrace counted for every method. On a sorted ``a`` that is the same answer; on an
unsorted one (jax only asks for sorted input, it does not check) jax's binary search lands
elsewhere, so ``jnp.searchsorted`` and ``jnp.interp`` (which searches with the default
method) gave other indices without an error. Counting also built an ``len(a) x v.size``
comparison, where jax's search needs memory for ``v`` only.

The oracle is jax, computed at test time (tests/mirror_harness.check: eager, traced and
compiled weaktrace against jax eager and jit; dtypes, weak flags, values), x64 off and on.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.mirror_harness import check

DTYPES = ["float32", "float16", "int32", "uint8", "bool", "complex64"]
SIZES = [1, 2, 3, 7, 16, 33]
QUERIES = [(), (5,), (2, 3)]
SIDES = ["left", "right"]
METHODS = ["scan", "scan_unrolled", "compare_all", "sort"]


def _unsorted(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values with repeats, NaNs, signed zeros (floats) and ties in the real part
    (complex): the orders lax's sort comparators care about."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=shape) * 3
    if dtype == "complex64":
        v = v.round() + 1j * rng.integers(-1, 2, size=shape)
    elif dtype.startswith("float"):
        v = np.where(rng.random(shape) < 0.2, np.nan, v)
        v = np.where(rng.random(shape) < 0.2, -0.0, v)
    return np.asarray(v).astype(dtype)


def _cases(full: bool) -> list[tuple[Any, ...]]:
    grid = list(itertools.product(DTYPES, SIDES, METHODS, [False, True]))
    if full:
        return [(*g, n, q) for g in grid for n in SIZES for q in QUERIES]
    # CI: every dtype x method, side and x64 mode alternating, one size and query shape each
    rng = random.Random(16)
    # (for each method, the dtypes take all four side x x64 pairs)
    pairs = itertools.product(enumerate(DTYPES), enumerate(METHODS))
    return [(d, SIDES[(i + j) % 2], m, bool((i // 2 + j) % 2), rng.choice(SIZES),
             rng.choice(QUERIES)) for (i, d), (j, m) in pairs]  # fmt: skip


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        cases = _cases(full_run(metafunc.config))
        ids = [f"{d}-{s}-{m}-{'x64' if x else 'x32'}-n{n}-q{q}" for d, s, m, x, n, q in cases]
        metafunc.parametrize("case", cases, ids=ids)


def test_searchsorted_of_unsorted_input_is_jaxs(case):
    """Unsorted ``a`` (the case where the methods differ), then the same values sorted."""
    dtype, side, method, x64, n, qshape = case
    a = _unsorted(dtype, (n,), seed=n)
    v = _unsorted(dtype, qshape, seed=n + 100)
    with jax.enable_x64(x64):
        for arr in (a, np.sort(a)):
            check(lambda a, v, m=wnp: m.searchsorted(a, v, side=side, method=method),
                  lambda a, v, m=jnp: m.searchsorted(a, v, side=side, method=method),
                  arr, v, context=f"searchsorted({dtype}, {side}, {method})")  # fmt: skip


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("seed", range(3))
def test_interp_with_unsorted_xp_is_jaxs(seed, x64):
    """``jnp.interp`` finds each x's cell with the default (binary search) method."""
    rng = np.random.default_rng(seed)
    xp = rng.normal(size=9).astype("float32")
    fp = rng.normal(size=9).astype("float32")
    x = (rng.normal(size=(4, 3)) * 2).astype("float32")
    with jax.enable_x64(x64):
        check(wnp.interp, jnp.interp, x, xp, fp, context="interp, unsorted xp")
        check(lambda x, xp, fp: wnp.interp(x, xp, fp, left=-1.0, right="extrapolate"),
              lambda x, xp, fp: jnp.interp(x, xp, fp, left=-1.0, right="extrapolate"),
              x, xp, fp, context="interp, unsorted xp, extrapolate")  # fmt: skip


@pytest.mark.parametrize("method", ["scan", "scan_unrolled"])
def test_binary_search_needs_no_len_a_by_len_v_intermediate(method):
    """A 2**20-element ``a`` and 2**16 queries: counting would build 2**36 comparisons
    (jax's binary search: ceil(log2(n + 1)) = 21 gathers of 2**16 elements)."""
    n, m = 2**20, 2**16
    a = jax.ShapeDtypeStruct((n,), np.float32)
    v = jax.ShapeDtypeStruct((m,), np.float32)
    t = wt.trace(lambda a, v: wnp.searchsorted(a, v, method=method)).trace(a, v)
    sizes = [int(np.prod(out.aval.shape)) for eqn in t.program.equations for out in eqn.outputs]
    assert max(sizes) <= m, f"an intermediate of {max(sizes)} elements in\n{t}"
    assert str(t.out_avals.dtype) == "int32" and t.out_avals.shape == (m,)
