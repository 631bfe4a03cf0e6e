"""weaktrace.scipy.stats against jax.scipy.stats: coverage of jax's distributions and
their functions (listed at test time), and the differential harness
(tests/mirror_harness.py: eager, traced and compiled against jax eager and jit: shapes,
dtypes, weak flags, values, errors) over generated dtypes x argument shapes x x64, and
gradients through jax.grad.

CI runs a deterministic spread of the sweep; ``--run-slow`` runs all of it.
"""

from __future__ import annotations

import inspect
import types

import jax
import jax.numpy as jnp
import jax.scipy.stats as jst
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
import weaktrace.scipy.stats as wst
from tests.conftest import full_run
from tests.mirror_harness import check

# jax.scipy.stats names weaktrace does not mirror yet, and why. A name listed here that
# weaktrace gains fails test_missing_is_really_missing, so the list stays honest.
MISSING: dict[str, str] = {}
# Functions of a built distribution that weaktrace does not have yet, and why.
MISSING_FUNCTIONS: dict[tuple[str, str], str] = {}

# The role of each parameter name: where its values are drawn.
UNIT = {"p", "q"}  # (gumbel_l.ppf names its probability p)  # probabilities in (0, 1)
POSITIVE = {"scale", "a", "b", "mu", "df", "n", "kappa", "alpha", "beta", "c"}
COUNT = {"k"}  # small non-negative integers (some negative, some fractional: edges)
# (distribution, parameter): a uniform range where the role above does not fit.
RANGES = {
    ("truncnorm", "a"): (-2.5, 0.3),  # mostly a < b, some intervals in the right tail
    ("truncnorm", "b"): (0.2, 3.0),
    ("wrapcauchy", "c"): (0.05, 0.95),
    ("wrapcauchy", "x"): (-0.5, 7.0),  # [0, 2 pi] and a little outside
    ("gennorm", "x"): (-3.0, 3.0),
    ("poisson", "mu"): (0.0, 130.0),  # entropy's three regimes (mu < 10, < 100, >= 100)
}

# Dtype profiles: (label, kind of the first operand, kind of the others, shapes, x64s).
# A kind is a numpy dtype name or "py_float"/"py_int" (weak Python scalars).
PROFILES = [
    ("f32", "float32", "float32", ((2, 3), (3,)), (False, True)),
    ("f32-weak", "float32", "py_float", ((3,), ()), (False, True)),
    ("int", "int32", "int32", ((3,), (3,)), (False, True)),
    ("int-f32", "int32", "float32", ((2, 1), (3,)), (False,)),
    ("f16", "float16", "float16", ((3,), (1,)), (False, True)),
    ("bf16-weak", "bfloat16", "py_int", ((3,), ()), (False,)),
    ("weak", "py_float", "py_float", ((), ()), (False, True)),
    ("weak-int", "py_int", "py_float", ((), ()), (False,)),
    ("f64", "float64", "float32", ((2, 3), (2, 1)), (True,)),
]


def _draw(dist: str, name: str, kind: str, shape: tuple[int, ...], seed: int) -> object:
    rng = np.random.default_rng(seed)
    if (dist, name) in RANGES:
        v = rng.uniform(*RANGES[dist, name], shape)
    elif name in UNIT:
        v = rng.uniform(0.05, 0.95, shape)
    elif name in POSITIVE:
        v = rng.uniform(0.5, 4.0, shape)
    elif name in COUNT:
        v = rng.integers(-1, 6, shape).astype(np.float64)
    else:
        v = np.round(rng.normal(size=shape) * 2, 2)
    if kind.startswith("py_"):
        v = float(np.asarray(v).reshape(-1)[0]) if np.ndim(v) else float(v)
        return round(v) if kind == "py_int" else v
    if np.dtype(kind).kind in "iu":
        v = np.round(v * (1 if name in COUNT | POSITIVE else 3))
        v = np.where(v == 0, 1, v) if name in POSITIVE else v
    return np.asarray(v).astype(kind)


