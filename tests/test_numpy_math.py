"""Elementwise math mirrors (weaktrace/numpy/math.py) against jax.numpy, eager and
traced, over every dtype (bool, ints, uints, bf16, f16, f32, f64, complex, weak Python
scalars), shapes and keyword values, x64 off and on (tests/mirror_harness.py).

CI runs a deterministic sample of each sweep; ``--run-slow`` runs all of it.
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.math_cases import KINDS, SCALARS, SHAPES, product, values, with_x64
from tests.mirror_harness import check

UNARY = [
    "arcsinh", "arccosh", "arctanh", "asinh", "acosh", "atanh", "acos", "asin", "atan",
    "fabs", "signbit", "spacing", "frexp", "modf", "sinc", "deg2rad", "rad2deg", "degrees",
    "radians", "rint", "i0", "nan_to_num", "bitwise_count", "bitwise_invert", "isposinf",
    "isneginf", "isreal", "iscomplex", "angle", "around",
]  # fmt: skip
BINARY = [
    "logaddexp", "logaddexp2", "hypot", "copysign", "nextafter", "ldexp", "divmod", "fmod",
    "fmax", "fmin", "heaviside", "float_power", "gcd", "lcm", "isclose", "allclose", "atan2",
    "bitwise_left_shift", "bitwise_right_shift",
]  # fmt: skip

# Calls with keyword values: (label, f(module, *args), args).
KEYWORDS = [
    ("isclose rtol atol", lambda m, a, b: m.isclose(a, b, rtol=0.1, atol=0.5), ("float32", "int8")),
    ("isclose equal_nan", lambda m, a, b: m.isclose(a, b, equal_nan=True), ("float16", "float16")),
    ("isclose traced", lambda m, a, b, t: m.isclose(a, b, t), ("float32", "float32", "py_float")),
    ("isclose complex", lambda m, a, b: m.isclose(a, b, atol=2.0), ("complex64", "float32")),
    ("allclose nan", lambda m, a, b: m.allclose(a, b, equal_nan=True), ("bfloat16", "py_int")),
    ("nan_to_num values", lambda m, a: m.nan_to_num(a, nan=-1.0, posinf=9, neginf=-9),
     ("float32",)),
    ("nan_to_num complex", lambda m, a: m.nan_to_num(a, nan=2.5), ("complex64",)),
    ("nan_to_num traced", lambda m, a, v: m.nan_to_num(a, nan=v, posinf=v), ("float16", "float32")),
    ("nan_to_num int", lambda m, a: m.nan_to_num(a, nan=1.5), ("int16",)),
    ("angle deg", lambda m, a: m.angle(a, deg=True), ("complex64",)),
    ("angle deg int", lambda m, a: m.angle(a, True), ("int8",)),
    ("around decimals", lambda m, a: m.around(a, decimals=2), ("float32",)),
    ("around negative", lambda m, a: m.around(a, -1), ("float64",)),
    ("around f16", lambda m, a: m.around(a, 1), ("float16",)),
    ("around overflowing decimals", lambda m, a: m.around(a, 5), ("float16",)),
    ("around complex", lambda m, a: m.around(a, 2), ("complex64",)),
    ("around int", lambda m, a: m.around(a, 3), ("py_int",)),
    ("modf tuple", lambda m, a: m.modf(a), ("float16",)),
    ("frexp weak", lambda m, a: m.frexp(a), ("py_float",)),
    ("divmod ints", lambda m, a, b: m.divmod(a, b), ("int8", "int8")),
    ("ldexp weak", lambda m, a, b: m.ldexp(a, b), ("py_float", "int32")),
    ("spacing f16", lambda m, a: m.spacing(a), ("float16",)),
    ("gcd broadcast", lambda m, a, b: m.gcd(a, b), ("int16", "py_int")),
    ("signbit weak", lambda m, a: m.signbit(a), ("py_float",)),
]  # fmt: skip

# Where weaktrace disagrees with jax: (function, kinds, x64) -> reason. None known in the
# functions of weaktrace/numpy/math.py; see ROUND_CASES for one outside it.
KNOWN_MISMATCHES: dict[tuple[str, tuple[str, ...], bool], str] = {}


def _arg(kind: str, shape: tuple[int, ...], seed: int) -> object:
    return values(kind, () if kind in SCALARS else shape, seed=seed)


def _tolerance(args: tuple[object, ...]) -> dict[str, float]:
    """f16/bf16 results may differ in the last bit: XLA keeps fused intermediates in f32
    under jit, weaktrace's eager run rounds each primitive (as jax's eager does)."""
    names = {str(getattr(a, "dtype", "")) for a in args}
    if names & {"float16", "bfloat16"}:
        return {"rtol": 1e-2, "atol": 1e-2}
    return {"rtol": 1e-5, "atol": 1e-6}


def _cases(names: list[str], arity: int) -> list[tuple[str, tuple[str, ...], tuple[int, ...]]]:
    out = []
    for name in names:
        kinds = product(*[KINDS] * arity)
        for i, ks in enumerate(kinds):
            out.append((name, ks, SHAPES[1 + i % 2] if arity == 1 else ((2, 3), (3,))[i % 2]))
    return out


UNARY_CASES = _cases(UNARY, 1)
BINARY_CASES = _cases(BINARY, 2)


def _ids(cases: list[tuple[tuple[str, tuple[str, ...], object], bool]]) -> list[str]:
    return [f"{c[0]}-{'-'.join(c[1])}-{'x64' if x64 else 'x32'}" for c, x64 in cases]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    full = full_run(metafunc.config)
    for name, cases, n in (("unary_case", UNARY_CASES, 26), ("binary_case", BINARY_CASES, 26),
                           ("keyword_case", KEYWORDS, len(KEYWORDS))):  # fmt: skip
        if name in metafunc.fixturenames:
            picked = with_x64(cases, n, full)
            ids = _ids(picked) if name != "keyword_case" else [
                f"{c[0]}-{'x64' if x64 else 'x32'}" for c, x64 in picked]  # fmt: skip
            metafunc.parametrize(name, picked, ids=ids)


def _run(name: str, f, kinds: tuple[str, ...], shape: tuple[int, ...], x64: bool) -> None:
    args = tuple(_arg(k, shape, seed=i) for i, k in enumerate(kinds))
    reason = KNOWN_MISMATCHES.get((name, kinds, x64))
    if reason:
        pytest.xfail(reason)
    with jax.enable_x64(x64):
        check(lambda *a: f(wnp, *a), lambda *a: f(jnp, *a), *args, context=name, **_tolerance(args))


def test_unary(unary_case):
    (name, kinds, shape), x64 = unary_case
    _run(name, lambda m, a: getattr(m, name)(a), kinds, shape, x64)


def test_binary(binary_case):
    (name, kinds, shape), x64 = binary_case
    _run(name, lambda m, a, b: getattr(m, name)(a, b), kinds, shape, x64)


def test_keywords(keyword_case):
    (label, f, kinds), x64 = keyword_case
    _run(label, f, kinds, (2, 3), x64)


def test_aliases_are_twins_of_their_targets():
    """jax.numpy's aliases are functions of their own (``jnp.acos.__name__ == "acos"``):
    weaktrace's share their target's code and closure under their own name."""
    pairs = [("acos", "arccos"), ("asin", "arcsin"), ("atan", "arctan"), ("atan2", "arctan2"),
             ("asinh", "arcsinh"), ("acosh", "arccosh"), ("atanh", "arctanh"),
             ("bitwise_invert", "bitwise_not"), ("bitwise_left_shift", "left_shift"),
             ("bitwise_right_shift", "right_shift")]  # fmt: skip
    for alias, target in pairs:
        a, t = getattr(wnp, alias), getattr(wnp, target)
        assert a.__code__ is t.__code__ and a.__name__ == getattr(jnp, alias).__name__, alias
        assert alias in wnp.__all__


@pytest.mark.parametrize("kind", KINDS)
def test_iscomplexobj_isrealobj_are_python_bools(kind):
    x = _arg(kind, (2,), 0)
    for name in ("iscomplexobj", "isrealobj"):
        theirs = getattr(jnp, name)(x)
        assert getattr(wnp, name)(x) is theirs
        seen = []

        def f(a, name=name, seen=seen):
            seen.append(getattr(wnp, name)(a))
            return wnp.real(a)

        wt.trace(f).trace(x)
        assert seen == [theirs], (name, kind)
    assert wnp.iscomplexobj(None) is jnp.iscomplexobj(None)


# -- dtypes come from the policy in force (numpy's rules under policy("numpy")) --------

NUMPY_POLICY = [
    ("hypot", ("int8", "float32")), ("logaddexp", ("int16", "float16")),
    ("copysign", ("uint8", "float16")), ("float_power", ("int8", "int8")),
    ("fmax", ("int8", "uint8")), ("fmod", ("uint16", "int8")), ("heaviside", ("int8", "float32")),
    ("deg2rad", ("int16",)), ("arcsinh", ("uint8",)), ("modf", ("int8",)),
    ("gcd", ("int8", "uint8")), ("spacing", ("uint16",)), ("divmod", ("uint8", "int8")),
]  # fmt: skip


@pytest.mark.parametrize(("name", "kinds"), NUMPY_POLICY, ids=[c[0] for c in NUMPY_POLICY])
def test_dtypes_follow_the_numpy_policy(name, kinds):
    args = [_arg(k, (3,), i) for i, k in enumerate(kinds)]
    traced = wt.trace(lambda *a: getattr(wnp, name)(*a), policy=wt.policy("numpy"))
    ours = jax.tree_util.tree_leaves(traced.trace(*args).out_avals)
    expected = getattr(np, name)(*args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert [a.dtype for a in ours] == [np.asarray(e).dtype for e in expected], (name, kinds)
    assert [a.shape for a in ours] == [np.shape(e) for e in expected], (name, kinds)


# -- errors jax raises, weaktrace raises (same family or a named weaktrace error) ------

ERRORS = [
    ("copysign complex", lambda m, a: m.copysign(a, 1.0), "complex64"),
    ("hypot complex", lambda m, a: m.hypot(a, a), "complex64"),
    ("fabs complex", lambda m, a: m.fabs(a), "complex64"),
    ("frexp complex", lambda m, a: m.frexp(a), "complex64"),
    ("ldexp float exponent", lambda m, a: m.ldexp(a, 1.5), "float32"),
    ("signbit complex", lambda m, a: m.signbit(a), "complex64"),
    ("spacing complex", lambda m, a: m.spacing(a), "complex64"),
    ("gcd floats", lambda m, a: m.gcd(a, a), "float32"),
    ("lcm bools", lambda m, a: m.lcm(a, a), "bool"),
    ("isposinf complex", lambda m, a: m.isposinf(a), "complex64"),
    ("i0 complex", lambda m, a: m.i0(a), "complex64"),
    ("nextafter complex", lambda m, a: m.nextafter(a, a), "complex64"),
    ("fmod complex", lambda m, a: m.fmod(a, a), "complex64"),
    ("heaviside complex", lambda m, a: m.heaviside(a, a), "complex64"),
    ("modf out", lambda m, a: m.modf(a, out=a), "float32"),
]  # fmt: skip


@pytest.mark.parametrize(("label", "f", "kind"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_jax(label, f, kind):
    x = _arg(kind, (3,), 0)
    with pytest.raises(Exception):  # noqa: B017 (the oracle must raise too)
        jax.jit(lambda a: f(jnp, a))(x)
    check(lambda a: f(wnp, a), lambda a: f(jnp, a), x, context=label)


# -- weaktrace.numpy.round (weaktrace/numpy/ufuncs.py) against jax.numpy.round -----------
# around (math.py) and round (ufuncs.py) both follow jax's round: float16 scales in float32,
# decimals beyond the dtype's precision leave the value unchanged.
ROUND_MISMATCH: dict[str, str] = {}
ROUND_CASES = [("float16 decimals=1", "float16", 1), ("float32 decimals=39", "float32", 39),
               ("float32 decimals=2", "float32", 2), ("complex64 decimals=-1", "complex64", -1),
               ("float16 decimals=0", "float16", 0)]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "decimals"),
    [pytest.param(k, d, id=label, marks=[pytest.mark.xfail(strict=True,
                                                            reason=ROUND_MISMATCH[label])]
                  if label in ROUND_MISMATCH else [])
     for label, k, d in ROUND_CASES],
)  # fmt: skip
def test_round_matches_jax(kind, decimals):
    x = np.array([1.23456, -2.5, 100.7, 2.35, 12345.0]).astype(kind)
    check(lambda a: wnp.round(a, decimals), lambda a: jnp.round(a, decimals), x, rtol=0, atol=0)


# -- tuple results of a call on constants inside a trace ---------------------------------
# A tuple result of a call with no tracer argument, inside a trace, holds that trace's
# tracers: they must stay tracers (not be handed back as jax values).
TUPLE_CALLS = {
    "modf": lambda c: wnp.modf(c)[0],
    "frexp": lambda c: wnp.frexp(c)[0],
    "divmod": lambda c: wnp.divmod(c, 2.0)[1],
    "gradient": lambda c: wnp.gradient(np.stack([c, c]))[0],
    "average returned": lambda c: wnp.average(c, returned=True)[0],
}


@pytest.mark.parametrize("name", sorted(TUPLE_CALLS))
def test_tuple_results_on_constants_inside_a_trace(name):
    c = np.linspace(0.5, 4.0, 3, dtype=np.float32)
    f = TUPLE_CALLS[name]
    ours = wt.trace(lambda x: f(c) + x).trace(np.float32(1)).out_avals
    theirs = jax.make_jaxpr(
        lambda x: (
            {  # the same programs in jax.numpy
                "modf": lambda: jnp.modf(c)[0],
                "frexp": lambda: jnp.frexp(c)[0],
                "divmod": lambda: jnp.divmod(c, 2.0)[1],
                "gradient": lambda: jnp.gradient(np.stack([c, c]))[0],
                "average returned": lambda: jnp.average(c, returned=True)[0],
            }[name]()
            + x
        )
    )(np.float32(1)).out_avals[0]
    assert (ours.shape, ours.dtype, ours.weak_type) == (
        theirs.shape,
        theirs.dtype,
        theirs.weak_type,
    )


# -- signatures: the parameter names, kinds and defaults of jax.numpy's functions ---------
MY_MODULES = ("math", "integers", "math_arrays", "contractions", "einsums", "reductions",
              "statistics", "cumulative")  # fmt: skip


def _params(fn) -> list[tuple[str, object, object]]:
    sig = inspect.signature(fn)
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()
            if not p.name.startswith("_")]  # fmt: skip


def test_signatures_match_jax():
    def module(n: str) -> str:
        return getattr(getattr(wnp, n), "__module__", "").rsplit(".", 1)[-1]

    names = sorted(n for n in wnp.__all__ if module(n) in MY_MODULES)
    assert len(names) > 90
    for n in names:
        theirs = getattr(jnp, n)
        if isinstance(theirs, jnp.ufunc):  # a ufunc object: (*args, out=None, where=None)
            ours = [p for p in _params(getattr(wnp, n)) if p[1] is inspect.Parameter.KEYWORD_ONLY]
            assert ours == [p for p in _params(theirs.__call__) if p[1] is p[1].KEYWORD_ONLY], n
            continue
        assert _params(getattr(wnp, n)) == _params(theirs), n


# -- jnp.array of a list is strong (weaktrace/numpy/creation.py) ------------------------
# jnp.array/asarray of a list of weak values gives a strong array (weak_type is only kept
# for a weakly typed object itself).
@pytest.mark.parametrize("name", ["array", "asarray"])
def test_array_of_weak_list_is_strong(name):
    ours = wt.trace(lambda x: getattr(wnp, name)([x, x])).trace(2.0).out_avals
    theirs = jax.make_jaxpr(lambda x: getattr(jnp, name)([x, x]))(2.0).out_avals[0]
    assert ours.weak_type == theirs.weak_type


# -- eager power with a concrete integer exponent (weaktrace/core/eager_jit.py) ----------
# jnp.power branches on a concrete integer exponent (integer_pow; a negative one is an
# error for integer bases). An eager call compiled whole would see the exponent traced.
@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32", "bool"])
@pytest.mark.parametrize("y", [-2, -1, 0, 1, 3, np.int32(-1), np.int8(2), True])
def test_eager_power_with_concrete_integer_exponent(dtype, y):
    x = jnp.asarray(np.array([1, 2, 3]).astype(dtype))

    def outcome(fn):
        try:
            out = fn(x, y)
        except TypeError as err:
            return type(err).__mro__[-3:], None
        return np.asarray(out).dtype, np.asarray(out).tolist()

    theirs = outcome(jnp.power)
    ours = outcome(wnp.power)
    if theirs[1] is None:
        assert ours[1] is None, f"jax raises, weaktrace gives {ours}"
    else:
        assert ours == theirs
