"""jax.numpy's ufunc objects (``add``, ``maximum``, ``logical_xor`` ...; listed at test
time as the jax.numpy names that are ``jnp.ufunc`` instances) against weaktrace.numpy's
(weaktrace/numpy/ufunc_objects.py): the same attributes and method signatures, and
every method (``__call__``, ``reduce``, ``accumulate``, ``at``, ``reduceat``,
``outer``) on generated dtypes (Python scalars too), shapes and keyword values, eager,
traced and compiled, x64 off and on (tests/mirror_harness.py); under the numpy policy
against numpy's own ufuncs.

Each template is crossed with every ufunc and every operand kind (a deterministic
pairing of kinds for two operands); CI runs a spread sample, ``--run-slow`` all.
"""

from __future__ import annotations

import inspect
import warnings
import zlib
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


def ufunc_names() -> list[str]:
    """The jax.numpy names that are ufunc objects in the installed jax."""
    return sorted(n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc))


NAMES = ufunc_names()
BINARY = [n for n in NAMES if getattr(jnp, n).nin == 2]


# -- the objects: attributes, methods, signatures ----------------------------------------


def _public(obj: Any) -> set[str]:
    return {a for a in dir(obj) if not a.startswith("_")}


def test_there_are_ufuncs_to_check():
    assert len(NAMES) >= 10 and BINARY