# Distributions whose arguments have structure (vectors along an axis): their own cases.
OWN_CASES = {
    "multivariate_normal": ("logpdf", "pdf"),
    "dirichlet": ("logpdf", "pdf"),
    "multinomial": ("logpmf", "pmf"),
}


def built() -> dict[str, types.ModuleType]:
    """The distribution modules (the statistics functions are checked on their own)."""
    mods = {n: getattr(wst, n) for n in wst.__all__}
    return {n: m for n, m in mods.items() if isinstance(m, types.ModuleType)}


def theirs(dist: str) -> set[str]:
    return {n for n in dir(getattr(jst, dist)) if not n.startswith("_")}


def _functions() -> list[tuple[str, str]]:
    return [
        (d, f)
        for d in sorted(set(built()) - set(OWN_CASES))  # their own cases below
        for f in sorted(theirs(d))
        if (d, f) not in MISSING_FUNCTIONS
    ]


def _cases() -> list[tuple[str, str, int, bool, bool]]:
    """(dist, fn, profile index, x64, in the CI sample)."""
    out = []
    for i, (d, f) in enumerate(_functions()):
        n = 0
        for p, prof in enumerate(PROFILES):
            for x64 in prof[4]:
                # CI: one profile per function, rotating so every profile and both x64
                # modes are exercised across the functions.
                # (every other function only under --run-slow: CI's time budget)
                out.append((d, f, p, x64, n == i % 14 and i % 2 == 0))
                n += 1
    return out


CASES = _cases()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        full = full_run(metafunc.config)
        picked = [c[:4] for c in CASES if full or c[4]]
        ids = [f"{d}.{f}-{PROFILES[p][0]}-{'x64' if x else 'x32'}" for d, f, p, x in picked]
        metafunc.parametrize("case", picked, ids=ids)


def _args(dist: str, fn: str, profile: int) -> tuple[object, ...]:
    _, first, rest, shapes, _ = PROFILES[profile]
    params = list(inspect.signature(getattr(getattr(jst, dist), fn)).parameters.values())
    args = []
    for i, prm in enumerate(params):
        if prm.default is not inspect.Parameter.empty and prm.name not in ("loc", "scale"):
            continue  # keyword options (multivariate_normal's allow_singular)
        kind, shape = (first, shapes[0]) if i == 0 else (rest, shapes[1])
        args.append(_draw(dist, prm.name, kind, shape, seed=i + 7 * profile))
    return tuple(args)


def _tolerance(args: tuple[object, ...]) -> dict[str, float]:
    names = {str(getattr(a, "dtype", "")) for a in args}
    if names & {"float16", "bfloat16"}:
        return {"rtol": 3e-2, "atol": 3e-2}
    return {"rtol": 2e-4, "atol": 2e-5}


def _jax_disagrees_with_itself(jaxs, args) -> bool:
    """jax's eager NaN is a number under jax.jit: XLA CPU's fused ``exp`` of a NaN that
    a ``where`` put there gives garbage (wrapcauchy.pdf of a `c` outside (0, 1):
    nan eagerly, 0, 1e-45 or 1e21 compiled). There is no oracle for those values."""
    try:
        eager, jitted = np.asarray(jaxs(*args)), np.asarray(jax.jit(jaxs)(*args))
    except Exception:  # jax raises: the values are not what differs (check compared errors)
        return False
    return bool(np.any(np.isnan(eager) != np.isnan(jitted)))


@pytest.mark.ci_sample(2)
def test_functions(case):
    dist, fn, profile, x64 = case
    args = _args(dist, fn, profile)
    ours, jaxs = getattr(built()[dist], fn), getattr(getattr(jst, dist), fn)
    with jax.enable_x64(x64):
        try:
            check(ours, jaxs, *args, context=f"{dist}.{fn}", **_tolerance(args))
        except AssertionError:
            # asked only when values differ: is there an oracle for them at all?
            if not _jax_disagrees_with_itself(jaxs, args):
                raise
            check(ours, jaxs, *args, context=f"{dist}.{fn}", values=False, **_tolerance(args))


