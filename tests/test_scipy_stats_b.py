"""weaktrace.scipy.stats' statistics functions (mode, rankdata, sem) against
jax.scipy.stats' at test time: the differential harness (tests/mirror_harness.py:
eager, traced and compiled against jax eager and jit) over data x options x x64, the
errors jax raises for options it refuses, and jax's signatures.

CI runs a deterministic spread of the sweep; ``--run-slow`` runs all of it.
"""

from __future__ import annotations

import inspect

import jax
import jax.scipy.stats as jst
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.scipy.stats as wst
from tests.conftest import full_run
from tests.mirror_harness import FAMILIES, check

STATISTICS = ("mode", "rankdata", "sem")


def _data(label: str) -> object:
    rng = np.random.default_rng(len(label))
    ties = rng.integers(0, 4, (4, 5))
    return {
        "int-ties": ties.astype(np.int32),
        "f32": rng.normal(size=(3, 4)).astype(np.float32),
        "f32-ties": ties.astype(np.float32),
        "nan": np.where(ties == 1, np.nan, ties).astype(np.float32),
        "f16": ties.astype(np.float16),
        "bool": ties > 1,
        "vector": rng.integers(0, 3, 7).astype(np.int32),
        "weak": 2.5,
        "f64": rng.normal(size=(2, 3, 2)),
        "empty": np.zeros((0, 3), np.float32),
    }[label]


DATA = ["int-ties", "f32", "f32-ties", "nan", "f16", "bool", "vector", "weak", "f64", "empty"]
OPTIONS = {
    "mode": [{}, {"axis": None}, {"axis": -1}, {"axis": 1, "keepdims": True},
             {"axis": None, "keepdims": True}, {"axis": 3}],
    "rankdata": [{}, {"method": "min"}, {"method": "max"}, {"method": "dense"},
                 {"method": "ordinal"}, {"axis": 0}, {"axis": -1, "method": "min"}],
    "sem": [{}, {"axis": None}, {"axis": 1, "keepdims": True}, {"ddof": 0},
            {"axis": -1, "nan_policy": "omit"}, {"ddof": 5}],
}  # fmt: skip
CASES = [
    (fn, label, i, x64)
    for fn in STATISTICS
    for label in DATA
    for i in range(len(OPTIONS[fn]))
    for x64 in (False, True)
]


def _in_ci(n: int) -> bool:
    return n % 23 == 0  # a deterministic spread over the functions, data and options


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        full = full_run(metafunc.config)
        picked = [c for n, c in enumerate(CASES) if full or _in_ci(n)]
        ids = [f"{f}-{d}-{i}-{'x64' if x else 'x32'}" for f, d, i, x in picked]
        metafunc.parametrize("case", picked, ids=ids)
    if "kde_case" in metafunc.fixturenames:
        full = full_run(metafunc.config)
        picked = [c for n, c in enumerate(KDE_CASES) if full or n % 48 == 0]
        ids = ["-".join(map(str, c)) for c in picked]
        metafunc.parametrize("kde_case", picked, ids=ids)


@pytest.mark.ci_sample(2)
def test_statistics(case):
    fn, label, i, x64 = case
    kwargs = OPTIONS[fn][i]
    ours, jaxs = getattr(wst, fn), getattr(jst, fn)
    tol = 3e-2 if label == "f16" else 2e-5
    with jax.enable_x64(x64):
        check(
            lambda a: ours(a, **kwargs),
            lambda a: jaxs(a, **kwargs),
            _data(label),
            context=f"{fn}({label}, {kwargs})",
            rtol=tol,
            atol=tol,
        )


@pytest.mark.parametrize(
    ("fn", "kwargs"),
    [
        ("mode", {"nan_policy": "omit"}),
        ("mode", {"nan_policy": "raise"}),
        ("mode", {"nan_policy": "bad"}),
        ("rankdata", {"nan_policy": "omit"}),
        ("rankdata", {"nan_policy": "bad"}),
        ("rankdata", {"method": "bad"}),
        ("sem", {"nan_policy": "raise"}),
    ],
)
def test_refused_options_raise_as_jax(fn, kwargs):
    x = np.arange(4.0, dtype=np.float32)
    with pytest.raises(Exception) as theirs:
        getattr(jst, fn)(x, **kwargs)
    with pytest.raises(type(theirs.value)):
        getattr(wst, fn)(x, **kwargs)


@pytest.mark.parametrize("fn", ["mode", "rankdata"])
def test_lists_raise_as_jax(fn):
    with pytest.raises(TypeError):
        getattr(jst, fn)([1, 2, 2])
    with pytest.raises(TypeError):
        getattr(wst, fn)([1, 2, 2])


@pytest.mark.parametrize("fn", STATISTICS)
def test_signature_is_jax(fn):
    want = inspect.signature(getattr(jst, fn)).parameters
    got = inspect.signature(getattr(wst, fn)).parameters
    assert list(got) == list(want)
    for name, p in want.items():
        assert (got[name].default, got[name].kind) == (p.default, p.kind), name


def test_sem_gradient_equals_jax():
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
    ours = jax.grad(wt.trace(lambda v: wst.sem(v, axis=1).sum()))(x)
    want = jax.grad(lambda v: jst.sem(v, axis=1).sum())(x)
    np.testing.assert_allclose(ours, want, rtol=1e-5, atol=1e-6)


# -- gaussian_kde ---------------------------------------------------------------------

BANDWIDTHS = {
    "scott": None,
    "silverman": "silverman",
    "scalar": 1.5,
    "callable": lambda kde: kde.neff ** (-1.0 / (kde.d + 4)),
}
KDE_METHODS = ("evaluate", "__call__", "pdf", "logpdf")


