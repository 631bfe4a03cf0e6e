"""weaktrace.numpy's dtype names, scalar types, constants and dtype functions against
jax.numpy, listed and computed at test time.

Scalar types (``wnp.float32`` ...) must act as jax.numpy's: equal and hash-equal to
numpy's scalar type, usable as ``dtype=`` in weaktrace, numpy and jax, and callable
(``wnp.float32(x)`` is ``jnp.float32(x)``: eager, and on traced values). The dtype
functions are compared case by case; ``promote_types`` / ``result_type`` also under
the policy of a trace (numpy's, strict jax's).
"""

from __future__ import annotations

import itertools
import math
import random
import warnings
import zlib

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.mirror_fast import agree, family, run, same_values

X64 = [False, True]
SCALAR_NAMES = sorted(n for n in dir(jnp) if type(getattr(jnp, n)).__name__ == "_ScalarMeta")
ABSTRACT_NAMES = sorted(
    n
    for n in dir(jnp)
    if not n.startswith("_")
    and isinstance(getattr(jnp, n), type)
    and issubclass(getattr(jnp, n), np.generic)
    and n not in SCALAR_NAMES
)
CONSTANTS = ["inf", "nan", "pi", "e", "euler_gamma", "newaxis"]


def test_the_oracle_lists_what_we_expect():
    """The generated lists are not empty (a jax change would silently shrink them)."""
    assert {"float32", "bfloat16", "int4", "bool_", "cdouble", "float_"} <= set(SCALAR_NAMES)
    assert {"floating", "integer", "generic", "number", "object_"} <= set(ABSTRACT_NAMES)


@pytest.mark.parametrize("name", SCALAR_NAMES)
def test_scalar_type_matches_jax(name):
    ours, theirs = getattr(wnp, name), getattr(jnp, name)
    assert np.dtype(ours) == np.dtype(theirs)
    assert ours.dtype == theirs.dtype
    assert ours.__name__ == theirs.__name__
    assert ours == theirs and theirs == ours and (ours != theirs) is False
    assert ours == theirs.dtype.type and hash(ours) == hash(theirs)
    assert {theirs.dtype.type: 1}[ours] == 1
    assert ours.__module__ == "weaktrace.numpy"
    for value in (np.zeros((), theirs.dtype)[()], np.float32(1), 1.0, jnp.zeros(2)):
        assert isinstance(value, ours) == isinstance(value, theirs), value


@pytest.mark.parametrize("name", ABSTRACT_NAMES)
def test_abstract_classes_are_numpys(name):
    assert getattr(wnp, name) is getattr(jnp, name)


@pytest.mark.parametrize("name", CONSTANTS)
def test_constants(name):
    ours, theirs = getattr(wnp, name), getattr(jnp, name)
    if isinstance(theirs, float) and math.isnan(theirs):
        assert isinstance(ours, float) and math.isnan(ours)
    else:
        assert ours == theirs and type(ours) is type(theirs)


def test_numpy_objects_as_jax_has_them():
    for name in ("dtype", "can_cast", "ComplexWarning", "finfo", "iinfo"):
        assert getattr(wnp, name) is getattr(jnp, name), name


FLOATS = [n for n in SCALAR_NAMES if np.dtype(getattr(jnp, n)).kind in "fcV"
          and n not in ("bool", "bool_") and "int" not in n]  # fmt: skip
INTS = [n for n in SCALAR_NAMES if "int" in n]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo(name):
    ours, theirs = wnp.finfo(getattr(wnp, name)), jnp.finfo(getattr(jnp, name))
    for field in ("bits", "eps", "max", "min", "tiny", "resolution", "dtype", "nmant", "nexp"):
        assert str(getattr(ours, field)) == str(getattr(theirs, field)), field


