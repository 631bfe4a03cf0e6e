"""weaktrace.random against jax.random, computed at test time.

For every sampler over generated dtypes, shapes and parameters, with typed
(``jax.random.key``) and raw (``jax.random.PRNGKey``) keys, x64 off and on: the
traced out_avals equal ``jax.make_jaxpr``'s (shape, dtype, weak), and compiled and
eager samples are bit-identical to jax's; where jax raises, weaktrace raises an
error of the same builtin family. CI runs a deterministic sample (every sampler
at least once); ``--run-slow`` runs all cases.
"""

from __future__ import annotations

import itertools
import random
import warnings
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.random as wr

FAMILIES = (TypeError, ValueError, NotImplementedError, OverflowError)

# jax.random's public names weaktrace.random does not mirror, and why.
EXCLUDED = {
    # re-exported as jax's own object (test_primitive_objects_are_jaxs), not a sampler
    "random_gamma_p": "a jax Primitive object (jax's internal gamma kernel), not a function",
}
# Mismatches with jax, grouped by root cause: (name, case id substring) -> reason.
KNOWN_MISMATCHES: dict[tuple[str, str], str] = {}


def _public_jax_random() -> set[str]:
    return {n for n in dir(jax.random) if not n.startswith("_")}


def test_coverage() -> None:
    names = _public_jax_random()
    missing = sorted(names - set(wr.__all__) - set(EXCLUDED))
    assert not missing, f"jax.random names without a weaktrace.random mirror: {missing}"
    stale = sorted(set(EXCLUDED) - names)
    assert not stale, f"excluded names jax.random no longer has: {stale}"
    extra = sorted(set(wr.__all__) - names)
    assert not extra, f"weaktrace.random names jax.random lacks: {extra}"


def test_primitive_objects_are_jaxs() -> None:
    """jax's ``*_p`` objects are jax's own in the mirrors (jaxpr comparisons look for them)."""
    from jax.lax import linalg as jlinalg

    import weaktrace.lax.linalg as wlinalg

    for ours, theirs in ((wr, jax.random), (wlinalg, jlinalg)):
        names = [n for n in dir(theirs) if n.endswith("_p")]
        assert names
        assert all(getattr(ours, n) is getattr(theirs, n) for n in names)


def test_every_sampler_has_cases() -> None:
    samplers = {n for n in _public_jax_random() - set(EXCLUDED)} - KEY_OPS
    covered = {c[0] for c in CASES}
    assert samplers <= covered, f"samplers without generated cases: {sorted(samplers - covered)}"


# -- case generation ----------------------------------------------------------------

F_DTYPES = (None, "float16", "bfloat16", "float32", "float64")
I_DTYPES = (None, "int8", "uint8", "int16", "int32", "int64", "uint32")
BAD_FOR_FLOAT = ("int32", "bool", "complex64")
SHAPES = ((), (3,), (2, 3))
KEY_OPS = {"key", "PRNGKey", "split", "fold_in", "key_data", "wrap_key_data", "key_impl",
           "clone", "key_dtype"}  # fmt: skip


def _param_values(shape: tuple[int, ...], low: float = 0.5) -> list[Any]:
    """Parameter values of every entry kind: weak Python scalars, numpy arrays of
    several dtypes (broadcastable to `shape`)."""
    rng = np.random.default_rng(len(shape))
    base = low + rng.random(shape[-1:] if shape else ())
    return [
        low + 1.5,
        np.float32(low + 0.25),
        np.asarray(base, np.float32),
        np.asarray(base, np.float64),
        np.asarray(base + 1.0, np.float16),
        np.asarray(2 + np.arange(int(np.prod(shape[-1:])) if shape else 1), np.int32).reshape(
            shape[-1:] if shape else ()
        ),
    ]


Case = tuple[str, dict[str, Any], dict[str, Any]]  # (name, dynamic args, static args)