def _kde_data(shape: tuple[int, ...], dtype: str) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(sum(shape))
    data = rng.normal(size=shape).astype(dtype)
    weights = np.abs(rng.normal(size=shape[-1:])).astype(dtype) + 0.1
    points = rng.normal(size=(*shape[:-1], 4)).astype(dtype)
    return data, weights, points


KDE_CASES = [
    (shape, dtype, bw, weighted, method)
    for shape in ((12,), (3, 12), (2, 7))
    for dtype in ("float32", "float64")
    for bw in BANDWIDTHS
    for weighted in (False, True)
    for method in KDE_METHODS
]


@pytest.mark.ci_sample(3)
def test_kde_density(kde_case):
    _check_kde_density(*kde_case)


def _check_kde_density(shape, dtype, bw, weighted, method):
    data, weights, points = _kde_data(shape, dtype)

    def run(mod):
        def fn(data, weights, points):
            kde = mod.gaussian_kde(data, BANDWIDTHS[bw], weights if weighted else None)
            return getattr(kde, method)(points)

        return fn

    with jax.enable_x64(dtype == "float64"):
        check(run(wst), run(jst), data, weights, points, context=f"kde.{method}",
              rtol=1e-4, atol=1e-6)  # fmt: skip


def _integrals(mod, kind):
    def fn(data, weights):
        kde = mod.gaussian_kde(data, weights=weights)
        d = kde.d
        if kind == "gaussian":
            return kde.integrate_gaussian(np.full(d, 0.25), np.eye(d) * 1.5)
        if kind == "box_1d":
            return kde.integrate_box_1d(-0.5, 1.5)
        if kind == "kde":
            return kde.integrate_kde(mod.gaussian_kde(data[..., :-3] + 0.1))
        return kde.resample(jax.random.key(3), shape=(5,))

    return fn


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize(
    ("kind", "shape"),
    [("gaussian", (12,)), ("gaussian", (3, 12)), ("box_1d", (12,)), ("kde", (12,)),
     ("kde", (2, 9)), ("resample", (12,)), ("resample", (3, 12)), ("box_1d", (2, 9))],
)  # fmt: skip
@pytest.mark.ci_sample(2)
def test_kde_integrals_and_resample(kind, shape, x64, request):
    if (x64 or kind in ("gaussian", "kde")) and not full_run(request.config):
        pytest.skip("CI sample (--run-slow runs it)")
    data, weights, _ = _kde_data(shape, "float64" if x64 else "float32")
    with jax.enable_x64(x64):
        check(_integrals(wst, kind), _integrals(jst, kind), data, weights,
              context=f"kde {kind}", rtol=1e-4, atol=1e-6)  # fmt: skip


def test_kde_is_a_pytree_through_jit_and_trace():
    data, _, points = _kde_data((3, 12), "float32")
    kde = wst.gaussian_kde(data)
    leaves, treedef = jax.tree.flatten(kde)
    assert len(leaves) == len(jax.tree.leaves(jst.gaussian_kde(data)))
    again = jax.tree.unflatten(treedef, leaves)
    want = jst.gaussian_kde(data).evaluate(points)
    np.testing.assert_allclose(jax.jit(lambda k, x: k.evaluate(x))(again, points), want,
                               rtol=1e-5)  # fmt: skip
    np.testing.assert_allclose(wt.trace(lambda k, x: k.evaluate(x))(kde, points), want,
                               rtol=1e-5)  # fmt: skip


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.gaussian_kde(np.ones(1, np.float32)),  # one element
        lambda m: m.gaussian_kde(np.arange(4.0) * (1 + 1j)),  # complex
        lambda m: m.gaussian_kde(np.arange(4.0), weights=np.ones((2, 2))),  # 2-d weights
        lambda m: m.gaussian_kde(np.arange(4.0), weights=np.ones(3)),  # wrong length
        lambda m: m.gaussian_kde(np.arange(4.0), bw_method="nope"),
        lambda m: m.gaussian_kde([1.0, 2.0, 3.0]),  # a list
        lambda m: m.gaussian_kde(np.arange(4.0)).integrate_box(0.0, 1.0),
        lambda m: m.gaussian_kde(np.arange(4.0)).set_bandwidth("scott"),
        lambda m: m.gaussian_kde(np.arange(6.0).reshape(2, 3)).integrate_box_1d(0.0, 1.0),
        lambda m: m.gaussian_kde(np.arange(6.0).reshape(2, 3)).evaluate(np.ones((3, 2))),
        lambda m: m.gaussian_kde(np.arange(6.0).reshape(2, 3)).integrate_gaussian(
            np.ones(3), np.eye(3)),
    ],
)  # fmt: skip
def test_kde_errors_are_jax(make):
    with pytest.raises(Exception) as theirs:
        make(jst)
    family = next(f for f in FAMILIES if isinstance(theirs.value, f))
    with pytest.raises(family):
        make(wst)


def test_kde_gradients_equal_jax():
    data, weights, points = _kde_data((2, 9), "float32")

    def f(mod, d, x):
        return mod.gaussian_kde(d, weights=weights).logpdf(x).sum()

    for arg in (0, 1):
        ours = jax.grad(wt.trace(lambda d, x: f(wst, d, x)), argnums=arg)(data, points)
        want = jax.grad(lambda d, x: f(jst, d, x), argnums=arg)(data, points)
        np.testing.assert_allclose(ours, want, rtol=1e-4, atol=1e-5)