@pytest.mark.parametrize("name", INTS)
def test_iinfo(name):
    ours, theirs = wnp.iinfo(getattr(wnp, name)), jnp.iinfo(getattr(jnp, name))
    assert (ours.min, ours.max, ours.bits, ours.dtype) == (
        theirs.min, theirs.max, theirs.bits, theirs.dtype)  # fmt: skip


@pytest.mark.parametrize("x64", X64)
def test_finfo_iinfo_of_traced_values(x64):
    def probe(xnp, seen):
        def f(a, i):
            seen.extend([xnp.finfo(a).eps, xnp.finfo(a.dtype).max, xnp.iinfo(i).max])
            return a

        return f

    ours, theirs = [], []
    with jax.enable_x64(x64):
        args = (np.ones(2, ml_dtypes.bfloat16), np.ones(2, np.int16))
        wt.trace(probe(wnp, ours)).trace(*args)
        jax.jit(probe(jnp, theirs))(*args)
    assert ours == theirs


# -- scalar types as dtype= --------------------------------------------------------


def modes(name: str, full: bool) -> list[bool]:
    """The x64 modes a per-name test runs: both, or (CI) one chosen by the name."""
    return X64 if full else [zlib.crc32(name.encode()) % 2 == 0]


@pytest.mark.parametrize("name", SCALAR_NAMES)
def test_scalar_type_as_dtype_everywhere(name, full):
    ours, theirs = getattr(wnp, name), getattr(jnp, name)
    for x64 in modes(name, full):
        _as_dtype(ours, theirs, name, x64)


def _as_dtype(ours, theirs, name, x64):
    with jax.enable_x64(x64):
        assert np.zeros(2, dtype=ours).dtype == np.zeros(2, dtype=theirs).dtype
        # (jax cannot make float6 arrays on CPU: then both fail alike)
        made = [_outcome(lambda t=t: jnp.zeros(2, t))[:3] for t in (ours, theirs)]
        if name in ("int1", "uint1"):
            jax.clear_caches()  # jax's dispatch cache confuses int1 and bool (see ONE_BIT)
        assert made[0] == made[1]
        assert jax.ShapeDtypeStruct((2,), ours).dtype == jax.ShapeDtypeStruct((2,), theirs).dtype
        agree(lambda a: wnp.zeros(2, dtype=ours) + a.astype(ours),
              lambda a: jnp.zeros(2, dtype=theirs) + a.astype(theirs),
              np.arange(2, dtype=np.int8), context=name, values=False)  # fmt: skip


# -- calling a scalar type -----------------------------------------------------------

CALL_VALUES = {
    "py_int": 3, "py_neg_int": -1, "py_big_int": 300, "py_huge_int": 2**40,
    "py_float": 2.7, "py_neg_float": -1.5, "py_bool": True, "py_complex": 1 + 2j,
    "list": [1, 2.5], "nested_list": [[1, 2], [3, 4]], "bool_list": [True, False],
    "big_list": [1, 300], "empty_list": [], "tuple": (1, 2), "string": "1.5",
    "none": None, "list_with_none": [1, None], "np_f64": np.float64(2.5),
    "np_i64_array": np.arange(3), "np_f16_array": np.linspace(-2, 2, 4).astype(np.float16),
    "np_c64_array": np.array([1j, 2 + 0j], np.complex64), "np_bool": np.bool_(True),
    "jax_f32": jnp.arange(3.0), "jax_weak": jnp.asarray(2.5), "jax_c64": jnp.array([1j, 0j]),
    "jax_list": [jnp.float32(1), 2],
}  # fmt: skip


def _outcome(fn):
    out = run(fn)
    if isinstance(out, Exception):
        return ("error", family(out))
    return ("value", np.asarray(out).dtype, out.shape, bool(getattr(out, "weak_type", False)), out)


