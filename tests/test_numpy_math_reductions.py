"""Reductions with ``where=``/``initial=``/``promote_integers=``/``dtype=``, var/std,
average, the nan* family and the cumulative family, against jax.numpy, eager and
traced, over every dtype and keyword values, x64 off and on."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.math_cases import KINDS, SCALARS, values, with_x64
from tests.mirror_harness import check

SHAPE = (2, 3)
MASK = np.array([[True, False, True], [False, False, True]])
AXES = ({}, {"axis": 0}, {"axis": -1, "keepdims": True}, {"axis": (0, 1)}, {"keepdims": True})

# name -> keyword variants (cycled over the dtypes; each combined with an axis choice).
VARIANTS: dict[str, list[dict[str, object]]] = {
    "sum": [{}, {"where": MASK}, {"initial": 2}, {"promote_integers": False}, {"dtype": "float32"},
            {"dtype": "int8", "where": MASK, "initial": 1.5}, {"dtype": "float16"}],
    "prod": [{}, {"where": MASK, "initial": 3}, {"promote_integers": False}, {"dtype": "int16"}],
    "max": [{}, {"where": MASK, "initial": -1}, {"initial": 2.5}, {"where": MASK}],
    "min": [{}, {"where": MASK, "initial": 5}, {"initial": False}],
    "all": [{}, {"where": MASK}],
    "any": [{}, {"where": MASK}],
    "mean": [{}, {"where": MASK}, {"dtype": "float16"}, {"dtype": "int32"}],
    "amax": [{}, {"initial": 0, "where": MASK}],
    "amin": [{}, {"initial": 0}],
    "ptp": [{}],
    "count_nonzero": [{}],
    "var": [{}, {"ddof": 1}, {"correction": 0.5, "where": MASK}, {"dtype": "float16"},
            {"dtype": "complex64"}],
    "std": [{}, {"ddof": 2}, {"where": MASK}, {"dtype": "float32"}, {"dtype": "int32"}],
    "average": [{}, {"returned": True}, {"weights": np.arange(1.0, 7.0).reshape(SHAPE)},
                {"weights": np.array([1, 2, 3], np.int8), "axis": 1, "returned": True}],
    "nansum": [{}, {"where": MASK}, {"dtype": "float32", "initial": 1}],
    "nanprod": [{}, {"initial": 2}],
    "nanmax": [{}, {"initial": -9}, {"where": MASK, "initial": 0.5}],
    "nanmin": [{}, {"where": MASK, "initial": 9}],
    "nanmean": [{}, {"where": MASK}, {"dtype": "float32"}],
    "nanvar": [{}, {"ddof": 1}, {"where": MASK}],
    "nanstd": [{}, {"dtype": "float32"}],
    "nanargmax": [{}],
    "nanargmin": [{}],
    "cumsum": [{}, {"dtype": "float32"}, {"dtype": "bool"}],
    "cumprod": [{}, {"dtype": "int16"}],
    "nancumsum": [{}, {"dtype": "float64"}],
    "nancumprod": [{}],
    "cumulative_sum": [{"axis": 1}, {"axis": 0, "include_initial": True},
                       {"axis": -1, "dtype": "int8"}],
    "cumulative_prod": [{"axis": 0}, {"axis": 1, "include_initial": True, "dtype": "float32"}],
}  # fmt: skip
NO_AXIS_TUPLE = {"nanargmax", "nanargmin", "cumsum", "cumprod", "nancumsum", "nancumprod",
                 "cumulative_sum", "cumulative_prod"}  # fmt: skip
NO_KEEPDIMS = {"cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod"}

# Where weaktrace disagrees with jax: (name, kind) -> reason. None known.
KNOWN_MISMATCHES: dict[tuple[str, str], str] = {}


def _kwargs(name: str, i: int) -> dict[str, object]:
    variants = VARIANTS[name]
    kw = dict(variants[i % len(variants)])
    if "axis" not in kw and not name.startswith("cumulative"):
        axes = AXES[(i // len(variants)) % len(AXES)]
        if name in NO_AXIS_TUPLE and isinstance(axes.get("axis"), tuple):
            axes = {"axis": 1}
        if name in NO_KEEPDIMS:
            axes = {k: v for k, v in axes.items() if k != "keepdims"}
        kw.update(axes)
    return kw


def _cases() -> list[tuple[str, str, dict[str, object]]]:
    return [(name, kind, _kwargs(name, i)) for name in VARIANTS for i, kind in enumerate(KINDS)]


CASES = _cases()


def _label(kw: dict[str, object]) -> str:
    return ",".join(f"{k}={'mask' if v is MASK else getattr(v, 'shape', v)}" for k, v in kw.items())


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        cases = with_x64(CASES, 60, full_run(metafunc.config))
        ids = [f"{c[0]}-{c[1]}-{_label(c[2])}-{'x64' if x else 'x32'}" for c, x in cases]
        metafunc.parametrize("case", cases, ids=ids)


def _tolerance(kind: str, kw: dict[str, object]) -> dict[str, float]:
    low = {kind, str(kw.get("dtype"))} & {"float16", "bfloat16"}
    return {"rtol": 2e-2, "atol": 2e-2} if low else {"rtol": 1e-5, "atol": 1e-5}


def test_reduction(case):
    (name, kind, kw), x64 = case
    if (name, kind) in KNOWN_MISMATCHES:
        pytest.xfail(KNOWN_MISMATCHES[name, kind])
    x = values(kind, () if kind in SCALARS else SHAPE, seed=3)
    with jax.enable_x64(x64):
        check(lambda a: getattr(wnp, name)(a, **kw), lambda a: getattr(jnp, name)(a, **kw), x,
              context=f"{name}({_label(kw)})", **_tolerance(kind, kw))  # fmt: skip


# -- traced keyword values and errors ----------------------------------------------------

CALLS = [
    ("sum traced initial", lambda m, a, v: m.sum(a, initial=v), ("int8", "py_float")),
    ("max traced where", lambda m, a, w: m.max(a, where=w > 0, initial=0), ("float32", "int8")),
    ("var traced mean", lambda m, a, v: m.var(a, axis=1, mean=v), ("float32", "float16")),
    ("nanvar traced ddof", lambda m, a, d: m.nanvar(a, ddof=d), ("float32", "py_int")),
    ("nan_to_num then cumsum", lambda m, a, b: m.cumsum(m.nan_to_num(a) * b), ("float16", "int8")),
    ("where not bool", lambda m, a, w: m.sum(a, where=w), ("float32", "int8")),
    ("max where no initial", lambda m, a, w: m.max(a, where=w > 0), ("float32", "int8")),
    ("initial not scalar", lambda m, a, b: m.sum(a, initial=b), ("float32", "float32")),
    ("var ddof and correction", lambda m, a, b: m.var(a, ddof=1, correction=1),
     ("float32", "int8")),
    ("var real dtype of complex", lambda m, a, b: m.var(a * 1j, dtype=np.float32),
     ("float32", "int8")),
    ("cumulative_sum 2d no axis", lambda m, a, b: m.cumulative_sum(a), ("float32", "int8")),
    ("ptp bool", lambda m, a, b: m.ptp(a > 0), ("float32", "int8")),
    ("average shapes", lambda m, a, b: m.average(a, weights=b[0]), ("float32", "int8")),
    ("nanargmax all nan", lambda m, a, b: m.nanargmax(a * np.nan, axis=0), ("float32", "int8")),
]  # fmt: skip


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize(("label", "f", "kinds"), CALLS, ids=[c[0] for c in CALLS])
def test_calls(label, f, kinds, x64):
    args = [values(k, () if k in SCALARS else SHAPE, seed=i) for i, k in enumerate(kinds)]
    with jax.enable_x64(x64):
        check(lambda *a: f(wnp, *a), lambda *a: f(jnp, *a), *args, context=label, rtol=1e-2,
              atol=1e-2)  # fmt: skip


def test_reductions_follow_the_numpy_policy():
    """Accumulation dtypes come from the policy: under policy("numpy") sum of int8 is
    int64 and mean of int16 float64, as numpy has them."""
    x8, x16 = np.arange(6, dtype=np.int8), np.arange(6, dtype=np.int16)
    pol = wt.policy("numpy")
    out = wt.trace(lambda a, b: (wnp.sum(a), wnp.mean(b), wnp.var(b), wnp.nanmean(b)),
                   policy=pol).trace(x8, x16).out_avals  # fmt: skip
    expected = (np.sum(x8), np.mean(x16), np.var(x16), np.nanmean(x16))
    assert [o.dtype for o in out] == [np.asarray(e).dtype for e in expected]


# -- the cumulative primitives themselves, against jax.lax -----------------------------
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("prim", ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"])
def test_cumulative_primitives_match_lax(prim, reverse):
    from weaktrace.core import primitives_cumulative as C
    from weaktrace.core.operands import context, operand, to_jax
    from weaktrace.core.promotion import bind

    kind = "float32" if prim == "cumlogsumexp" else "int16"
    x = values(kind, SHAPE, seed=4, special=False)

    def ours(a):
        t = operand(a, context(a))
        r = bind(getattr(C, f"{prim}_p"), t, axis=1, reverse=reverse)
        return to_jax(r) if r.ctx.eager else r  # eagerly, users get jax arrays

    def theirs(a):
        return getattr(jax.lax, prim)(a, axis=1, reverse=reverse)

    check(ours, theirs, x)
    with pytest.raises(TypeError):  # numbers only, as in lax (no bools)
        wt.trace(lambda a: ours(a)).trace(x > 0)