def _cases() -> list[Case]:
    out: list[Case] = []
    add = out.append
    simple = ("normal", "exponential", "cauchy", "laplace", "logistic", "maxwell", "gumbel")
    for name, shape, dt in itertools.product(simple, SHAPES, F_DTYPES + BAD_FOR_FLOAT):
        add((name, {}, {"shape": shape, "dtype": dt}))
    for shape, dt in itertools.product(SHAPES, (*F_DTYPES, "complex64", "complex128")):
        add(("normal", {}, {"shape": shape, "dtype": dt}))
        add(("lognormal", {"sigma": 0.5}, {"shape": shape, "dtype": dt}))
    for mode in ("low", "high"):
        add(("gumbel", {}, {"shape": (4,), "mode": mode}))
    for shape, dt in itertools.product(SHAPES, (*I_DTYPES, "float32", "bool")):
        add(("rademacher", {}, {"shape": shape, "dtype": dt}))
    for shape, dt in itertools.product(SHAPES, (None, "uint8", "uint16", "uint32", "uint64",
                                                "int32", "float32")):  # fmt: skip
        add(("bits", {}, {"shape": shape, "dtype": dt}))
    for shape, dt in itertools.product(SHAPES, (*F_DTYPES, "int32")):
        for lo, hi in ((0.0, 1.0), (-2, 3), (np.float32(-1), np.float64(2.5))):
            add(("uniform", {"minval": lo, "maxval": hi}, {"shape": shape, "dtype": dt}))
    for shape, dt in itertools.product(SHAPES, (*I_DTYPES, "float32")):
        for lo, hi in ((0, 10), (-5, np.int32(7)), (np.int8(-3), 300), (0.5, 7.9)):
            add(("randint", {"minval": lo, "maxval": hi}, {"shape": shape, "dtype": dt}))
    one_param = {"gamma": "a", "loggamma": "a", "pareto": "b", "t": "df", "chisquare": "df",
                 "rayleigh": "scale", "wald": "mean", "poisson": "lam", "geometric": "p",
                 "lognormal": "sigma"}  # fmt: skip
    for name, pname in one_param.items():
        dts = I_DTYPES if name in ("poisson", "geometric") else F_DTYPES
        low = 0.1 if name == "geometric" else 0.5
        for shape, dt, value in itertools.product(
            (None, (3,), (2, 3)),
            (*dts, "float32" if name in ("poisson", "geometric") else "int32"),
            _param_values((3,), low),
        ):
            if name == "geometric" and not isinstance(value, float):
                value = np.clip(np.asarray(value, dtype=np.asarray(value).dtype) * 0.1, 0.05, 0.9)
            add((name, {pname: value}, {"shape": shape, "dtype": dt}))
    two_param = {"beta": ("a", "b"), "f": ("dfnum", "dfden"),
                 "truncated_normal": ("lower", "upper"), "binomial": ("n", "p")}  # fmt: skip
    for name, (p1, p2) in two_param.items():
        for shape, dt in itertools.product((None, (3,), (2, 3)), (*F_DTYPES, "int32")):
            vals = _param_values((3,))
            for v1, v2 in ((vals[0], vals[2]), (vals[3], vals[1]), (vals[5], vals[4])):
                if name == "truncated_normal":
                    v2 = v2 + 1.0
                if name == "binomial":
                    v1, v2 = (np.asarray(v1) * 5).astype(np.asarray(v1).dtype), np.asarray(v2) / 3
                add((name, {p1: v1, p2: v2}, {"shape": shape, "dtype": dt}))
    for shape, dt in itertools.product((None, (3,), (2, 3)), (*F_DTYPES, "int32")):
        add(("triangular", {"left": 0.0, "mode": np.float32(0.5), "right": np.ones(3)},
             {"shape": shape, "dtype": dt}))  # fmt: skip
    for shape, dt in itertools.product(((), (3,), (2, 3)), (*F_DTYPES, "int32")):
        for v1, v2 in ((1.0, 2.0), (np.float32(1.5), np.ones(3, np.float64)), (2, np.int32(3))):
            add(("weibull_min", {"scale": v1, "concentration": v2}, {"shape": shape, "dtype": dt}))
            add(("double_sided_maxwell", {"loc": v1, "scale": v2}, {"shape": shape, "dtype": dt}))
    for shape in (None, (), (3,), (2, 3), (4,)):
        for p in (0.3, np.float32(0.7), np.full(3, 0.4, np.float64), np.full(3, 0.4, np.float16),
                  np.int32(1), np.full((2, 3), 0.5, np.float32)):  # fmt: skip
            for mode in ("low", "high"):
                add(("bernoulli", {"p": p}, {"shape": shape, "mode": mode}))
    logits = [np.linspace(-1, 1, 4, dtype=np.float32), np.zeros((2, 4), np.float64),
              np.arange(4, dtype=np.int32), np.ones((3, 4), np.float16)]  # fmt: skip
    for lg, axis, shape, replace in itertools.product(
        logits, (-1, 0), (None, (5, 2), (2,), (4,), (1, 3)), (True, False)
    ):
        add(("categorical", {"logits": lg},
             {"axis": axis, "shape": shape, "replace": replace}))  # fmt: skip
    for alpha, shape, dt in itertools.product(
        (np.ones(3, np.float32), np.full((2, 3), 2.0), np.float32(1.0)),
        (None, (2,), (4, 2)),
        F_DTYPES,
    ):
        add(("dirichlet", {"alpha": alpha}, {"shape": shape, "dtype": dt}))
    means = [np.zeros(2, np.float32), np.arange(2.0), np.zeros((3, 2), np.float32), np.arange(2)]
    covs = [np.eye(2, dtype=np.float32), np.eye(2), np.eye(2, dtype=np.int32)]
    for mean, cov, shape, dt, method in itertools.product(
        means,
        covs,
        (None, (3,), (4, 3)),
        (None, "float32", "float64", "int32"),
        ("cholesky", "svd", "eigh", "qr"),
    ):
        add(("multivariate_normal", {"mean": mean, "cov": cov},
             {"shape": shape, "dtype": dt, "method": method}))  # fmt: skip
    for n, p, shape, dt in itertools.product(
        (5.0, np.float32(3), np.int32(4)),
        (np.full(3, 1 / 3, np.float32), np.full((2, 3), 1 / 3)),
        (None, (2, 3)),
        (None, "float32", "int32"),
    ):
        add(("multinomial", {"n": n, "p": p}, {"shape": shape, "dtype": dt}))
    for n, m, shape, dt in itertools.product((3, 4), (None, 2, 5), ((), (2,)),
                                             (*F_DTYPES, "complex64", "int32")):  # fmt: skip
        add(("orthogonal", {}, {"n": n, "m": m, "shape": shape, "dtype": dt}))
    for d, p, shape, dt in itertools.product((1, 3), (1, 2, 0.5), ((), (4,)), (*F_DTYPES, "int32")):
        add(("ball", {}, {"d": d, "p": p, "shape": shape, "dtype": dt}))
    for p, shape, dt in itertools.product((1.0, 2, 0.5), ((), (2, 3)), (*F_DTYPES, "int32")):
        add(("generalized_normal", {}, {"p": p, "shape": shape, "dtype": dt}))
    xs = [np.arange(5, dtype=np.float32), np.arange(12).reshape(3, 4), np.ones((2, 3), np.int8),
          np.ones((4,), np.float32) * 1.5]  # fmt: skip
    for x, axis, indep in itertools.product(xs, (0, -1, 1), (False, True)):
        add(("permutation", {"x": x}, {"axis": axis, "independent": indep}))
    for n in (5, 1, np.int32(7)):
        add(("permutation", {}, {"x": n}))
    add(("permutation", {}, {"x": 2.5}))
    for a, shape, replace, with_p, axis in itertools.product(
        (5, np.arange(6, dtype=np.float32), np.arange(12).reshape(3, 4), np.int16(4)),
        ((), (3,), (2, 2), (0,), (7,)),
        (True, False),
        (False, True),
        (0, 1),
    ):
        dyn: dict[str, Any] = {}
        static: dict[str, Any] = {"shape": shape, "replace": replace, "axis": axis}
        if isinstance(a, np.ndarray) and a.ndim:
            dyn["a"] = a
            size = a.shape[axis] if axis < a.ndim else 1
        else:
            static["a"] = a
            size = int(a)
        if with_p:
            dyn["p"] = np.linspace(1, 2, size, dtype=np.float32 if axis else np.float64)
        add(("choice", dyn, static))
    return out