# jax 0.10.2's dispatch cache does not tell int1 from bool jax arrays: after
# ``jax.jit(f)(bool_array)``, ``jax.jit(f)(int1_array)`` returns bool (and the other way
# round), so computations on int1/uint1 jax arrays depend on what ran before. Those are
# left out of the value comparisons (the oracle is not reliable there).
ONE_BIT = {"int1", "uint1"}
# XLA's CPU aborts the process (a check failure, not an exception) concatenating 2-bit
# integers; it has no float6 at all (that raises).
ABORTS = {"int2", "uint2"}
# Whether values of a dtype can be computed and compared here.
RUNS = {
    n: n not in ONE_BIT | ABORTS
    and not isinstance(run(lambda n=n: jnp.zeros(1, getattr(jnp, n)) + 0), Exception)
    for n in SCALAR_NAMES
}


CALL_CASES = [
    (t, v, x64)
    for t in SCALAR_NAMES
    for v in CALL_VALUES
    for x64 in X64
    if RUNS[t] or not v.startswith("jax")
]


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ == "test_calling_a_scalar_type_eagerly":
        full = full_run(metafunc.config)
        cases = CALL_CASES if full else random.Random(0).sample(CALL_CASES, 150)
        metafunc.parametrize(("name", "value", "x64"), cases)


def test_calling_a_scalar_type_eagerly(name, value, x64):
    v = CALL_VALUES[value]
    with jax.enable_x64(x64):
        ours = _outcome(lambda: getattr(wnp, name)(v))
        theirs = _outcome(lambda: getattr(jnp, name)(v))
    assert ours[:4] == theirs[:4], f"{name}({value}): weaktrace {ours[:4]}, jax {theirs[:4]}"
    if ours[0] == "value":
        assert isinstance(ours[4], jax.Array)
        same_values(ours[4], theirs[4], f"{name}({value})")


TRACE_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint32", "bfloat16", "float16",
                "float32", "float64", "complex64"]  # fmt: skip


def _arg(dtype: str):
    dt = np.dtype(getattr(ml_dtypes, dtype, None) or dtype)
    return (np.arange(-2, 4) * 1.75).astype(dt)


@pytest.mark.parametrize("name", SCALAR_NAMES)
def test_calling_a_scalar_type_on_traced_values(name, full):
    rng = random.Random(name)
    dtypes = TRACE_DTYPES if full else rng.sample(TRACE_DTYPES, 4)
    for x64 in modes(name, full):
        _call_traced(name, x64, dtypes, rng)


def _call_traced(name, x64, dtypes, rng):
    ours, theirs = getattr(wnp, name), getattr(jnp, name)
    with jax.enable_x64(x64):
        for dtype in dtypes:
            values = rng.random() < 0.05 and RUNS[name]  # a sample of the value comparisons
            agree(lambda a: ours(a), lambda a: theirs(a), _arg(dtype),
                  context=f"{name}({dtype} tracer)", values=values)  # fmt: skip
        for arg in (2.5, 3, True):  # weak traced scalars (and a strong bool)
            agree(lambda a: ours(a), lambda a: theirs(a), arg, context=f"{name}({arg!r})",
                  values=False)  # fmt: skip
        agree(lambda a: ours([a, 1, a]), lambda a: theirs([a, 1, a]), np.float32(1.5),
              context=f"{name}([tracer, 1, tracer])", values=False)  # fmt: skip
        agree(lambda a: ours(2) + a, lambda a: theirs(2) + a, np.int8(1),
              context=f"{name}(2) + int8", values=False)  # fmt: skip


# -- dtype predicates -----------------------------------------------------------------

_POOL = [
    *[("scalar", n) for n in SCALAR_NAMES],
    *[("abstract", n) for n in ABSTRACT_NAMES],
    *[("string", s) for s in ("float32", "bfloat16", "int4", "complex64", "bool", "uint8")],
    *[("numpy", t) for t in (np.dtype("float16"), np.dtype(ml_dtypes.float8_e4m3fn),
                             np.int64, np.dtype("uint4"))],
    *[("python", t) for t in (int, float, complex, bool)],
]  # fmt: skip


