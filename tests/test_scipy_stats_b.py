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
from tests.mirror_harness import check

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
