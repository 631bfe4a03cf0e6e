"""Covariance and histograms (weaktrace.numpy.histograms) against jax.numpy, eager and
traced, over every dtype, keyword values and error cases, x64 off and on."""

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

Fn = Callable[..., Any]
W1 = np.array([1, 2, 0, 3], np.int32)
A1 = np.array([0.5, 1.0, 2.0, 0.25], np.float32)
F32 = np.float32
I4 = (np.arange(4) % 3).astype(np.int32)
EDGES = np.array([-3.0, -1.0, 0.0, 0.5, 4.0], np.float32)

# name -> keyword variants; each variant gets x (3, 4) of every kind (sampled in CI).
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "cov": [{}, {"rowvar": False}, {"bias": True}, {"ddof": 2}, {"fweights": W1},
            {"aweights": A1}, {"fweights": W1, "aweights": A1, "ddof": 3},
            {"aweights": A1, "ddof": 0}, {"dtype": "float64"}, {"dtype": "int32"},
            {"fweights": A1}, {"fweights": W1[:3]}, {"aweights": np.ones((2, 4), F32)},
            {"y": np.arange(4, dtype=F32)}, {"y": np.ones((2, 3), F32), "rowvar": False}],
    "corrcoef": [{}, {"rowvar": False}, {"dtype": "float32"}, {"y": I4},
                 {"dtype": "bool"}],
    "histogram": [{}, {"bins": 3}, {"bins": EDGES}, {"range": (-1, 1)}, {"density": True},
                  {"weights": np.arange(12, dtype=F32).reshape(3, 4)},
                  {"bins": 4, "density": True,
                  "weights": np.arange(12, dtype=np.int16).reshape(3, 4)}, {"range": (2, 2)},
                  {"weights": np.ones(3, np.float32)}, {"bins": "auto"}, {"range": (1, 2, 3)}],
    "histogram_bin_edges": [{}, {"bins": 5}, {"bins": EDGES}, {"range": (0, 1), "bins": 2},
                            {"bins": [1, 2, 5]}, {"range": [3.0, 3.0]}],
    "histogramdd": [{}, {"bins": 3}, {"bins": [2, 3, 1, 4]}, {"bins": (EDGES,) * 4},
                    {"density": True, "bins": 2}, {"weights": np.arange(3, dtype=np.float32)},
                    {"range": [(0, 1), None, (-2, 2), (1, 1)], "bins": 2},
                    {"weights": np.ones(4, np.float32)}, {"bins": [2, 3]}, {"range": [(0, 1)]}],
    "histogram2d": [{}, {"bins": 3}, {"bins": [2, 5]}, {"bins": EDGES},
                    {"bins": (EDGES, EDGES[:3])}, {"density": True, "bins": 2},
                    {"weights": np.arange(4, dtype=np.float16)},
                    {"range": [(0, 1), (-1, 2)], "bins": 3}],
}  # fmt: skip

# Where weaktrace disagrees with jax: (name, kind, variant index) -> reason. None known.
KNOWN_MISMATCHES: dict[tuple[str, str, int], str] = {}


def _call(mod: Any, name: str, kw: dict[str, Any]) -> Fn:
    kw = dict(kw)
    fn = getattr(mod, name)
    if name == "histogram2d":
        return lambda a: (
            fn(a, a, **kw) if isinstance(a, int | float | complex) else fn(a[0], a[1], **kw)
        )
    if "y" in kw:
        y = kw.pop("y")
        return lambda a: fn(a, y, **kw)
    return lambda a: fn(a, **kw)


def _cases() -> list[tuple[str, str, int]]:
    out = []
    for name, variants in VARIANTS.items():
        for i, kind in enumerate(KINDS):
            for j in range(len(variants)):
                out.append((name, kind, (i + j) % len(variants)))
    return out


CASES = _cases()


def _label(kw: dict[str, Any]) -> str:
    return ",".join(f"{k}={getattr(v, 'shape', v)}" for k, v in kw.items())


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        cases = with_x64(CASES, 36, full_run(metafunc.config))
        ids = [f"{c[0]}-{c[1]}-{c[2]}-{'x64' if x else 'x32'}" for c, x in cases]
        metafunc.parametrize("case", cases, ids=ids)


def _tolerance(kind: str) -> dict[str, float]:
    if kind in ("float16", "bfloat16"):
        return {"rtol": 3e-2, "atol": 3e-2}
    return {"rtol": 2e-5, "atol": 2e-5}


def _operand(name: str, kind: str) -> Any:
    if kind in SCALARS:
        return values(kind, (), seed=3)
    return values(kind, (3, 4), seed=3, special=False)


@pytest.mark.ci_sample(2)
def test_function(case):
    (name, kind, v), x64 = case
    if (name, kind, v) in KNOWN_MISMATCHES:
        pytest.xfail(KNOWN_MISMATCHES[name, kind, v])
    kw = VARIANTS[name][v]
    x = _operand(name, kind)
    if name == "histogramdd" and kind not in SCALARS:
        x = x.T  # (N, D) = (4, 3); bins lists of 4 then exercise the D mismatch
        x = np.concatenate([x, x[:, :1]], axis=1)  # D = 4
    with jax.enable_x64(x64):
        check(_call(wnp, name, kw), _call(jnp, name, kw), x,
              context=f"{name}({_label(kw)})", **_tolerance(kind))  # fmt: skip