def _resolve(entry, xnp):
    kind, v = entry
    return getattr(xnp, v) if kind in ("scalar", "abstract") else v


ISSUB_CASES = list(itertools.product(_POOL, _POOL))


def test_issubdtype_as_jax(full):
    cases = ISSUB_CASES if full else random.Random(0).sample(ISSUB_CASES, 1500)
    for a, b in cases:
        ours = run(lambda a=a, b=b: wnp.issubdtype(_resolve(a, wnp), _resolve(b, wnp)))
        theirs = run(lambda a=a, b=b: jnp.issubdtype(_resolve(a, jnp), _resolve(b, jnp)))
        if isinstance(theirs, Exception):
            assert isinstance(ours, family(theirs)), (a, b, theirs, ours)
        else:
            assert ours is theirs, f"issubdtype{(a, b)}: weaktrace {ours}, jax {theirs}"


KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", ("bool", "real floating"), "float32", np.int8,
         ("complex floating", np.dtype("int4")), "not a kind", 3.5]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_isdtype_as_jax(kind):
    for entry in _POOL:
        if entry[0] in ("abstract", "python"):
            continue
        ours = run(lambda e=entry: wnp.isdtype(_resolve(e, wnp), kind))
        theirs = run(lambda e=entry: jnp.isdtype(_resolve(e, jnp), kind))
        if isinstance(theirs, Exception):
            assert isinstance(ours, family(theirs)), (entry, theirs, ours)
        else:
            assert ours is theirs, f"isdtype({entry}, {kind!r}): weaktrace {ours}, jax {theirs}"


@pytest.mark.parametrize("casting", ["safe", "same_kind", "unsafe"])
def test_can_cast_with_our_scalar_types(casting):
    for a, b in itertools.product(SCALAR_NAMES, repeat=2):
        ours = run(lambda a=a, b=b: wnp.can_cast(getattr(wnp, a), getattr(wnp, b), casting))
        assert ours == jnp.can_cast(getattr(jnp, a), getattr(jnp, b), casting), (a, b)


# -- promotion -----------------------------------------------------------------------

PROMOTE_POOL = [("scalar", n) for n in SCALAR_NAMES if n not in ("bool",)] + [
    ("string", "float16"), ("numpy", np.dtype("int16")), ("python", int), ("python", float),
    ("python", complex), ("python", bool),
]  # fmt: skip
VALUE_POOL = [2, 2.5, 1j, True, np.float16(1), np.int64(3), np.ones(2, np.uint8),
              jnp.asarray(1.5), jnp.ones(2, jnp.bfloat16), jnp.asarray(2)]  # fmt: skip


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("x64", X64)
def test_promote_types_as_jax(x64, strict):
    mode = "strict" if strict else "standard"
    with warnings.catch_warnings(), jax.enable_x64(x64), jax.numpy_dtype_promotion(mode):
        warnings.simplefilter("ignore")
        for a, b in itertools.product(PROMOTE_POOL, repeat=2):
            ours = run(lambda a=a, b=b: wnp.promote_types(_resolve(a, wnp), _resolve(b, wnp)))
            theirs = run(lambda a=a, b=b: jnp.promote_types(_resolve(a, jnp), _resolve(b, jnp)))
            if isinstance(theirs, Exception):
                assert isinstance(ours, family(theirs)), (a, b, theirs, ours)
            else:
                assert ours == theirs, f"promote_types{(a, b)}: weaktrace {ours}, jax {theirs}"


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("x64", X64)
def test_result_type_as_jax(x64, strict, full):
    mode = "strict" if strict else "standard"
    pool = [("type", e) for e in PROMOTE_POOL] + [("value", v) for v in VALUE_POOL]
    triples = list(itertools.product(pool, repeat=3))
    cases = [c[:k] for c in triples for k in (1, 2, 3)]
    if not full:
        cases = random.Random(1).sample(cases, 1500)

    def args(case, xnp):
        return [_resolve(e, xnp) if k == "type" else e for k, e in case]

    with warnings.catch_warnings(), jax.enable_x64(x64), jax.numpy_dtype_promotion(mode):
        warnings.simplefilter("ignore")
        for case in cases:
            ours = run(lambda c=case: wnp.result_type(*args(c, wnp)))
            theirs = run(lambda c=case: jnp.result_type(*args(c, jnp)))
            if isinstance(theirs, Exception):
                assert isinstance(ours, family(theirs)), (case, theirs, ours)
            else:
                assert ours == theirs, f"result_type{case}: weaktrace {ours}, jax {theirs}"


