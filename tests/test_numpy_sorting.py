"""Sorting, searching, data-dependent sizes and order statistics (weaktrace.numpy.sorting
and .quantiles) against jax.numpy, eager and traced, over every dtype, keyword values
and NaNs, x64 off and on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.math_cases import KINDS, SCALARS, values, with_x64
from tests.mirror_harness import check

SHAPE = (3, 4)
REAL = tuple(k for k in KINDS if "complex" not in k)
FLOATS = ("bfloat16", "float16", "float32", "float64", "py_float")

Fn = Callable[..., Any]

# name -> (keyword variants, operand kinds). Each variant is run on each kind (sampled in CI).
VARIANTS: dict[str, tuple[list[dict[str, Any]], tuple[str, ...]]] = {
    "sort": ([{}, {"axis": 0}, {"axis": None}, {"descending": True}, {"stable": False},
              {"axis": 0, "descending": True, "stable": False}, {"kind": "quicksort"}], KINDS),
    "argsort": ([{}, {"axis": 0}, {"axis": None, "descending": True}, {"dtype": "int16"},
                 {"descending": True, "stable": True}, {"order": "x"}], KINDS),
    "sort_complex": ([{}], KINDS),
    "partition": ([{"kth": 1}, {"kth": -1, "axis": 0}, {"kth": 0}], KINDS),
    "argpartition": ([{"kth": 2}, {"kth": 0, "axis": 0}], KINDS),
    "nonzero": ([{"size": 5}, {"size": 20, "fill_value": -1}, {"size": 0},
                 {"size": 3, "fill_value": (7, 8)}], KINDS),
    "flatnonzero": ([{"size": 6}, {"size": 14, "fill_value": 99}], KINDS),
    "argwhere": ([{"size": 4}, {"size": 13, "fill_value": -2}], KINDS),
    "median": ([{}, {"axis": 0}, {"axis": (0, 1), "keepdims": True}, {"axis": -1,
                "keepdims": True}, {"keepdims": True}], KINDS),
    "nanmedian": ([{}, {"axis": 1}, {"axis": (1, 0)}, {"keepdims": True}], KINDS),
    "quantile": ([{"q": 0.37}, {"q": np.array([0.1, 0.55, 0.9], np.float32), "axis": 0},
                  {"q": 0.61, "method": "lower", "axis": 1, "keepdims": True},
                  {"q": 0.29, "method": "higher"}, {"q": 0.77, "method": "nearest", "axis": 0},
                  {"q": np.float16(0.45), "method": "midpoint"}, {"q": 1},
                  {"q": 0.5, "method": "bogus"}], KINDS),
    "nanquantile": ([{"q": 0.37, "axis": 1}, {"q": np.array([0.13, 0.8], np.float32)},
                     {"q": 0.61, "method": "nearest", "axis": (0, 1), "keepdims": True}], KINDS),
    "percentile": ([{"q": 37.0}, {"q": np.array([13, 81], np.int32), "axis": 1}], KINDS),
    "nanpercentile": ([{"q": 63.0, "axis": 0, "method": "higher"}], KINDS),
}  # fmt: skip

# Where weaktrace disagrees with jax: (name, kind) -> reason. None known.
KNOWN_MISMATCHES: dict[tuple[str, str], str] = {}


def _call(mod: Any, name: str, kw: dict[str, Any]) -> Fn:
    kw = dict(kw)
    if name in ("partition", "argpartition"):
        kth = kw.pop("kth")
        return lambda a: getattr(mod, name)(a, kth, **kw)
    if "q" in kw:
        q = kw.pop("q")
        return lambda a: getattr(mod, name)(a, q, **kw)
    return lambda a: getattr(mod, name)(a, **kw)


def _cases() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for name, (variants, kinds) in VARIANTS.items():
        for i, kind in enumerate(kinds):
            for j in range(len(variants)):
                out.append((name, kind, variants[(i + j) % len(variants)]))
    return out


CASES = _cases()


def _label(kw: dict[str, Any]) -> str:
    return ",".join(f"{k}={getattr(v, 'shape', v)}" for k, v in kw.items())


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        cases = with_x64(CASES, 30, full_run(metafunc.config))
        ids = [f"{c[0]}-{c[1]}-{_label(c[2])}-{'x64' if x else 'x32'}" for c, x in cases]
        metafunc.parametrize("case", cases, ids=ids)
    if "call" in metafunc.fixturenames:
        pytest_generate_tests_calls(metafunc)


def _tolerance(kind: str) -> dict[str, float]:
    if kind in ("float16", "bfloat16"):
        return {"rtol": 2e-2, "atol": 2e-2}
    return {"rtol": 1e-5, "atol": 1e-5}


def test_function(case):
    (name, kind, kw), x64 = case
    if (name, kind) in KNOWN_MISMATCHES:
        pytest.xfail(KNOWN_MISMATCHES[name, kind])
    x = values(kind, () if kind in SCALARS else SHAPE, seed=5)
    with jax.enable_x64(x64):
        check(_call(wnp, name, kw), _call(jnp, name, kw), x, context=f"{name}({_label(kw)})",
              **_tolerance(kind))  # fmt: skip


# -- two-operand functions and errors -----------------------------------------------------


def _sorted(kind: str, n: int = 6, seed: int = 0) -> Any:
    v = values(kind, (n,), seed=seed)
    return np.sort(v) if kind not in SCALARS else v


CALLS: list[tuple[str, Fn, tuple[Any, ...]]] = [
    ("searchsorted left", lambda m, a, v: m.searchsorted(a, v), ("float32", "float32")),
    ("searchsorted right", lambda m, a, v: m.searchsorted(a, v, side="right"),
     ("float64", "float32")),
    ("searchsorted int into float", lambda m, a, v: m.searchsorted(a, v), ("float16", "int8")),
    ("searchsorted scalar", lambda m, a, v: m.searchsorted(a, v, method="compare_all"),
     ("int32", "py_int")),
    ("searchsorted uint", lambda m, a, v: m.searchsorted(a, v, side="right", method="sort"),
     ("uint8", "uint8")),
    ("searchsorted bool", lambda m, a, v: m.searchsorted(a, v), ("bool", "bool")),
    ("searchsorted complex", lambda m, a, v: m.searchsorted(a, v), ("complex64", "complex64")),
    ("searchsorted sorter", lambda m, a, v: m.searchsorted(a, v, sorter=m.argsort(a)),
     ("float32", "bfloat16")),
    ("searchsorted bad side", lambda m, a, v: m.searchsorted(a, v, side="middle"),
     ("float32", "float32")),
    ("searchsorted 2d", lambda m, a, v: m.searchsorted(m.stack([a, a]), v),
     ("float32", "float32")),
    ("digitize", lambda m, a, v: m.digitize(v, a), ("float32", "float32")),
    ("digitize right decreasing", lambda m, a, v: m.digitize(v, a[::-1], right=True),
     ("int16", "float32")),
    ("digitize empty bins", lambda m, a, v: m.digitize(v, a[:0]), ("int16", "float32")),
    ("lexsort", lambda m, a, v: m.lexsort((a, v)), ("int8", "float32")),
    ("lexsort one", lambda m, a, v: m.lexsort([a], axis=0), ("bool", "float32")),
    ("lexsort mismatch", lambda m, a, v: m.lexsort([a, v[:2]]), ("int8", "float32")),
    ("bincount", lambda m, a, v: m.bincount(a, length=5), ("uint8", "float32")),
    ("bincount weights", lambda m, a, w: m.bincount(a, w, length=4), ("int8", "float16")),
    ("bincount bool", lambda m, a, w: m.bincount(a, minlength=3, length=2), ("bool", "float16")),
    ("bincount float", lambda m, a, w: m.bincount(w, length=2), ("bool", "float16")),
    ("nonzero 0d", lambda m, a, v: m.nonzero(v, size=1), ("int8", "py_float")),
    ("argwhere 0d", lambda m, a, v: m.argwhere(v, size=1), ("int8", "py_float")),
    ("partition complex", lambda m, a, v: m.partition(a, 1), ("complex64", "int8")),
    ("quantile complex", lambda m, a, v: m.quantile(a, 0.5), ("complex64", "int8")),
    ("quantile traced q", lambda m, a, q: m.quantile(a, q * 0.1), ("float32", "float16")),
    ("quantile q 2d", lambda m, a, q: m.quantile(a, m.stack([a, a])), ("float32", "float16")),
    ("percentile traced q", lambda m, a, q: m.percentile(a, q, axis=0), ("int16", "py_int")),
]  # fmt: skip


def pytest_generate_tests_calls(metafunc: pytest.Metafunc) -> None:
    """CI: each call in one mode (alternating); --run-slow: both."""
    full = full_run(metafunc.config)
    cases = [(c, x64) for i, c in enumerate(CALLS) for x64 in (False, True)
             if full or x64 == bool(i % 2)]  # fmt: skip
    ids = [f"{c[0]}-{'x64' if x else 'x32'}" for c, x in cases]
    metafunc.parametrize("call", cases, ids=ids)


@pytest.mark.ci_sample(2)
def test_calls(call):
    (label, f, kinds), x64 = call
    args = [_sorted(k, seed=i) for i, k in enumerate(kinds)]
    with jax.enable_x64(x64):
        check(lambda *a: f(wnp, *a), lambda *a: f(jnp, *a), *args, context=label, rtol=1e-2,
              atol=1e-2)  # fmt: skip


# -- data-dependent sizes: eager computes them, a trace needs size= -------------------------

EAGER_ONLY: list[tuple[str, Fn]] = [
    ("nonzero", lambda m, a: m.nonzero(a)),
    ("flatnonzero", lambda m, a: m.flatnonzero(a)),
    ("argwhere", lambda m, a: m.argwhere(a)),
    ("bincount", lambda m, a: m.bincount(m.abs(a).astype("int32"))),
]


@pytest.mark.parametrize(
    ("kind", "x64"), [("int8", False), ("float32", True), ("bool", True), ("uint16", False)]
)
@pytest.mark.parametrize(("label", "f"), EAGER_ONLY, ids=[c[0] for c in EAGER_ONLY])
def test_data_dependent_size(label, f, kind, x64):
    x = values(kind, SHAPE if label != "bincount" else (7,), seed=2)
    if label == "bincount" and kind == "float32":
        x = np.nan_to_num(x, posinf=3, neginf=-3)
    with jax.enable_x64(x64):
        want = f(jnp, jnp.asarray(x))
        got = f(wnp, jnp.asarray(x))
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type)
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        with pytest.raises(jax.errors.ConcretizationTypeError):
            jax.jit(lambda a: f(jnp, a))(x)
        with pytest.raises(wt.ConcretizationError, match=r"size|length"):
            wt.trace(lambda a: f(wnp, a)).trace(x)