@pytest.mark.parametrize("name", NAMES)
def test_every_jax_ufunc_is_a_weaktrace_ufunc(name):
    theirs, ours = getattr(jnp, name), getattr(wnp, name)
    assert isinstance(ours, wnp.ufunc), f"weaktrace.numpy.{name} is not a ufunc object"
    assert _public(theirs) <= _public(ours), _public(theirs) - _public(ours)
    for attr in ("nin", "nout", "nargs", "__name__"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    mine, want = ours.identity, theirs.identity
    assert type(mine) is type(want) and (mine == want or mine is want is None), (mine, want)
    assert repr(ours) == repr(theirs)
    assert ours == ours and hash(ours) == hash(ours) and ours != wnp.ufunc(lambda a: a, 1, 1)


def _params(fn: Any) -> list[tuple[str, Any, Any]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("method", ["__call__", "reduce", "accumulate", "at", "reduceat", "outer"])
@pytest.mark.parametrize("name", NAMES)
def test_method_signatures_match_jax(name, method):
    theirs, ours = getattr(getattr(jnp, name), method), getattr(getattr(wnp, name), method)
    if method == "__call__":  # jax: (*args, out=None, where=None); ours names the operands
        kw = inspect.Parameter.KEYWORD_ONLY
        assert [p for p in _params(ours) if p[1] is kw] == [
            p for p in _params(theirs) if p[1] is kw
        ]
        n_pos = sum(p[1] is inspect.Parameter.POSITIONAL_ONLY for p in _params(ours))
        assert n_pos == getattr(jnp, name).nin
        return
    assert _params(ours) == _params(theirs)


def test_calling_a_ufunc_object_is_calling_the_exported_function():
    """No Python frame of the ufunc between the call and the mirror's compiled path: the
    class's ``__call__`` is the exported function itself (a staticmethod)."""
    for name in NAMES:
        call = inspect.getattr_static(type(getattr(wnp, name)), "__call__")
        assert isinstance(call, staticmethod), name
        assert hasattr(call.__func__, "__wrapped__"), name  # the `export` wrapper


def test_objects_survive_copy_and_pickle():
    import copy
    import pickle

    for name in NAMES:
        u = getattr(wnp, name)
        assert copy.deepcopy(u) is u and pickle.loads(pickle.dumps(u)) is u


# -- the methods against jax, four ways ----------------------------------------------------

S23, S3, S4 = (2, 3), (3,), (4,)
MASK = np.array([[True, False, True], [False, True, True]])

# (label, fn(u, m, *operands), shapes, binary only)
ONE: list[tuple[str, Fn, tuple[tuple[int, ...], ...], bool]] = [
    ("call", lambda u, m, a: u(*[a] * u.nin), (S23,), False),
    ("call none keywords", lambda u, m, a: u(*[a] * u.nin, out=None, where=None), (S3,), False),
    ("call where", lambda u, m, a: u(*[a] * u.nin, where=True), (S3,), False),
    ("call dtype", lambda u, m, a: u(*[a] * u.nin, dtype="float32"), (S3,), False),
    ("call list", lambda u, m, a: u(*[[1, 2, 3]] * u.nin), (S3,), False),
    ("reduce", lambda u, m, a: u.reduce(a), (S23,), False),
    ("reduce axis keepdims", lambda u, m, a: u.reduce(a, axis=1, keepdims=True), (S23,), True),
    ("reduce axis -1", lambda u, m, a: u.reduce(a, axis=-1), (S23,), True),
    ("reduce axis none", lambda u, m, a: u.reduce(a, axis=None), (S23,), True),
    ("reduce axis none keepdims",
     lambda u, m, a: u.reduce(a, axis=None, keepdims=True), (S23,), True),
    ("reduce axis tuple", lambda u, m, a: u.reduce(a, axis=(0, 1)), (S23,), True),
    ("reduce dtype float32", lambda u, m, a: u.reduce(a, axis=1, dtype="float32"), (S23,), True),
    ("reduce dtype int16", lambda u, m, a: u.reduce(a, dtype="int16"), (S23,), True),
    ("reduce dtype uint8", lambda u, m, a: u.reduce(a, axis=1, dtype=np.uint8), (S23,), True),
    ("reduce dtype bool", lambda u, m, a: u.reduce(a, dtype=bool), (S23,), True),
    ("reduce where", lambda u, m, a: u.reduce(a, axis=1, where=m.asarray(MASK)), (S23,), True),
    ("reduce where int mask", lambda u, m, a: u.reduce(a, where=m.asarray(MASK) * 1), (S23,),
     True),
    ("reduce empty", lambda u, m, a: u.reduce(a[:, :0], axis=1), (S23,), True),
    ("reduce empty axis 0", lambda u, m, a: u.reduce(a[:, :0]), (S23,), True),
    ("reduce 1d", lambda u, m, a: u.reduce(a), (S4,), True),
    ("reduce 0d", lambda u, m, a: u.reduce(a), ((),), True),
    ("accumulate", lambda u, m, a: u.accumulate(a), (S23,), False),
    ("accumulate axis 1", lambda u, m, a: u.accumulate(a, axis=1), (S23,), True),
    ("accumulate axis -1 dtype",
     lambda u, m, a: u.accumulate(a, axis=-1, dtype="float32"), (S23,), True),
    ("accumulate dtype int8", lambda u, m, a: u.accumulate(a, dtype="int8"), (S23,), True),
    ("accumulate axis none", lambda u, m, a: u.accumulate(a, axis=None), (S23,), True),
    ("accumulate empty", lambda u, m, a: u.accumulate(a[:, :0], axis=1), (S23,), True),
    ("at no value", lambda u, m, a: u.at(a, m.array([0, 2, 2]), inplace=False), (S4,), False),
    ("at inplace", lambda u, m, a: u.at(a, m.array([0]), *[a[0]] * (u.nin - 1)), (S4,), False),
    ("at slice", lambda u, m, a: u.at(a, slice(0, 2), a[0], inplace=False), (S4,), True),
    ("at list", lambda u, m, a: u.at(a, [0, 1], a[0], inplace=False), (S4,), True),
    ("reduceat", lambda u, m, a: u.reduceat(a, m.array([0, 2, 1]), axis=1), (S23,), False),
    ("reduceat 1d", lambda u, m, a: u.reduceat(a, m.array([0, 3])), (S4,), True),
    ("reduceat dtype", lambda u, m, a: u.reduceat(a, m.array([1, 2]), dtype="float32"), (S4,),
     True),
    ("outer self", lambda u, m, a: u.outer(a, a), (S3,), False),
]  # fmt: skip

TWO: list[tuple[str, Fn, tuple[tuple[int, ...], ...], bool]] = [
    ("call binary", lambda u, m, a, b: u(a, b), (S23, S3), True),
    ("reduce initial", lambda u, m, a, b: u.reduce(a, axis=0, initial=b), (S23, ()), True),
    ("reduce initial where",
     lambda u, m, a, b: u.reduce(a, axis=None, initial=b, where=m.asarray(MASK)), (S23, ()),
     True),
    ("reduce initial array", lambda u, m, a, b: u.reduce(a, initial=b), (S23, S3), True),
    ("at values", lambda u, m, a, b: u.at(a, m.array([2, 0, 2]), b, inplace=False), (S4, ()),
     True),
    ("at scalar index", lambda u, m, a, b: u.at(a, -1, b, inplace=False), (S4, ()), True),
    ("at out of bounds", lambda u, m, a, b: u.at(a, m.array([1, 7, -2]), b, inplace=False),
     (S4, S3), True),
    ("at tuple", lambda u, m, a, b: u.at(a, (m.array([0, 1, 1]), m.array([2, 0, 2])), b,
                                         inplace=False), (S23, S3), True),
    ("at rows", lambda u, m, a, b: u.at(a, m.array([1, 1]), b, inplace=False), (S23, S3), True),
    ("at newaxis", lambda u, m, a, b: u.at(a, (None, m.array([0, 0])), b, inplace=False),
     (S4, ()), True),
    ("outer", lambda u, m, a, b: u.outer(a, b), (S3, S23), True),
    ("outer scalar", lambda u, m, a, b: u.outer(a, b), ((), S3), True),
]  # fmt: skip


def pairs(kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    """Every kind once on each side, paired deterministically with another kind."""
    n = len(kinds)
    return [(k, kinds[(7 * i + 3) % n]) for i, k in enumerate(kinds)] + [(k, k) for k in kinds]


def _cases() -> list[tuple[str, str, Fn, tuple[tuple[int, ...], ...], tuple[str, ...]]]:
    out = []
    for label, f, shapes, binary in ONE:
        for name in BINARY if binary else NAMES:
            for k in KINDS:
                if k in SCALARS and shapes[0]:
                    continue  # a Python scalar has no axes to reduce or index
                out.append((name, label, f, shapes, (k,)))
    for label, f, shapes, _ in TWO:
        for name in BINARY:
            for ks in pairs(KINDS):
                if ks[0] in SCALARS and shapes[0]:
                    ks = (ks[1], ks[0]) if ks[1] not in SCALARS else ("float32", ks[0])
                out.append((name, label, f, shapes, ks))
    return out


CASES = _cases()
SAMPLE = 120  # cases CI runs (spread over templates, ufuncs and kinds)


# Where weaktrace disagrees with jax: (name, label, kinds, x64) -> reason, by cause.
def _case_id(c: Any) -> str:
    (name, label, _, _, kinds), x64 = c
    return f"{name}-{label}-{'-'.join(kinds)}-{'x64' if x64 else 'x32'}"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        cases = with_x64(CASES, SAMPLE, full_run(metafunc.config), halve=False)
        metafunc.parametrize("case", cases, ids=[_case_id(c) for c in cases])


def _args(shapes: tuple[tuple[int, ...], ...], kinds: tuple[str, ...]) -> list[Any]:
    return [
        values(k, () if k in SCALARS else s, seed=i)
        for i, (k, s) in enumerate(zip(kinds, shapes, strict=True))
    ]


@pytest.mark.ci_sample(2)
def test_ufunc_method(case: Any) -> None:
    (name, label, f, shapes, kinds), x64 = case
    args = _args(shapes, kinds)
    low = any(k in ("bfloat16", "float16") for k in kinds)
    with jax.enable_x64(x64):
        check(lambda *a: f(getattr(wnp, name), wnp, *a),
              lambda *a: f(getattr(jnp, name), jnp, *a), *args, context=f"{name} {label}",
              rtol=2e-2 if low else 1e-5, atol=2e-2 if low else 1e-6)  # fmt: skip


def _weak_array(kind: str, shape: tuple[int, ...]) -> Any:
    """A weak jax array: an int32 array times a Python float (weak f32) or plus a
    Python int (a weak int32 only where jax keeps it: an int32 array stays strong)."""
    x = jnp.asarray(values("int32", shape, seed=5))
    return x * 1.5 if kind == "weak_float" else jax.lax.convert_element_type(x, jnp.float32) * 1


# Operand pairs whose promoted type is weak (a Python float with an integer array; uint64
# with a signed int under x64 joins at the weak float) or strong, for logical_*.outer:
# jax computes outer as the call vmapped over 0-d elements, where lax._const(x, 0) of a
# weak element is weak, so the result is a weak bool exactly when the join is weak.
WEAK_OUTER_PAIRS = [
    (("py_float", "uint64"), ((), S3)), (("py_float", "int8"), ((), S23)),
    (("uint8", "py_float"), (S3, ())), (("uint64", "int16"), (S3, S3)),
    (("py_int", "py_float"), ((), ())), (("py_float", "float32"), ((), S3)),
    (("bool", "py_int"), (S3, ())), (("weak_float", "int32"), (S3, S3)),
    (("weak_float", "weak_float"), ((), S3)),
]  # fmt: skip


@pytest.mark.parametrize(("kinds", "shapes"), WEAK_OUTER_PAIRS)
@pytest.mark.parametrize("x64", [False, True])
def test_logical_outer_weak_flag_is_jaxs(kinds: Any, shapes: Any, x64: bool) -> None:
    """jnp.logical_and.outer(1.5, uint64 array) is a weak bool while the call
    jnp.logical_and(1.5, uint64 array) is strong: weaktrace's outer gives what jax's does,
    eager, traced and compiled."""
    test_outer_weak_flag_is_jaxs("logical_and", kinds, shapes, x64)


@pytest.mark.ci_sample(6)
@pytest.mark.parametrize(
    "name", ["logical_or", "logical_xor", "logaddexp2", "logaddexp", "add", "maximum"]
)
@pytest.mark.parametrize(("kinds", "shapes"), WEAK_OUTER_PAIRS)
@pytest.mark.parametrize("x64", [False, True])
def test_outer_weak_flag_is_jaxs(name: str, kinds: Any, shapes: Any, x64: bool) -> None:
    """The other logical ufuncs' outer as logical_and's, logaddexp2's too (it scales by
    lax._const(amax, 1/ln 2)); the others keep the call's flag."""
    args = [
        _weak_array(k, s) if k.startswith("weak") else values(k, () if k in SCALARS else s, i)
        for i, (k, s) in enumerate(zip(kinds, shapes, strict=True))
    ]
    with jax.enable_x64(x64):
        check(getattr(wnp, name).outer, getattr(jnp, name).outer, *args, context=f"{name}.outer")


@pytest.mark.parametrize("x64", [False, True])
def test_zero_of_a_weak_scalar_off_the_default_dtype(x64: bool) -> None:
    """lax._const(x, 0) is a Python scalar (weak) only when x's dtype is the one a Python
    scalar of its kind has in this mode: a weak float32 made with x64 off, used with x64
    on, compares with a strong zero, so logical_not of it is a strong bool (found by
    crossing logical_*.outer with weak jax arrays made under the other mode)."""
    a, b = _weak_array("weak_float", S3), _weak_array("weak_float", ())
    with jax.enable_x64(x64):
        for name, args in (("logical_not", (b,)), ("logical_and", (b, a)), ("logical_or", (b, 2)),
                           ("logaddexp2", (b, 2.0)), ("logaddexp", (b, 1j))):  # fmt: skip
            check(getattr(wnp, name), getattr(jnp, name), *args, context=name)


@pytest.mark.parametrize("x64", [False, True])
def test_logaddexp2_of_weak_arrays_is_strong(x64: bool) -> None:
    """jax's logaddexp2 scales by lax._const(amax, 1/ln 2) (complex logaddexp by
    _const(amax, 2)): strong for a weak array, so logaddexp2(1.5, uint16 array) is a
    strong float32 though both promoted operands are weak; 0-d weak operands keep it
    weak. Traced, weaktrace said weak (found by the outer sweep with weak operands)."""
    u, w = values("uint16", S3, seed=1), _weak_array("weak_float", S3)
    with jax.enable_x64(x64):
        for name in ("logaddexp2", "logaddexp"):
            for args in ((1.5, u), (w, 2.5), (1.5, 2.5), (1j, u), (1j, 2.5), (w, 1j)):
                check(getattr(wnp, name), getattr(jnp, name), *args, context=name)


def test_sample_covers_every_ufunc_and_template(full: bool) -> None:
    """The CI sample still calls every ufunc and every method template."""
    sampled = [c for c, _ in with_x64(CASES, SAMPLE, full, halve=False)]
    assert {c[0] for c in sampled} == set(NAMES)
    assert {c[1] for c in sampled} == {t[0] for t in ONE + TWO}


# -- reductions lower to jax.numpy's reduction primitives ------------------------------------


def _reductions(jaxpr: Any) -> set[str]:
    """The reduce_* primitives of a jaxpr, nested jaxprs (pjit, loops) included."""
    found: set[str] = set()
    for e in jaxpr.eqns:
        if e.primitive.name.startswith("reduce_"):
            found.add(e.primitive.name)
        for v in e.params.values():
            for sub in v if isinstance(v, tuple | list) else (v,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    found |= _reductions(inner)
    return found


@pytest.mark.parametrize("name", BINARY)
def test_reduce_binds_the_reduction_jax_binds(name):
    """add.reduce is a reduce_sum, logical_xor.reduce a reduce_xor ... as in jax (a ufunc
    jax reduces with a loop, subtract, binds none)."""
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    x = x > 2 if name.startswith("logical") else x * 1.5 if "log" in name else x
    jaxpr = jax.make_jaxpr(lambda a: getattr(jnp, name).reduce(a, axis=1))(x).jaxpr
    program = wt.trace(lambda a: getattr(wnp, name).reduce(a, axis=1)).trace(x).program
    ours = {e.primitive.name for e in program.equations if e.primitive.name.startswith("reduce_")}
    assert ours == _reductions(jaxpr)


# -- other policies: numpy's ufunc methods are the oracle -----------------------------------

NP_KINDS = ("bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64")


def _np_cases() -> list[tuple[str, str, str]]:
    methods = ("reduce", "reduce axis none", "accumulate", "outer", "at")
    return [(n, meth, k) for n in BINARY for meth in methods for k in NP_KINDS
            if hasattr(np, n)]  # fmt: skip


def _np_call(mod: Any, name: str, method: str, a: Any) -> Any:
    u = getattr(mod, name)
    if method == "reduce":
        return u.reduce(a, axis=1)
    if method == "reduce axis none":
        return u.reduce(a, axis=None)
    if method == "accumulate":
        return u.accumulate(a, axis=1)
    if method == "outer":
        return u.outer(a[0], a[:, 1])
    idx = np.array([0, 2, 2])
    if mod is np:
        out = a.copy()
        u.at(out, (1, idx), a[0, 0])
        return out
    return u.at(a, (1, idx), a[0, 0], inplace=False)


NP_SKIP = {"logaddexp", "logaddexp2"}  # numpy has these ufuncs; reduce is checked on floats


@pytest.mark.parametrize(("name", "method", "kind"), _np_cases())
def test_numpy_policy_matches_numpy(name, method, kind, full):
    if not full and zlib.crc32(f"{name} {method} {kind}".encode()) % 8:
        pytest.skip("sampled out in CI (--run-slow runs it)")
    a = values(kind, S23, seed=3, special=False)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = np.asarray(_np_call(np, name, method, a))
        except (TypeError, ValueError):  # numpy refuses (bitwise of floats, axis=None ...)
            with pytest.raises((TypeError, ValueError)):
                wt.trace(lambda x: _np_call(wnp, name, method, x), policy="numpy").trace(a)
            return
        got = wt.trace(lambda x: _np_call(wnp, name, method, x), policy="numpy")
        out = got.trace(a).out_avals
        assert (out.shape, out.dtype) == (want.shape, want.dtype)
        if name not in NP_SKIP or kind.startswith("float"):
            np.testing.assert_allclose(
                np.asarray(got(a)).astype(np.float64),
                want.astype(np.float64),
                rtol=1e-2 if kind == "float16" else 1e-6,
            )


# -- at with traced indices (an argument of the traced function) ------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [("add", "bool"), ("multiply", "int8"), ("subtract", "float32"), ("maximum", "int8"),
     ("logical_or", "float32")],
)  # fmt: skip
def test_at_with_traced_indices(name, kind):
    a, v = values(kind, S4, seed=1), values(kind, S3, seed=2)
    idx = np.array([3, 0, 3], np.int32)
    with jax.enable_x64(False):
        check(lambda i, x, y: getattr(wnp, name).at(x, i, y, inplace=False),
              lambda i, x, y: getattr(jnp, name).at(x, i, y, inplace=False), idx, a, v,
              context=f"{name}.at traced indices")  # fmt: skip