@pytest.mark.parametrize("x64", X64)
@pytest.mark.parametrize(
    ("a", "b"),
    [(np.float16(1), 2.5), (np.ones(2, np.int8), 3), (2.5, 3), (True, np.uint8(2)),
     (np.ones(2, ml_dtypes.bfloat16), np.ones(2, np.float16)), (1j, np.float32(1))],
)  # fmt: skip
def test_result_type_of_traced_values(a, b, x64):
    """Inside a trace, traced values (weak ones too) promote as jax's tracers do."""
    with jax.enable_x64(x64):
        agree(lambda x, y: wnp.zeros((), wnp.result_type(x, y)),
              lambda x, y: jnp.zeros((), jnp.result_type(x, y)), a, b, values=False)  # fmt: skip
        agree(lambda x, y: wnp.zeros((), wnp.promote_types(x.dtype, y.dtype)),
              lambda x, y: jnp.zeros((), jnp.promote_types(x.dtype, y.dtype)), a, b,
              values=False)  # fmt: skip


def _seen(fn, *args, policy):
    out = []
    wt.trace(lambda *a: out.append(fn(*a)) or a[0], policy=policy).trace(*args)
    return out[0]


@pytest.mark.parametrize(
    ("a", "b"),
    [(np.float16(1), 2.5), (np.ones(2, np.int8), 300), (np.ones(2, np.int8), np.uint64(1)),
     (np.ones(2, np.float32), np.int64(1)), (np.ones(2, np.uint8), 2.5)],
)  # fmt: skip
def test_promotion_follows_the_trace_policy(a, b):
    """Under policy="numpy", result_type / promote_types are NumPy's (NEP 50)."""
    got = _seen(lambda x, y: wnp.result_type(x, y), a, b, policy="numpy")
    assert got == np.result_type(a, b)
    got = _seen(lambda x, y: wnp.promote_types(x.dtype, y.dtype), a, np.asarray(b), policy="numpy")
    assert got == np.promote_types(np.asarray(a).dtype, np.asarray(b).dtype)


def test_promote_types_under_a_strict_trace_raises_as_jax():
    with jax.numpy_dtype_promotion("strict"), pytest.raises(ValueError):
        jnp.promote_types(jnp.int8, jnp.float32)
    strict = wt.policy("jax", strict=True)
    with pytest.raises(wt.TypePromotionError):
        _seen(lambda x: wnp.promote_types(x.dtype, wnp.float32), np.ones(2, np.int8),
              policy=strict)  # fmt: skip
    assert _seen(lambda x: wnp.promote_types(x.dtype, wnp.float32), np.ones(2, np.int8),
                 policy=None) == np.float32  # fmt: skip


def test_ndarray_isinstance_as_jax():
    for v in (np.ones(2), jnp.ones(2), 1.5, np.float32(1), [1.0]):
        assert isinstance(v, wnp.ndarray) == isinstance(v, jnp.ndarray), v
    seen = []
    wt.trace(lambda a: seen.append(isinstance(a, wnp.ndarray)) or a).trace(np.ones(2))
    jax.jit(lambda a: seen.append(isinstance(a, jnp.ndarray)) or a)(np.ones(2))
    assert seen == [True, True]