# -- multivariate_normal: mean and cov shapes -----------------------------------------

MVN_FNS = OWN_CASES["multivariate_normal"]


def _mvn_case(label: str) -> tuple[object, ...]:
    rng = np.random.default_rng(len(label))
    a = rng.normal(size=(3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    f32 = np.float32
    return {
        "full": (rng.normal(size=(4, 3)).astype(f32), np.zeros(3, f32), cov.astype(f32)),
        "isotropic": (rng.normal(size=3).astype(f32), np.ones(3, f32), 2.0),
        "univariate-weak": (0.5, 0.0, 2.0),
        "int": (np.arange(3, dtype=np.int32), 1, 3),
        "batched": (
            rng.normal(size=(2, 1, 3)).astype(f32),
            np.zeros((5, 3), f32),
            np.broadcast_to(cov.astype(f32), (5, 3, 3)),
        ),
        "f16": (rng.normal(size=3).astype(np.float16), np.zeros(3, np.float16),
                cov.astype(np.float16)),
        "f64": (rng.normal(size=3), np.zeros(3), cov),
        "bad-shape": (rng.normal(size=3).astype(f32), np.zeros(3, f32), np.eye(2, dtype=f32)),
    }[label]  # fmt: skip


MVN_CASES = ["full", "isotropic", "univariate-weak", "int", "batched", "f16", "f64", "bad-shape"]


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("fn", MVN_FNS)
@pytest.mark.parametrize("label", MVN_CASES)
def test_multivariate_normal(label, fn, x64, request):
    ci = (label in ("full", "f64") or not x64) and (fn == "logpdf" or label == "full")
    if not full_run(request.config) and not ci:
        pytest.skip("CI sample (--run-slow runs it)")
    args = _mvn_case(label)
    ours, jaxs = getattr(wst.multivariate_normal, fn), getattr(jst.multivariate_normal, fn)
    with jax.enable_x64(x64):
        check(ours, jaxs, *args, context=f"mvn {label}", rtol=2e-3, atol=1e-4)


def test_multivariate_normal_allow_singular_raises_as_jax():
    x = np.zeros(2, np.float32)
    with pytest.raises(NotImplementedError):
        jst.multivariate_normal.logpdf(x, x, np.eye(2), allow_singular=True)
    with pytest.raises(NotImplementedError):
        wst.multivariate_normal.logpdf(x, x, np.eye(2), allow_singular=True)


# -- dirichlet and multinomial: categories along an axis -----------------------------


def _dirichlet_case(label: str) -> tuple[object, ...]:
    rng = np.random.default_rng(len(label))
    x = rng.dirichlet([1.0, 2.0, 3.0], size=4).T  # (3, 4): categories first
    f32 = np.float32
    return {
        "full": (x.astype(f32), np.array([0.5, 2.0, 3.0], f32)),
        "omitted-last": (x[:2].astype(f32), np.array([1.5, 2.0, 3.0], f32)),
        "vector": (x[:, 0].astype(f32), np.array([1.0, 2.0, 3.0], f32)),
        "off-simplex": (np.array([0.5, 0.6, -0.1], f32), np.array([1.0, 2.0, 3.0], f32)),
        "int-alpha": (x.astype(f32), np.array([1, 2, 3], np.int32)),
        "f64": (x, np.array([0.5, 2.0, 3.0])),
        "f16": (x.astype(np.float16), np.array([1.0, 2.0, 3.0], np.float16)),
        "2d-alpha": (x.astype(f32), np.ones((3, 1), f32)),
        "bad-length": (x[:1].astype(f32), np.ones(3, f32)),
    }[label]


def _multinomial_case(label: str) -> tuple[object, ...]:
    p = np.array([0.2, 0.3, 0.5], np.float32)
    x = np.array([[1, 2, 3], [0, 0, 6], [2, 2, 1]], np.int32)
    return {
        "batch": (x, 6, p),
        "vector": (x[0], np.int32(6), p),
        "wrong-total": (x[2], 6, p),
        "f64": (x, 6, p.astype(np.float64)),
        "int8": (x.astype(np.int8), np.int8(6), p),
        "float-counts": (x.astype(np.float32), 6, p),
        "bool": (x > 0, 2, p),
    }[label]


OWN = [("dirichlet", c) for c in ("full", "omitted-last", "vector", "off-simplex",
       "int-alpha", "f64", "f16", "2d-alpha", "bad-length")] + [
    ("multinomial", c) for c in ("batch", "vector", "wrong-total", "f64", "int8",
     "float-counts", "bool")]  # fmt: skip


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize(("dist", "label"), OWN, ids=[f"{d}-{c}" for d, c in OWN])
@pytest.mark.ci_sample(2)
def test_dirichlet_multinomial(dist, label, x64, request):
    if (
        not full_run(request.config)
        and (x64 or label in ("int8", "bool", "f16"))
        and label not in ("f64", "full", "batch")
    ):
        pytest.skip("CI sample (--run-slow runs it)")
    args = (_dirichlet_case if dist == "dirichlet" else _multinomial_case)(label)
    for fn in OWN_CASES[dist]:
        ours, jaxs = getattr(getattr(wst, dist), fn), getattr(getattr(jst, dist), fn)
        tol = 3e-2 if label == "f16" else 2e-4
        with jax.enable_x64(x64):
            check(ours, jaxs, *args, context=f"{dist}.{fn} {label}", rtol=tol, atol=tol)


# -- coverage -------------------------------------------------------------------------


def test_every_distribution_is_built_or_listed_missing():
    jax_names = {n for n in dir(jst) if not n.startswith("_")}
    assert set(wst.__all__) <= jax_names, "a weaktrace.scipy.stats name jax does not have"
    assert set(MISSING) <= jax_names, "a missing name jax no longer has"
    unaccounted = jax_names - set(wst.__all__) - set(MISSING)
    assert not unaccounted, f"jax.scipy.stats names neither built nor listed: {unaccounted}"


def test_missing_is_really_missing():
    assert not set(MISSING) & set(wst.__all__), "built: remove it from MISSING"
    for (d, f), _ in MISSING_FUNCTIONS.items():
        assert not hasattr(built()[d], f), f"{d}.{f} is built: remove it from the list"


def test_every_function_is_built_with_jax_signature_and_swept():
    swept = {(d, f) for d, f, *_ in CASES} | {(d, f) for d in OWN_CASES for f in OWN_CASES[d]}
    for d, mod in built().items():
        ours = {n for n in dir(mod) if not n.startswith("_")} & set(mod.EXPORTS)
        assert set(mod.EXPORTS) <= theirs(d), f"{d}: names jax does not have"
        assert ours | {f for dd, f in MISSING_FUNCTIONS if dd == d} == theirs(d), d
        for f in mod.EXPORTS:
            want = inspect.signature(getattr(getattr(jst, d), f))
            got = inspect.signature(getattr(mod, f))
            assert list(got.parameters) == list(want.parameters), f"{d}.{f}"
            for p in want.parameters.values():
                assert got.parameters[p.name].default == p.default, f"{d}.{f}({p.name})"
            assert (d, f) in swept, f"{d}.{f} is not in the differential sweep"


# -- gradients ------------------------------------------------------------------------

GRADS = [
    ("norm", lambda m, x: m.norm.logpdf(x, 0.5, 2.0) + m.norm.logcdf(x) + m.norm.sf(x, 1.0)),
    ("gamma", lambda m, x: m.gamma.logpdf(jnp.abs(x) + 0.1 if m is jst else wnp.abs(x) + 0.1,
                                          2.5, 0.0, 1.5)),
    ("expon laplace", lambda m, x: m.expon.logcdf(x * x + 0.1) + m.laplace.logpdf(x, 0.3)),
    ("logistic cauchy", lambda m, x: m.logistic.logpdf(x) + m.cauchy.logpdf(x, 0.1, 2.0)),
    ("poisson binom", lambda m, x: m.poisson.logpmf(3.0, x * x + 0.5)
     + m.binom.logpmf(2.0, 5.0, 0.5 + 0.3 * x / (1 + x * x))),
    ("bernoulli", lambda m, x: m.bernoulli.logpmf(1.0, 0.5 + 0.3 * x / (1 + x * x))),
    ("t chi2", lambda m, x: m.t.logpdf(x, 3.0, 0.2) + m.chi2.logpdf(x * x + 0.5, 2.5)),
    ("beta pareto", lambda m, x: m.beta.logpdf(0.5 + 0.3 * x / (1 + x * x), 2.0, 3.0)
     + m.pareto.logsf(x * x + 1.5, 2.0)),
    ("gumbel_l geom nbinom", lambda m, x: m.gumbel_l.logpdf(x, 0.1, 1.5)
     + m.geom.logpmf(3.0, 0.5 + 0.3 * x / (1 + x * x))
     + m.nbinom.logpmf(2.0, x * x + 1.0, 0.4)),
    ("multivariate_normal", lambda m, x: m.multivariate_normal.logpdf(
        x.reshape(5, 1) * np.ones(2, np.float32), np.array([0.5, -1.0], np.float32),
        np.array([[2.0, 0.3], [0.3, 1.0]], np.float32))),
    ("truncnorm", lambda m, x: m.truncnorm.logpdf(x, -2.5, 3.5, 0.1, 1.2)
     + m.truncnorm.logcdf(x, -2.5, 3.5) + m.truncnorm.logsf(x, -3.0, 3.5, 0.0, 1.5)),
    ("gumbel_r vonmises", lambda m, x: m.gumbel_r.logpdf(x, 0.1, 1.5)
     + m.gumbel_r.logsf(x, 0.2) + m.vonmises.logpdf(x, x * x + 0.5)),
    ("betabinom gennorm wrapcauchy", lambda m, x: m.betabinom.logpmf(2.0, 5.0, x * x + 0.5, 2.0)
     + m.gennorm.logpdf(x, 1.5) + m.gennorm.cdf(x, x * x + 1.0)
     + m.wrapcauchy.logpdf(x * x + 0.1, 0.3 + 0.2 * x / (1 + x * x))),
    ("dirichlet multinomial", lambda m, x: m.dirichlet.logpdf(
        np.array([0.2, 0.3, 0.5], np.float32), x[:3] * x[:3] + 0.5)
     + m.multinomial.logpmf(np.array([1, 2, 3]), 6, (lambda e: e / e.sum())(x[:3] * x[:3] + 1))),
    ("poisson.entropy", lambda m, x: m.poisson.entropy(x * x * 30 + 0.5)),
]  # fmt: skip


@pytest.mark.parametrize(("label", "f"), GRADS, ids=[g[0] for g in GRADS])
@pytest.mark.ci_sample(2)
def test_gradients_equal_jax(label, f, request):
    if not full_run(request.config) and GRADS.index((label, f)) % 3:
        pytest.skip("CI checks every third gradient (--run-slow: all)")
    x = np.array([-2.0, -0.5, 0.25, 1.0, 3.0], np.float32)
    ours = jax.grad(wt.trace(lambda v: wnp.sum(f(wst, v))))(x)
    want = jax.grad(lambda v: jnp.sum(f(jst, v)))(x)
    np.testing.assert_allclose(ours, want, rtol=1e-5, atol=1e-6, equal_nan=True)