CASES = _cases()


def _case_id(case: Case) -> str:
    name, dyn, static = case
    parts = [f"{k}={getattr(v, 'dtype', type(v).__name__)}{list(np.shape(v))}"
             for k, v in dyn.items()]  # fmt: skip
    parts += [f"{k}={v}" for k, v in static.items()]
    return f"{name}({', '.join(parts)})"


def _sample(cases: list[Case], full: bool, per_name: int, extra: int) -> list[Case]:
    """All cases, or a deterministic sample: the first `per_name` of each sampler and
    `extra` more chosen at random (seeded)."""
    if full:
        return cases
    seen: dict[str, int] = {}
    picked = []
    rest = []
    for c in cases:
        if seen.get(c[0], 0) < per_name:
            seen[c[0]] = seen.get(c[0], 0) + 1
            picked.append(c)
        else:
            rest.append(c)
    return picked + random.Random(0).sample(rest, min(extra, len(rest)))


# -- the check ----------------------------------------------------------------------


def _outcome(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn()
        except Exception as err:  # compared below
            return err


def _bits(x: Any) -> np.ndarray:
    """An array's values, a key array's data."""
    if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
        return np.asarray(jax.random.key_data(x))
    return np.asarray(x)


def _same_family(ours: BaseException, theirs: BaseException) -> bool:
    return any(isinstance(ours, f) and isinstance(theirs, f) for f in FAMILIES)


# Samplers built on jax's gamma kernel (a while loop per draw) or on a scan: each
# compilation takes seconds. CI compares their traced avals and compiled bits (two
# compilations); their eager path is compared under --run-slow (the eager path itself is
# covered in CI by the other samplers).
HEAVY = {"f", "beta", "multinomial", "t", "ball", "dirichlet", "generalized_normal", "gamma",
         "loggamma", "binomial", "chisquare", "poisson"}  # fmt: skip


def check_case(case: Case, key: Any, eager_too: bool = True) -> None:
    name, dyn, static = case
    names = list(dyn)
    jfn = getattr(jax.random, name)
    wfn = getattr(wr, name)

    def jax_f(k: Any, *vals: Any) -> Any:
        return jfn(k, **dict(zip(names, vals, strict=True)), **static)

    def wt_f(k: Any, *vals: Any) -> Any:
        return wfn(k, **dict(zip(names, vals, strict=True)), **static)

    args = (key, *dyn.values())
    where = f"{_case_id(case)} key={key.dtype} x64={jax.config.read('jax_enable_x64')}"
    want = _outcome(lambda: jax.make_jaxpr(jax_f)(*args))
    traced = wt.trace(wt_f)
    got = _outcome(lambda: traced.trace(*args))
    if isinstance(want, Exception):
        eager = _outcome(lambda: wt_f(*args))
        for what, ours in (("traced", got), ("eager", eager)):
            assert isinstance(ours, Exception), f"{where}: jax raised {want!r}, {what} did not"
            assert _same_family(ours, want), f"{where}: jax raised {want!r}, {what} {ours!r}"
        return
    assert not isinstance(got, Exception), f"{where}: jax traced, weaktrace raised {got!r}"
    (ref,) = want.out_avals
    (aval,) = jax.tree_util.tree_leaves(got.out_avals)
    assert (aval.shape, aval.dtype, aval.weak_type) == (ref.shape, ref.dtype, ref.weak_type), (
        f"{where}: traced {aval}, jax {ref.str_short()} weak={ref.weak_type}"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jitted = _outcome(lambda: _bits(jax.jit(jax_f)(*args)))
        if isinstance(jitted, Exception):  # jax traces but cannot lower (float16 qr)
            ours = _outcome(lambda: traced(*args))
            assert isinstance(ours, Exception) and _same_family(ours, jitted), (
                f"{where}: jax.jit raised {jitted!r}, compiled gave {ours!r}"
            )
            return
        runs = [("compiled", traced(*args), jitted)]
        if eager_too:
            runs.append(("eager", wt_f(*args), _bits(jax_f(*args))))
    # XLA may round differently inside a bigger fusion: compiled is compared with
    # jax.jit, eager with jax's eager call.
    for what, out, expected in runs:
        assert isinstance(out, jax.Array), f"{where}: {what} returned {type(out).__name__}"
        assert (out.shape, out.dtype) == (ref.shape, ref.dtype), f"{where}: {what} {out.dtype}"
        np.testing.assert_array_equal(_bits(out), expected, err_msg=f"{where}: {what} values")


def _keys(seed: int) -> list[Any]:
    return [jax.random.key(seed), jax.random.PRNGKey(seed)]


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_samplers_match_jax(x64: bool, full: bool) -> None:
    """Every sampler case with both key kinds (``--run-slow``); in CI one case per
    sampler, half of the samplers with x64 off and the other half with it on, typed
    and raw keys alternating, the eager comparison skipped for the HEAVY ones."""
    cases = CASES if full else _sample(CASES, False, per_name=1, extra=0)[int(x64) :: 2]
    failures = []
    with jax.enable_x64(x64):
        for i, case in enumerate(cases):
            keys = _keys(i) if full else [_keys(i)[(i // 2) % 2]]
            for k in keys:
                try:
                    check_case(case, k, eager_too=full or case[0] not in HEAVY)
                except AssertionError as err:
                    if _known(case) is None:
                        failures.append(str(err).splitlines()[0][:400])
                else:
                    assert _known(case) is None, f"{_case_id(case)} passes: drop its entry"
    assert not failures, f"{len(failures)} mismatches:\n" + "\n".join(failures)


def _known(case: Case) -> str | None:
    """The KNOWN_MISMATCHES reason of a case, if it has one."""
    cid = _case_id(case)
    return next(
        (r for (n, sub), r in KNOWN_MISMATCHES.items() if case[0] == n and sub in cid), None
    )


# -- keys in and out of traced functions ----------------------------------------------


def _jax_split_and_sample(k: Any, x: Any) -> Any:
    k1, k2 = jax.random.split(k)
    k3 = jax.random.fold_in(k2, 7)
    return k1, jax.random.normal(k3, (3,)) + x, jax.random.split(k1, (2, 2))


def _wt_split_and_sample(k: Any, x: Any) -> Any:
    k1, k2 = wr.split(k)
    k3 = wr.fold_in(k2, 7)
    return k1, wr.normal(k3, (3,)) + x, wr.split(k1, (2, 2))


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("typed", [True, False], ids=["key", "PRNGKey"])
def test_keys_in_and_out_of_a_trace(x64: bool, typed: bool) -> None:
    """Keys pass in as arguments, split/fold_in inside, keys come out: avals and
    bits as jax.jit's, compiled and eager."""
    with jax.enable_x64(x64):
        k = jax.random.key(42) if typed else jax.random.PRNGKey(42)
        x = np.float32(0.5)
        traced = wt.trace(_wt_split_and_sample)
        got = traced.trace(k, x).out_avals
        want = jax.make_jaxpr(_jax_split_and_sample)(k, x).out_avals
        assert [(a.shape, a.dtype, a.weak_type) for a in got] == [
            (r.shape, r.dtype, r.weak_type) for r in want
        ]
        jitted = [_bits(v) for v in jax.jit(_jax_split_and_sample)(k, x)]
        eager = [_bits(v) for v in _jax_split_and_sample(k, x)]
        for outs, expected in ((traced(k, x), jitted), (_wt_split_and_sample(k, x), eager)):
            assert [o.dtype for o in outs] == [r.dtype for r in want]
            for o, e in zip(outs, expected, strict=True):
                np.testing.assert_array_equal(_bits(o), e)


def test_printed_program_shows_key_dtypes() -> None:
    k = jax.random.key(0)
    text = str(wt.trace(lambda k: wr.split(k, 3)).trace(k))
    assert "a:key<fry>[]" in text and "key<fry>[3] = random_split" in text, text
    jtext = str(jax.make_jaxpr(lambda k: jax.random.split(k, 3))(k))
    assert "key<fry>[]" in jtext and "key<fry>[3]" in jtext  # jax prints them so too
    spec = jax.ShapeDtypeStruct((4,), k.dtype)
    assert "a:key<fry>[4]" in str(wt.trace(lambda k: k).trace(spec))


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_key_constructors_and_data(x64: bool) -> None:
    """key / PRNGKey / key_data / wrap_key_data / clone / key_impl, eager and traced,
    with Python-int seeds (static, all 64 bits) and traced seeds."""
    with jax.enable_x64(x64):
        for seed in (0, 7, 2**40 + 3, -5):
            for ours, theirs in ((wr.key, jax.random.key), (wr.PRNGKey, jax.random.PRNGKey)):
                np.testing.assert_array_equal(_bits(ours(seed)), _bits(theirs(seed)))
                out = wt.trace(lambda f=ours, s=seed: f(s))()
                np.testing.assert_array_equal(_bits(out), _bits(theirs(seed)))
        seed = np.int32(11)
        for ours, theirs in ((wr.key, jax.random.key), (wr.PRNGKey, jax.random.PRNGKey)):
            traced = wt.trace(ours)
            want = jax.make_jaxpr(theirs)(seed).out_avals[0]
            got = traced.trace(seed).out_avals
            assert (got.shape, got.dtype) == (want.shape, want.dtype)
            np.testing.assert_array_equal(_bits(traced(seed)), _bits(theirs(seed)))
        k = jax.random.split(jax.random.key(3), 4)
        data = jax.random.key_data(k)
        for fn, jfn, arg in (
            (wr.key_data, jax.random.key_data, k),
            (wr.clone, jax.random.clone, k),
            (lambda d: wr.wrap_key_data(d), lambda d: jax.random.wrap_key_data(d), data),
            (wr.key_data, jax.random.key_data, jax.random.PRNGKey(1)),
        ):
            want = jax.make_jaxpr(jfn)(arg).out_avals[0]
            got = wt.trace(fn).trace(arg).out_avals
            assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, False)
            np.testing.assert_array_equal(_bits(wt.trace(fn)(arg)), _bits(jfn(arg)))
            np.testing.assert_array_equal(_bits(fn(arg)), _bits(jfn(arg)))
        for arg in (k, jax.random.PRNGKey(0), jax.random.key(0, impl="rbg")):
            assert wr.key_impl(arg) == jax.random.key_impl(arg)
        assert wr.key_dtype("rbg") == jax.random.key_dtype("rbg")


def test_other_key_implementations() -> None:
    """rbg keys (key<rbg>, 4 words of data) trace and sample as jax's."""
    k = jax.random.key(5, impl="rbg")
    f = wt.trace(lambda k: (wr.split(k), wr.uniform(k, (3,))))
    got = f.trace(k).out_avals
    assert str(got[0]) == "key<rbg>[2]"
    for a, b in zip(f(k), (jax.random.split(k), jax.random.uniform(k, (3,))), strict=True):
        np.testing.assert_array_equal(_bits(a), _bits(b))


@pytest.mark.parametrize("policy", ["jax", "numpy", "torch"])
def test_keys_do_not_promote(policy: str) -> None:
    """A key joins no lattice: promoting it raises TypePromotionError (jax raises its
    own TypePromotionError-like ValueError); arithmetic on it raises."""
    k = jax.random.key(0)
    with pytest.raises(ValueError):
        jax.dtypes.result_type(k, 1.0)
    with pytest.raises(wt.TypePromotionError):
        wt.result_type(k, 1.0, policy=policy)
    with pytest.raises(wt.TypePromotionError):
        wt.result_type(k, np.float32(1), policy=policy)
    with pytest.raises(TypeError):
        jax.jit(lambda k: k + 1)(k)
    with pytest.raises((TypeError, ValueError)):
        wt.trace(lambda k: k + 1, policy=policy).trace(k)


def test_key_errors_as_jax() -> None:
    """Batched keys where one is needed, bad raw keys, array seeds: jax's families."""
    ks = jax.random.split(jax.random.key(0), 3)
    cases = [
        (lambda k: jax.random.normal(k, (2,)), lambda k: wr.normal(k, (2,)), ks),
        (lambda k: jax.random.split(k), lambda k: wr.split(k), ks),
        (lambda k: jax.random.fold_in(k, np.arange(2)), lambda k: wr.fold_in(k, np.arange(2)),
         jax.random.key(0)),
        (lambda k: jax.random.normal(k), lambda k: wr.normal(k), np.zeros(3, np.uint32)),
        (lambda s: jax.random.key(s), lambda s: wr.key(s), np.arange(2)),
    ]  # fmt: skip
    for jfn, wfn, arg in cases:
        want = _outcome(lambda: jax.make_jaxpr(jfn)(arg))  # noqa: B023
        got = _outcome(lambda: wt.trace(wfn).trace(arg))  # noqa: B023
        assert isinstance(want, Exception) and isinstance(got, Exception), (want, got)
        assert _same_family(got, want), (want, got)


def test_keys_through_indexing_and_control_flow() -> None:
    """Key arrays index and slice like arrays; a key is a loop carry."""
    k = jax.random.key(1)

    def jax_f(k: Any) -> Any:
        ks = jax.random.split(k, 4)
        k = jax.lax.fori_loop(0, 3, lambda i, k: jax.random.fold_in(k, i), ks[2])
        return ks[1:3], jax.random.uniform(k)

    def wt_f(k: Any) -> Any:
        ks = wr.split(k, 4)
        k = wt.lax.fori_loop(0, 3, lambda i, k: wr.fold_in(k, i), ks[2])
        return ks[1:3], wr.uniform(k)

    for a, b in zip(wt.trace(wt_f)(k), jax.jit(jax_f)(k), strict=True):
        np.testing.assert_array_equal(_bits(a), _bits(b))