# -- polynomials -----------------------------------------------------------------------

Y6 = np.array([1.0, -2.0, 0.5, 3.0, 2.5, -1.0], np.float32)
Q2 = np.array([2.0, 1.0], np.float32)

# name -> calls (m, a) on a 1-d operand `a` of length 6 of every kind (or a scalar).
POLY: dict[str, list[Fn]] = {
    "poly": [lambda m, a: m.poly(a), lambda m, a: m.poly(m.reshape(a[:4], (2, 2))),
             lambda m, a: m.poly(a[:0])],
    "polyadd": [lambda m, a: m.polyadd(a, a[:2]), lambda m, a: m.polyadd(Q2, a),
                lambda m, a: m.polyadd(a[:3], 1)],
    "polysub": [lambda m, a: m.polysub(a, a[:4]), lambda m, a: m.polysub(Q2[:1], a)],
    "polymul": [lambda m, a: m.polymul(a, Q2), lambda m, a: m.polymul(a[:3], a[:0]),
                lambda m, a: m.polymul(a[:2], a[:4])],
    "polydiv": [lambda m, a: m.polydiv(a, Q2), lambda m, a: m.polydiv(Q2, a),
                lambda m, a: m.polydiv(a, a[:3])],
    "polyder": [lambda m, a: m.polyder(a), lambda m, a: m.polyder(a, 2),
                lambda m, a: m.polyder(a, 0), lambda m, a: m.polyder(a, -1),
                lambda m, a: m.polyder(a, m=7)],
    "polyint": [lambda m, a: m.polyint(a), lambda m, a: m.polyint(a, 2, k=3),
                lambda m, a: m.polyint(a, 3, k=Q2[:1]), lambda m, a: m.polyint(a, 0),
                lambda m, a: m.polyint(a, 2, k=Y6[:2]), lambda m, a: m.polyint(a, 2, k=Y6[:3]),
                lambda m, a: m.polyint(a, -1)],
    "polyfit": [lambda m, a: m.polyfit(a, Y6, 2), lambda m, a: m.polyfit(a, Y6, 1, full=True),
                lambda m, a: m.polyfit(a, Y6, 2, w=Y6 + 3),
                lambda m, a: m.polyfit(a, m.stack([Y6, Y6 * 2], 1), 1, cov=True),
                lambda m, a: m.polyfit(a, Y6, 1, cov="unscaled", rcond=1e-3),
                lambda m, a: m.polyfit(a, Y6, 1, cov=True), lambda m, a: m.polyfit(a, Y6, -1),
                lambda m, a: m.polyfit(a, Y6[:3], 1), lambda m, a: m.polyfit(a, Y6, 5, cov=True)],
    "roots": [lambda m, a: m.roots(a, strip_zeros=False), lambda m, a: m.roots(a[:1]),
              lambda m, a: m.roots(m.concatenate([a[:0] * 0, a[:3]]), strip_zeros=False)],
}  # fmt: skip

POLY_CASES = [
    (name, kind, (i + j) % len(calls))
    for name, calls in POLY.items()
    for i, kind in enumerate(KINDS)
    for j in range(len(calls))
]

# Where weaktrace disagrees with jax: (name, kind, call index) -> reason.
POLY_MISMATCHES: dict[tuple[str, str, int], str] = {}


def _poly_operand(kind: str) -> Any:
    if kind in SCALARS:
        return values(kind, (), seed=4)
    return values(kind, (6,), seed=4, special=False)


@pytest.mark.parametrize("x64", [False, True])
def test_polynomial(x64, full):
    cases = POLY_CASES if full else POLY_CASES[int(x64) :: 40]
    for name, kind, i in cases:
        if (name, kind, i) in POLY_MISMATCHES:
            continue
        call = POLY[name][i]
        a = _poly_operand(kind)
        lift = kind in SCALARS  # Python scalars cannot be sliced: the calls see atleast_1d(a)

        def ours(v: Any, c: Fn = call, lift: bool = lift) -> Any:
            return c(wnp, wnp.atleast_1d(v) if lift else v)

        def theirs(v: Any, c: Fn = call, lift: bool = lift) -> Any:
            return c(jnp, jnp.atleast_1d(v) if lift else v)

        with jax.enable_x64(x64):
            check(ours, theirs, a, context=f"{name}[{i}] {kind}", **_tolerance(kind))


def test_roots_strip_zeros_is_eager_only():
    p = np.array([0.0, 1.0, -3.0, 2.0], np.float32)
    np.testing.assert_allclose(np.asarray(wnp.roots(p)), np.asarray(jnp.roots(p)), rtol=1e-5)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(jnp.roots)(p)
    with pytest.raises(wt.ConcretizationError):
        wt.trace(wnp.roots).trace(p)


def test_traced_integer_bins_need_a_static_value():
    x = np.arange(5.0, dtype=np.float32)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(jnp.histogram)(x, 3)
    with pytest.raises(wt.ConcretizationError):
        wt.trace(wnp.histogram).trace(x, 3)
