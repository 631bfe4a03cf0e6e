"""vectorize, piecewise, ufunc / frompyfunc, intersect1d, setxor1d and unpackbits
(weaktrace/numpy/vectorizing.py, ufunc_api.py, sets_more.py, functional.py) against
jax.numpy, eager and traced, over generated dtypes (Python scalars too), shapes,
keyword values and errors, x64 off and on; and under the numpy and torch policies
against numpy and torch.

Each template is crossed with every operand kind (or a deterministic pairing of
kinds for two operands); CI runs a spread sample, ``--run-slow`` everything.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.math_cases import KINDS, SCALARS, values, with_x64
from tests.mirror_harness import check

Fn = Callable[..., Any]

# -- operands --------------------------------------------------------------------------


def operand(kind: str, shape: tuple[int, ...], seed: int, repeats: bool = False) -> Any:
    """A generated operand (Python scalars ignore the shape); `repeats` makes integer
    values collide, so that set operations find common elements."""
    if kind in SCALARS:
        return values(kind, (), seed=seed)
    v = values(kind, shape, seed=seed)
    if repeats and np.dtype(kind).kind in "iu":
        v = (v % 5).astype(v.dtype)
    if repeats and np.dtype(kind).kind in "fc":
        v = np.round(v.real if np.dtype(kind).kind == "f" else v).astype(v.dtype)
    return v


def pairs(kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    """Every kind once on each side, paired deterministically with another kind."""
    n = len(kinds)
    return [(k, kinds[(7 * i + 3) % n]) for i, k in enumerate(kinds)] + [(k, k) for k in kinds]


# -- templates: (label, fn(module, *operands), shapes of the operands) -------------------

S23, S3, S13, S21, S4 = (2, 3), (3,), (1, 3), (2, 1), (4,)


def _ufunc(m: Any) -> Any:
    return m.frompyfunc(lambda a, b: a * 2 + b, 2, 1, identity=0)


def _maxu(m: Any) -> Any:
    return m.frompyfunc(m.maximum, 2, 1)


def _unary(m: Any) -> Any:
    return m.ufunc(lambda a: a - 1, 1, 1, name="dec")


ONE: list[tuple[str, Fn, tuple[tuple[int, ...], ...]]] = [
    ("vectorize elementwise", lambda m, a: m.vectorize(lambda u: u * 2 + 1)(a), (S23,)),
    ("vectorize where", lambda m, a: m.vectorize(lambda u: m.where(u > 1, u, 0.5))(a), (S3,)),
    ("vectorize tuple", lambda m, a: m.vectorize(lambda u: (u, u + 1.5))(a), (S21,)),
    ("vectorize const", lambda m, a: m.vectorize(lambda u: 2.5)(a), (S3,)),
    ("vectorize size1 dims", lambda m, a: m.vectorize(lambda u: u * u)(a), ((1, 1),)),
    ("vectorize core", lambda m, a: m.vectorize(lambda r: m.sum(r), signature="(n)->()")(a),
     (S23,)),
    ("vectorize two outs", lambda m, a: m.vectorize(
        lambda r: (m.max(r), r[::-1]), signature="(n)->(),(n)")(a), (S23,)),
    ("vectorize core out", lambda m, a: m.vectorize(
        lambda u: m.stack([u, u]), signature="()->(k)")(a), (S3,)),
    ("vectorize excluded", lambda m, a: m.vectorize(lambda u, k: u * k, excluded={1})(a, 3),
     (S23,)),
    ("vectorize excluded kw", lambda m, a: m.vectorize(
        lambda u, k=0: u - k, excluded={"k"})(a, k=2), (S3,)),
    ("vectorize dropped kw", lambda m, a: m.vectorize(lambda u, k=0: u - k)(a, k=2), (S3,)),
    ("vectorize none", lambda m, a: m.vectorize(
        lambda k, u: u if k is None else u + 1)(None, a), (S3,)),
    ("vectorize bad signature", lambda m, a: m.vectorize(
        lambda u: u, signature="(n->()")(a), (S3,)),
    ("vectorize too few dims", lambda m, a: m.vectorize(
        lambda u: u, signature="(n,k)->()")(a), (S3,)),
    ("vectorize out mismatch", lambda m, a: m.vectorize(
        lambda r: r, signature="(n)->()")(a), (S23,)),
    ("vectorize wrong outs", lambda m, a: m.vectorize(
        lambda r: r, signature="(n)->(n),()")(a), (S23,)),
    ("vectorize wrong args", lambda m, a: m.vectorize(
        lambda u, v: u, signature="(),()->()")(a), (S3,)),
    ("piecewise", lambda m, a: m.piecewise(
        a, [m.real(a) < 0, m.real(a) > 1], [lambda v: v * 2, lambda v: v - 1, 7]), (S23,)),
    ("piecewise no default", lambda m, a: m.piecewise(
        a, [m.real(a) > 0.5], [lambda v: v + 0.5]), (S3,)),
    ("piecewise consts", lambda m, a: m.piecewise(a, [True, False], [1.5, -2, 3]), (S3,)),
    ("piecewise args", lambda m, a: m.piecewise(
        a, [m.real(a) != 0], [lambda v, k: v * k, 1], 3), (S23,)),
    ("piecewise kw", lambda m, a: m.piecewise(
        a, (m.real(a) >= 0,), [lambda v, k=1: v + k], k=4), (S3,)),
    ("piecewise wrong length", lambda m, a: m.piecewise(a, [a == a], [1, 2, 3]), (S3,)),
    ("piecewise bad branch", lambda m, a: m.piecewise(a, [a == a], [lambda v: m.stack([v, v])]),
     (S3,)),
    ("ufunc call", lambda m, a: _ufunc(m)(a, 2), (S23,)),
    ("ufunc reduce", lambda m, a: _ufunc(m).reduce(a), (S23,)),
    ("ufunc reduce axis keepdims", lambda m, a: _ufunc(m).reduce(a, axis=-1, keepdims=True),
     (S23,)),
    ("ufunc reduce none", lambda m, a: _ufunc(m).reduce(a, axis=None), (S23,)),
    ("ufunc reduce dtype", lambda m, a: _ufunc(m).reduce(a, axis=None, dtype="float32",
                                                         keepdims=True), (S23,)),
    ("ufunc reduce where", lambda m, a: _ufunc(m).reduce(a, where=m.array([True, False, True]),
                                                         initial=1), (S23,)),
    ("ufunc reduce empty", lambda m, a: _ufunc(m).reduce(m.atleast_1d(a)[:0]), (S23,)),
    ("ufunc reduce empty no identity", lambda m, a: _maxu(m).reduce(m.atleast_1d(a)[:0]), (S23,)),
    ("ufunc reduce where no identity", lambda m, a: _maxu(m).reduce(a, where=a == a), (S23,)),
    ("ufunc reduce where not bool", lambda m, a: _ufunc(m).reduce(a, where=1), (S23,)),
    ("ufunc reduce tuple axis", lambda m, a: _ufunc(m).reduce(a, axis=(0, 1)), (S23,)),
    ("ufunc reduce unary", lambda m, a: _unary(m).reduce(a), (S23,)),
    ("ufunc max reduce", lambda m, a: _maxu(m).reduce(a, axis=1), (S23,)),
    ("ufunc accumulate", lambda m, a: _ufunc(m).accumulate(a), (S23,)),
    ("ufunc accumulate axis dtype", lambda m, a: _maxu(m).accumulate(a, 1, dtype="int16"),
     (S23,)),
    ("ufunc accumulate none", lambda m, a: _ufunc(m).accumulate(a, axis=None), (S3,)),
    ("ufunc accumulate empty",
     lambda m, a: _ufunc(m).accumulate(m.atleast_2d(a)[:, :0], axis=1), (S23,)),
    ("ufunc outer weak", lambda m, a: _ufunc(m).outer(a, 1.5), (S3,)),
    ("ufunc at", lambda m, a: _ufunc(m).at(a, m.array([0, 2, 2]), 2, inplace=False), (S4,)),
    ("ufunc at scalar", lambda m, a: _ufunc(m).at(a, 1, 0.5, inplace=False), (S23,)),
    ("ufunc at tuple", lambda m, a: _ufunc(m).at(
        a, (m.array([0, 1, 1]), m.array([2, 0, 0])), m.array([1, 2, 3]), inplace=False), (S23,)),
    ("ufunc at rows", lambda m, a: _ufunc(m).at(a, m.array([1, 1]), m.array([5, 6, 7]),
                                                inplace=False), (S23,)),
    ("ufunc at unary", lambda m, a: _unary(m).at(a, m.array([[0], [3]]), inplace=False), (S4,)),
    ("ufunc at empty", lambda m, a: _ufunc(m).at(a, (), 1, inplace=False), (S4,)),
    ("ufunc at inplace", lambda m, a: _ufunc(m).at(a, 0, 1), (S4,)),
    ("ufunc reduceat", lambda m, a: _ufunc(m).reduceat(a, m.array([0, 2, 1]), axis=1), (S23,)),
    ("ufunc reduceat 1d", lambda m, a: _maxu(m).reduceat(a, m.array([0, 3])), (S4,)),
    ("ufunc reduceat scalar", lambda m, a: _ufunc(m).reduceat(m.sum(a), m.array([0])), (S23,)),
    ("ufunc reduceat 2d indices", lambda m, a: _ufunc(m).reduceat(a, m.array([[0]])), (S23,)),
    ("ufunc call out", lambda m, a: _ufunc(m)(a, a, out=a), (S3,)),
    ("ufunc call list", lambda m, a: _ufunc(m)(a, [1, 2, 3]), (S3,)),
    ("unpackbits", lambda m, a: m.unpackbits(a), (S23,)),
    ("unpackbits axis little", lambda m, a: m.unpackbits(a, axis=0, bitorder="little"), (S23,)),
    ("unpackbits count", lambda m, a: m.unpackbits(a, axis=1, count=-5), (S23,)),
    ("unpackbits count pad", lambda m, a: m.unpackbits(a, count=60), (S23,)),
    ("unpackbits roundtrip", lambda m, a: m.packbits(m.unpackbits(a, axis=1, count=20), 1),
     (S23,)),
    ("unpackbits bad order", lambda m, a: m.unpackbits(a, bitorder="middle"), (S3,)),
]  # fmt: skip

TWO: list[tuple[str, Fn, tuple[tuple[int, ...], ...]]] = [
    ("vectorize binary", lambda m, a, b: m.vectorize(lambda u, v: u * v + 1)(a, b), (S23, S3)),
    ("vectorize broadcast size1", lambda m, a, b: m.vectorize(lambda u, v: u - v)(a, b),
     (S13, S21)),
    ("vectorize matvec", lambda m, a, b: m.vectorize(
        lambda x, y: m.sum(x * y, axis=-1), signature="(m,n),(n)->(m)")(a, b), ((1, 2, 3), S3)),
    ("vectorize inconsistent", lambda m, a, b: m.vectorize(
        lambda u, v: m.sum(u * v), signature="(n),(n)->()")(a, b), (S23, S4)),
    ("vectorize unbroadcastable", lambda m, a, b: m.vectorize(lambda u, v: u)(a, b), (S23, S4)),
    ("piecewise cond arrays", lambda m, a, b: m.piecewise(
        a, [b, ~m.asarray(b)], [lambda v: v, lambda v: -v, 0]), (S3, S3)),
    ("ufunc call binary", lambda m, a, b: _ufunc(m)(a, b), (S23, S3)),
    ("ufunc outer", lambda m, a, b: _ufunc(m).outer(a, b), (S3, S21)),
    ("ufunc reduce initial", lambda m, a, b: _ufunc(m).reduce(a, axis=0, initial=b), (S23, ())),
    ("ufunc at values", lambda m, a, b: _ufunc(m).at(a, m.array([2, 0]), b, inplace=False),
     (S4, ())),
    ("intersect1d", lambda m, a, b: m.intersect1d(a, b, size=4), (S23, S4)),
    ("intersect1d fill", lambda m, a, b: m.intersect1d(a, b, size=6, fill_value=-1), (S4, S23)),
    ("intersect1d indices", lambda m, a, b: m.intersect1d(a, b, return_indices=True, size=5),
     (S23, S4)),
    ("intersect1d unique", lambda m, a, b: m.intersect1d(m.unique(a, size=3),
                                                         m.atleast_1d(b)[:1], True, True,
                                                         size=2), (S3, S4)),
    ("intersect1d unique values", lambda m, a, b: m.intersect1d(
        m.unique(a, size=2), m.unique(b, size=2), assume_unique=True, size=3), (S3, S3)),
    ("intersect1d empty", lambda m, a, b: m.intersect1d(m.atleast_1d(a)[:0], b, size=2,
                                                             return_indices=True),
     (S3, S3)),
    ("intersect1d size0", lambda m, a, b: m.intersect1d(a, b, size=0), (S3, S3)),
    ("setxor1d", lambda m, a, b: m.setxor1d(a, b, size=5), (S23, S4)),
    ("setxor1d fill", lambda m, a, b: m.setxor1d(a, b, size=12, fill_value=2), (S4, S3)),
    ("setxor1d unique", lambda m, a, b: m.setxor1d(m.unique(a, size=2), m.unique(b, size=2),
                                                   True, size=4), (S3, S3)),
    ("setxor1d empty",
     lambda m, a, b: m.setxor1d(m.atleast_1d(a)[:0], m.atleast_1d(b)[:0], size=2), (S3, S3)),
]  # fmt: skip

# Kinds per template family (unpackbits wants uint8; the rest takes every kind).
UNPACK_KINDS = ("uint8", "uint8", "int8", "bool", "float32", "py_int")


def _kinds(label: str) -> tuple[str, ...]:
    return UNPACK_KINDS if label.startswith("unpackbits") else KINDS


CASES = [(label, f, shapes, (k,)) for label, f, shapes in ONE for k in _kinds(label)] + [
    (label, f, shapes, ks) for label, f, shapes in TWO for ks in pairs(KINDS)
]

# Where weaktrace disagrees with jax: (label, kinds) -> reason. None known.
KNOWN_MISMATCHES: dict[tuple[str, tuple[str, ...]], str] = {}


def _case_id(c: Any) -> str:
    (label, _, _, kinds), x64 = c
    return f"{label}-{'-'.join(kinds)}-{'x64' if x64 else 'x32'}"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        cases = with_x64(CASES, 20, full_run(metafunc.config))
        marks = [
            pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISMATCHES[key]))
            if (key := (c[0][0], c[0][3])) in KNOWN_MISMATCHES
            else c
            for c in cases
        ]
        metafunc.parametrize("case", marks, ids=[_case_id(c) for c in cases])


def _args(label: str, shapes: tuple[tuple[int, ...], ...], kinds: tuple[str, ...]) -> list[Any]:
    sets = "intersect" in label or "setxor" in label
    out = []
    for i, (kind, shape) in enumerate(zip(kinds, shapes, strict=True)):
        if label.startswith("unpackbits") and kind == "uint8":
            rng = np.random.default_rng(i)
            out.append(rng.integers(0, 256, shape).astype(np.uint8))
        elif label.startswith("piecewise cond") and i == 1 and kind not in SCALARS:
            out.append(operand(kind, shape, i).astype(bool))
        else:
            out.append(operand(kind, shape, i, repeats=sets))
    return out


def test_mirror(case: Any) -> None:
    (label, f, shapes, kinds), x64 = case
    args = _args(label, shapes, kinds)
    low = any(k in ("bfloat16", "float16") for k in kinds)
    with jax.enable_x64(x64):
        check(lambda *a: f(wnp, *a), lambda *a: f(jnp, *a), *args, context=label,
              rtol=2e-2 if low else 1e-5, atol=2e-2 if low else 1e-6)  # fmt: skip


# -- eager data-dependent sizes ----------------------------------------------------------

EAGER: list[tuple[str, Fn]] = [
    ("intersect1d", lambda m, a, b: m.intersect1d(a, b)),
    ("intersect1d indices", lambda m, a, b: m.intersect1d(a, b, return_indices=True)),
    ("intersect1d unique indices", lambda m, a, b: m.intersect1d(
        m.unique(a), m.unique(b), assume_unique=True, return_indices=True)),
    ("intersect1d empty", lambda m, a, b: m.intersect1d(a[:0], b[:0], return_indices=True)),
    ("setxor1d", lambda m, a, b: m.setxor1d(a, b)),
    ("setxor1d unique", lambda m, a, b: m.setxor1d(m.unique(a), m.unique(b), True)),
    ("setxor1d empty", lambda m, a, b: m.setxor1d(a[:0], b[:0])),
]  # fmt: skip

EAGER_KINDS = [
    ("int8", "int16"), ("uint32", "bool"), ("float32", "float32"), ("bfloat16", "int8"),
    ("float64", "uint8"), ("complex64", "float16"), ("int64", "int64"),
]  # fmt: skip


def _same(got: Any, want: Any) -> None:
    assert jax.tree.structure(got) == jax.tree.structure(want)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert isinstance(g, jax.Array)
        assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type)
        np.testing.assert_array_equal(
            np.asarray(g).astype(np.complex128), np.asarray(w).astype(np.complex128)
        )


@pytest.mark.parametrize(
    ("label", "f", "kinds"),
    [(label, f, EAGER_KINDS[i % len(EAGER_KINDS)]) for i, (label, f) in enumerate(EAGER)],
)
@pytest.mark.ci_sample(2)
def test_data_dependent_size(label: str, f: Fn, kinds: tuple[str, str]) -> None:
    a = jnp.asarray(operand(kinds[0], (6,), 1, repeats=True))
    b = jnp.asarray(operand(kinds[1], (2, 3), 2, repeats=True))
    x64 = any(k.endswith("64") for k in kinds)
    with jax.enable_x64(x64):
        _same(f(wnp, a, b), f(jnp, a, b))
        with pytest.raises(jax.errors.ConcretizationTypeError):
            jax.jit(lambda p, q: f(jnp, p, q))(a, b)
        with pytest.raises(wt.ConcretizationError, match="size"):
            wt.trace(lambda p, q: f(wnp, p, q)).trace(a, b)


# -- ufunc objects -----------------------------------------------------------------------


def test_ufunc_attributes() -> None:
    """The ufunc object's attributes, identity and repr as jax's."""
    fn = operator.add
    for kwargs in ({}, {"identity": 0}, {"identity": 1.5}):
        ours, theirs = wnp.frompyfunc(fn, 2, 1, **kwargs), jnp.frompyfunc(fn, 2, 1, **kwargs)
        for attr in ("nin", "nout", "nargs", "identity", "__name__"):
            assert getattr(ours, attr) == getattr(theirs, attr), attr
        assert repr(ours) == repr(theirs)
        assert isinstance(ours, wnp.ufunc)
        assert ours == wnp.frompyfunc(fn, 2, 1, **kwargs)
        assert hash(ours) == hash(wnp.frompyfunc(fn, 2, 1, **kwargs))
    named = wnp.ufunc(fn, 2, 1, name="plus", nargs=3)
    ref = jnp.ufunc(fn, 2, 1, name="plus", nargs=3)
    assert (named.__name__, named.nargs, repr(named)) == (ref.__name__, ref.nargs, repr(ref))
    assert named != wnp.ufunc(fn, 2, 1, name="other")
    with pytest.raises(TypeError):
        jnp.ufunc(fn, 2.5, 1)
    with pytest.raises(TypeError):
        wnp.ufunc(fn, 2.5, 1)


def test_ufunc_custom_methods() -> None:
    """call= / reduce= replace the defaults, as in jax."""
    calls: list[str] = []

    def my_reduce(a: Any, **kw: Any) -> Any:
        calls.append("reduce")
        return wnp.sum(a, axis=kw["axis"])

    u = wnp.ufunc(operator.add, 2, 1, call=lambda a, b: wnp.subtract(a, b), reduce=my_reduce)
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(u(x, 1)), x - 1)
    traced = wt.trace(lambda a: u.reduce(a, axis=1))
    np.testing.assert_array_equal(np.asarray(traced(x)), x.sum(1))
    assert calls == ["reduce"]


# -- other policies: dtypes from the policy (numpy / torch as the oracle) ---------------

POLICY_KINDS = [
    ("int8", "float32"), ("uint8", "int16"), ("float16", "py_float"), ("int32", "py_int"),
    ("bool", "int64"), ("float64", "float32"), ("uint16", "py_bool"), ("int16", "complex64"),
]  # fmt: skip
_TORCH_OK = {"bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32",
             "float64", "complex64"}  # fmt: skip


def _np_value(kind: str, shape: tuple[int, ...], seed: int) -> Any:
    return operand(kind, shape, seed, repeats=True)


# numpy's set functions asarray their operands: a Python scalar enters as float64 /
# int64 (not weakly, as in numpy's arithmetic); the policy's asarray_operands_strong.
SET_CASES = POLICY_KINDS


@pytest.mark.parametrize("kinds", POLICY_KINDS, ids=["-".join(k) for k in POLICY_KINDS])
def test_numpy_policy(kinds: tuple[str, str]) -> None:
    a, b = _np_value(kinds[0], S23, 1), _np_value(kinds[1], S3, 2)
    pol = wt.policy("numpy")
    with np.errstate(all="ignore"):
        want = a * b + 1  # numpy's own promotion (NEP 50: Python scalars weak)
    got = wt.trace(lambda p, q: wnp.vectorize(lambda u, v: u * v + 1)(p, q), policy=pol)
    out = got.trace(a, b).out_avals
    assert (out.shape, out.dtype) == (want.shape, want.dtype)
    pw = np.piecewise(a, [a > 0], [lambda v: v * 2, 1])
    got_pw = wt.trace(lambda p: wnp.piecewise(p, [p > 0], [lambda v: v * 2, 1]), policy=pol)
    assert got_pw.trace(a).out_avals.dtype == pw.dtype


@pytest.mark.parametrize("kinds", SET_CASES, ids=["-".join(k) for k in POLICY_KINDS])
def test_numpy_policy_sets(kinds: tuple[str, str]) -> None:
    a, b = _np_value(kinds[0], S23, 1), _np_value(kinds[1], S3, 2)
    inter, xor = np.intersect1d(a, b), np.setxor1d(a, b)
    n, m = inter.size, xor.size
    sets = wt.trace(
        lambda p, q: (
            wnp.intersect1d(p, q, size=n, fill_value=0),
            wnp.setxor1d(p, q, size=m, fill_value=0),
        ),
        policy=wt.policy("numpy"),
    )
    ia, xa = sets.trace(a, b).out_avals
    assert (ia.shape, ia.dtype, xa.shape, xa.dtype) == (inter.shape, inter.dtype, xor.shape,
                                                        xor.dtype)  # fmt: skip
    iv, xv = sets(a, b)
    np.testing.assert_array_equal(np.asarray(iv), inter)
    np.testing.assert_array_equal(np.asarray(xv), xor)


@pytest.mark.parametrize("kinds", POLICY_KINDS, ids=["-".join(k) for k in POLICY_KINDS])
@pytest.mark.parametrize("default_float", ["float32", "float64"])
def test_torch_policy(kinds: tuple[str, str], default_float: str) -> None:
    a, b = _np_value(kinds[0], S23, 1), _np_value(kinds[1], S3, 2)
    if not all(k in _TORCH_OK or k in SCALARS for k in kinds):
        pytest.skip("a dtype torch does not compute with")
    old = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, default_float))
    try:
        ta = torch.from_numpy(a)
        tb = b if kinds[1] in SCALARS else torch.from_numpy(b)
        want = ta * tb + 1
    finally:
        torch.set_default_dtype(old)
    pol = wt.policy("torch", default_float=default_float)
    got = wt.trace(lambda p, q: wnp.vectorize(lambda u, v: u * v + 1)(p, q), policy=pol)
    out = got.trace(a, b).out_avals
    assert out.dtype == np.dtype(str(want.dtype).removeprefix("torch."))
    assert out.shape == tuple(want.shape)
