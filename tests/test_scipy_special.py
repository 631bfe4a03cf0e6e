"""weaktrace.scipy.special against jax.scipy.special: coverage of jax's public names
(listed at test time), the differential harness (tests/mirror_harness.py: eager, traced
and compiled against jax eager and jit: shapes, dtypes, weak flags, values, errors) over
generated dtypes and shapes, x64 off and on, keyword values, and gradients.

CI runs a deterministic sample of each sweep; ``--run-slow`` runs all of it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
import weaktrace.scipy.special as wsp
from tests.conftest import full_run
from tests.math_cases import KINDS, SCALARS, positive, product, values, with_x64
from tests.mirror_harness import check

# jax.scipy.special names weaktrace does not mirror, and why.
EXCLUDED: dict[str, str] = {}

# name -> number of array operands (the dtype sweep draws one kind per operand).
ARITY = {
    "erf": 1, "erfc": 1, "erfinv": 1, "gammaln": 1, "digamma": 1, "expit": 1, "i0e": 1,
    "i1e": 1, "gamma": 1, "loggamma": 1, "gammasgn": 1, "logit": 1, "entr": 1, "dawsn": 1,
    "erfcx": 1, "exp1": 1, "expi": 1, "fresnel": 1, "sici": 1, "i0": 1, "i1": 1, "spence": 1,
    "ndtr": 1, "ndtri": 1, "log_ndtr": 1, "wofz": 1, "factorial": 1, "softmax": 1,
    "log_softmax": 1, "logsumexp": 1,
    "xlogy": 2, "xlog1py": 2, "beta": 2, "betaln": 2, "boxcox": 2, "boxcox1p": 2, "kl_div": 2,
    "rel_entr": 2, "owens_t": 2, "poch": 2, "expn": 2, "gammainc": 2, "gammaincc": 2,
    "zeta": 2, "polygamma": 2, "comb": 2,
    "betainc": 3, "hyp1f1": 3, "hyp2f1": 4,
}  # fmt: skip
# called with static arguments below (KEYWORDS)
STATIC = {"multigammaln", "bessel_jn", "bernoulli", "sph_harm_y"}
# slow to compile (series in while loops): fewer CI cases
SLOW = {"hyp1f1", "hyp2f1", "zeta", "polygamma", "betainc", "expn", "exp1", "expi", "sici",
        "fresnel", "spence", "owens_t", "poch", "gammainc", "gammaincc", "wofz"}  # fmt: skip

# Calls with keyword values: (label, f(module, *args), kinds, shape).
KEYWORDS = [
    ("multigammaln d=3", lambda m, a: m.multigammaln(a, 3), ("float32",), (2,)),
    ("multigammaln int", lambda m, a: m.multigammaln(a, 2), ("int32",), (2,)),
    ("multigammaln weak", lambda m, a: m.multigammaln(a, 1), ("py_float",), ()),
    ("bessel_jn", lambda m, z: m.bessel_jn(z, v=2), ("float32",), (3,)),
    ("bessel_jn f64", lambda m, z: m.bessel_jn(z, v=1, n_iter=20), ("float64",), (2,)),
    ("bernoulli", lambda m: m.bernoulli(6), (), ()),
    ("log_ndtr order", lambda m, x: m.log_ndtr(x, series_order=2), ("float32",), (3,)),
    ("comb repetition", lambda m, a, b: m.comb(a, b, repetition=True), ("int32", "int32"), (3,)),
    ("factorial exact", lambda m, a: m.factorial(a, exact=True), ("int32",), (3,)),
    ("zeta no q", lambda m, x: m.zeta(x), ("float32",), (3,)),
    ("polygamma float n", lambda m, n, x: m.polygamma(n, x), ("float32", "float32"), (3,)),
    ("polygamma weak n", lambda m, n, x: m.polygamma(n, x), ("py_int", "float16"), (3,)),
    ("logsumexp axis b", lambda m, a, b: m.logsumexp(a, axis=0, b=b), ("float32", "int8"),
     (2, 3)),
    ("logsumexp sign", lambda m, a, b: m.logsumexp(a, b=b, return_sign=True),
     ("float32", "float32"), (3,)),
    ("logsumexp complex b", lambda m, a, b: m.logsumexp(a, b=b, return_sign=True),
     ("float32", "complex64"), (3,)),
    ("logsumexp complex sign", lambda m, a: m.logsumexp(a, return_sign=True), ("complex64",),
     (3,)),
    ("logsumexp where keepdims", lambda m, a, w: m.logsumexp(a, 1, keepdims=True, where=w),
     ("bfloat16", "bool"), (2, 3)),
    ("softmax axis", lambda m, x: m.softmax(x, axis=0), ("float32",), (2, 3)),
    ("log_softmax axis", lambda m, x: m.log_softmax(x, axis=(0, 1)), ("float16",), (2, 3)),
    ("xlogy broadcast", lambda m, x, y: m.xlogy(x, y), ("float32", "py_float"), (2, 3)),
    ("betainc weak", lambda m, a, b, x: m.betainc(a, b, x), ("py_float", "py_int", "float32"),
     (3,)),
    ("sph_harm_y", lambda m, n, k, t, p: m.sph_harm_y(n, k, t, p, n_max=3),
     ("int32", "int32", "float32", "float32"), (3,)),
]  # fmt: skip

# Where weaktrace disagrees with jax: (label, kinds, x64) -> reason.
KNOWN_MISMATCHES: dict[tuple[str, tuple[str, ...], bool], str] = {}

# Domains: operands drawn in (0.5, 4] (no infinities, NaN, zeros) where the function is a
# series that jax only defines there (jax's values elsewhere differ between runs).
POSITIVE = {"zeta", "polygamma", "hyp1f1", "hyp2f1", "betainc", "expn", "poch", "comb"}


def _arg(name: str, kind: str, shape: tuple[int, ...], seed: int) -> object:
    shape = () if kind in SCALARS else shape
    if kind == "bool" and seed > 0 and shape:
        mask = values(kind, shape, seed=seed)
        mask[..., 0] = True
        return mask
    if name in POSITIVE and "int" not in kind and kind not in ("bool", "py_bool"):
        return positive(kind, shape, seed=seed)
    if name in ("bessel_jn", "sph_harm_y") and kind in ("int32",):
        return np.abs(values(kind, shape, seed=seed, special=False)) % 3
    return values(kind, shape, seed=seed)


def _tolerance(args: tuple[object, ...]) -> dict[str, float]:
    """f16/bf16 results may differ in the last bits between eager and jit (fused
    intermediates); series functions differ more in f32 between eager and jit."""
    names = {str(getattr(a, "dtype", "")) for a in args}
    if names & {"float16", "bfloat16"}:
        return {"rtol": 2e-2, "atol": 2e-2}
    return {"rtol": 1e-4, "atol": 1e-5}


def _cases() -> list[tuple[str, tuple[str, ...], tuple[int, ...]]]:
    out = []
    for name, arity in ARITY.items():
        kinds = product(*[KINDS] * arity) if arity < 3 else [(k,) * arity for k in KINDS]
        step = max(1, len(kinds) // (3 if name in SLOW else 12)) if arity > 1 else 1
        for i, ks in enumerate(kinds):
            out.append((name, ks, ((3,), (2, 3))[i % 2], i % step == 0))
    return out


CASES = _cases()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    full = full_run(metafunc.config)
    if "case" in metafunc.fixturenames:
        cases = [c[:3] for c in CASES if full or c[3]]
        picked = with_x64(cases, 40, full)
        ids = [f"{c[0]}-{'-'.join(c[1])}-{'x64' if x64 else 'x32'}" for c, x64 in picked]
        metafunc.parametrize("case", picked, ids=ids)
    if "keyword_case" in metafunc.fixturenames:
        picked = with_x64(KEYWORDS, len(KEYWORDS), full)
        ids = [f"{c[0]}-{'x64' if x64 else 'x32'}" for c, x64 in picked]
        metafunc.parametrize("keyword_case", picked, ids=ids)


def _run(label: str, name: str, f, kinds, shape, x64: bool) -> None:
    args = tuple(_arg(name, k, shape, seed=i) for i, k in enumerate(kinds))
    reason = KNOWN_MISMATCHES.get((label, tuple(kinds), x64))
    if reason:
        pytest.xfail(reason)
    with jax.enable_x64(x64):
        check(lambda *a: f(wsp, *a), lambda *a: f(jsp, *a), *args, context=label,
              **_tolerance(args))  # fmt: skip


@pytest.mark.ci_sample(2)
def test_functions(case):
    (name, kinds, shape), x64 = case
    _run(name, name, lambda m, *a: getattr(m, name)(*a), kinds, shape, x64)


@pytest.mark.ci_sample(2)
def test_keywords(keyword_case):
    (label, f, kinds, shape), x64 = keyword_case
    _run(label, label.split()[0], f, kinds, shape, x64)


# -- coverage -------------------------------------------------------------------------


def test_every_jax_scipy_special_name_is_mirrored_or_excluded():
    theirs = {n for n in dir(jsp) if not n.startswith("_")}
    missing = theirs - set(wsp.__all__) - set(EXCLUDED)
    assert not missing, f"jax.scipy.special names without a mirror: {sorted(missing)}"
    assert not set(EXCLUDED) - theirs, "an excluded name jax no longer has"
    extra = set(wsp.__all__) - theirs
    assert not extra, f"weaktrace.scipy.special names jax does not have: {sorted(extra)}"


def test_every_mirrored_name_is_swept():
    assert set(wsp.__all__) == set(ARITY) | STATIC
    called = {c[0].split()[0] for c in KEYWORDS}
    assert called >= STATIC


# -- gradients and policies -----------------------------------------------------------

GRADS = [
    ("xlogy", lambda m, x: m.xlogy(x, x + 1.0) + m.xlogy(x * 0.0, x)),
    ("xlog1py", lambda m, x: m.xlog1py(x, x)),
    ("logit", lambda m, x: m.logit(m.expit(x))),
    ("entr", lambda m, x: m.entr(m.expit(x))),
    ("gammaln digamma", lambda m, x: m.gammaln(x + 3.0) * m.digamma(x + 3.0)),
    ("erf erfinv", lambda m, x: m.erfinv(m.erf(x) * 0.5)),
    ("ndtr log_ndtr", lambda m, x: m.ndtr(x) + m.log_ndtr(x)),
    ("betainc", lambda m, x: m.betainc(2.0, 3.0, m.expit(x))),
    ("gammainc", lambda m, x: m.gammainc(2.0, x + 3.0)),
    ("logsumexp", lambda m, x: m.logsumexp(x) + m.logsumexp(x * 0 - np.inf)),
    ("softmax", lambda m, x: m.softmax(x) * np.arange(7.0, dtype=np.float32)),
    ("i0 i1", lambda m, x: m.i0(x) + m.i1(x) + m.i0e(x) + m.i1e(x)),
    ("kl_div rel_entr", lambda m, x: m.kl_div(m.expit(x), 0.5) + m.rel_entr(m.expit(x), 0.3)),
]


@pytest.mark.parametrize(("label", "f"), GRADS, ids=[c[0] for c in GRADS])
@pytest.mark.ci_sample(2)
def test_gradients_equal_jax(label, f):
    x = np.array([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0], np.float32)
    ours = jax.grad(wt.trace(lambda v: wnp.sum(f(wsp, v))))(x)
    theirs = jax.grad(lambda v: jnp.sum(f(jsp, v)))(x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, equal_nan=True)


POLICY = [("gammaln", ("int8",)), ("xlogy", ("int16", "float16")), ("betainc", ("int8",) * 3),
          ("expit", ("uint8",)), ("erf", ("bool",))]  # fmt: skip


@pytest.mark.parametrize(("name", "kinds"), POLICY, ids=[p[0] for p in POLICY])
def test_dtypes_follow_the_numpy_policy(name, kinds):
    """Under policy("numpy"), operands join as numpy joins them and integers become
    float64 (as scipy's results do)."""
    args = [values(k, (3,), i) for i, k in enumerate(kinds)]
    traced = wt.trace(lambda *a: getattr(wsp, name)(*a), policy=wt.policy("numpy"))
    joined = np.result_type(*args)
    expected = joined if joined.kind in "fc" else np.dtype(np.float64)
    assert traced.trace(*args).out_avals.dtype == expected
