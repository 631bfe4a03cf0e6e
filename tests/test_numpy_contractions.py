"""Contractions (matmul, dot, vdot, vecdot, matvec, vecmat, tensordot, inner, outer,
kron, trace, cross, einsum) against jax.numpy, eager and traced, over dtype pairs,
shapes and ``preferred_element_type`` values, x64 off and on."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.math_cases import KINDS, SCALARS, product, values, with_x64
from tests.mirror_harness import check

PREFERRED = (None, "float32", "int32", "bfloat16", "float64", "complex64", "int8")

# name -> (f(module, a, b, pet), shape pairs); f passes preferred_element_type when the
# jax function takes it.
FUNCS = {
    "matmul": (lambda m, a, b, p: m.matmul(a, b, preferred_element_type=p),
               [((2, 3), (3, 4)), ((3,), (3,)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
                ((), (3,))]),
    "dot": (lambda m, a, b, p: m.dot(a, b, preferred_element_type=p),
            [((2, 3), (3, 4)), ((2, 3), (4, 3, 5)), ((), (2, 3)), ((3,), (3,))]),
    "vdot": (lambda m, a, b, p: m.vdot(a, b, preferred_element_type=p),
             [((2, 3), (6,)), ((4,), (2, 2))]),
    "vecdot": (lambda m, a, b, p: m.vecdot(a, b, preferred_element_type=p),
               [((2, 3), (3,)), ((4, 1, 3), (2, 3))]),
    "matvec": (lambda m, a, b, p: m.matvec(a, b), [((2, 3), (3,)), ((4, 2, 3), (1, 3))]),
    "vecmat": (lambda m, a, b, p: m.vecmat(a, b), [((3,), (3, 2)), ((4, 3), (1, 3, 2))]),
    "tensordot": (lambda m, a, b, p: m.tensordot(a, b, 1, preferred_element_type=p),
                  [((2, 3), (3, 4)), ((3,), (3, 2))]),
    "tensordot pairs": (lambda m, a, b, p: m.tensordot(a, b, ((0, 2), (1, 0)),
                                                       preferred_element_type=p),
                        [((3, 2, 4), (4, 3))]),
    "inner": (lambda m, a, b, p: m.inner(a, b, preferred_element_type=p),
              [((2, 3), (4, 3)), ((), (3,)), ((3,), (3,))]),
    "outer": (lambda m, a, b, p: m.outer(a, b), [((2, 3), (4,)), ((), (3,))]),
    "kron": (lambda m, a, b, p: m.kron(a, b), [((2, 3), (2,)), ((2, 2), (3, 1)), ((), (2,))]),
    "cross": (lambda m, a, b, p: m.cross(a, b), [((2, 3), (3,)), ((2,), (4, 2)), ((3,), (2,))]),
    "einsum": (lambda m, a, b, p: m.einsum("ij,jk->ki", a, b, preferred_element_type=p),
               [((2, 3), (3, 4))]),
    "einsum batch": (lambda m, a, b, p: m.einsum("bij,bj->bi", a, b, preferred_element_type=p),
                     [((2, 3, 4), (2, 4))]),
    "einsum outer": (lambda m, a, b, p: m.einsum("i,j", a, b, preferred_element_type=p),
                     [((2,), (3,))]),
}  # fmt: skip

KNOWN_MISMATCHES: dict[tuple[str, tuple[str, str], object], str] = {}  # none known


def _operand(kind: str, shape: tuple[int, ...], seed: int) -> object:
    if kind in SCALARS:
        return values(kind, (), seed)
    return values(kind, shape, seed, special=False)


def _cases() -> list[tuple[str, str, str, int, object]]:
    out = []
    pairs = product(KINDS, KINDS)
    for name, (_, shapes) in FUNCS.items():
        for i, (ka, kb) in enumerate(pairs):
            pet = PREFERRED[i % len(PREFERRED)] if i % 3 else None
            out.append((name, ka, kb, i % len(shapes), pet))
    return out


CASES = _cases()


def _mode(x64: bool) -> str:
    return "x64" if x64 else "x32"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    full = full_run(metafunc.config)
    if "case" in metafunc.fixturenames:
        cases = with_x64(CASES, 40, full)
        ids = [f"{c[0]}-{c[1]}-{c[2]}-s{c[3]}-{c[4]}-{_mode(x)}" for c, x in cases]
        metafunc.parametrize("case", cases, ids=ids)
    if "call" in metafunc.fixturenames:
        calls = with_x64(CALLS, len(CALLS), full)
        metafunc.parametrize("call", calls, ids=[f"{c[0]}-{_mode(x)}" for c, x in calls])


def _tolerance(*args: object) -> dict[str, float]:
    low = {str(getattr(a, "dtype", "")) for a in args} & {"float16", "bfloat16"}
    return {"rtol": 2e-2, "atol": 2e-2} if low else {"rtol": 1e-5, "atol": 1e-5}


def test_contraction(case):
    (name, ka, kb, shape_index, pet), x64 = case
    f, shapes = FUNCS[name]
    sa, sb = shapes[shape_index]
    a, b = _operand(ka, sa, 0), _operand(kb, sb, 1)
    if (name, (ka, kb), pet) in KNOWN_MISMATCHES:
        pytest.xfail(KNOWN_MISMATCHES[name, (ka, kb), pet])
    with jax.enable_x64(x64):
        check(lambda x, y: f(wnp, x, y, pet), lambda x, y: f(jnp, x, y, pet), a, b,
              context=name, **_tolerance(a, b, pet))  # fmt: skip


# -- keywords and the single-operand forms ----------------------------------------------

CALLS = [
    ("trace", lambda m, a: m.trace(a), ("int8", (3, 4))),
    ("trace offset axes", lambda m, a: m.trace(a, 1, 2, 0), ("bool", (3, 4, 5))),
    ("trace offset dtype", lambda m, a: m.trace(a, -1, dtype=np.float16), ("float32", (3, 4))),
    ("trace uint", lambda m, a: m.trace(a, axis1=-1, axis2=-2), ("uint8", (2, 3, 3))),
    ("cross axes", lambda m, a: m.cross(a, a[::-1], axisa=0, axisb=0, axisc=1), ("int16", (3, 2))),
    ("cross axis", lambda m, a: m.cross(a, a * 2, axis=0), ("float16", (3, 4))),
    ("einsum trace", lambda m, a: m.einsum("ii", a), ("int8", (3, 3))),
    ("einsum diag bool", lambda m, a: m.einsum("ii->i", a), ("bool", (3, 3))),
    ("einsum sum", lambda m, a: m.einsum("ijk->k", a), ("uint8", (2, 3, 4))),
    ("einsum transpose", lambda m, a: m.einsum("ijk->kij", a), ("bfloat16", (2, 3, 4))),
    ("einsum repeat kept", lambda m, a: m.einsum("iij,jk->ik", a, a[0]), ("float32", (2, 2, 2))),
    ("einsum three", lambda m, a: m.einsum("ij,jk,kl->il", a, a.T, a), ("float32", (2, 2))),
    ("einsum optimize False", lambda m, a: m.einsum("ij,jk,kl", a, a.T, a, optimize=False),
     ("int16", (2, 3))),
    ("einsum optimize optimal", lambda m, a: m.einsum("ij,jk,kl", a, a.T, a, optimize="optimal"),
     ("float32", (2, 3))),
    ("einsum ellipsis", lambda m, a: m.einsum("...ij,...jk", a, a[0].T), ("float32", (2, 2, 3))),
    ("einsum interleaved", lambda m, a: m.einsum(a, [0, 1], a, [2, 1], [0, 2]), ("int8", (2, 3))),
    ("einsum weak scalar", lambda m, a: m.einsum("i,->i", a, 2.5), ("float16", (3,))),
    ("einsum singleton", lambda m, a: m.einsum("ij,jk->ik", a[:1], a.T[:, :1]),
     ("float32", (2, 3))),
    ("einsum pet int", lambda m, a: m.einsum("ij,jk", a, a.T, preferred_element_type=np.int32),
     ("int8", (2, 3))),
    ("matmul precision", lambda m, a: m.matmul(a, a.T, precision="highest"), ("float32", (2, 3))),
    ("dot precision", lambda m, a: m.dot(a, a.T, precision=jax.lax.Precision.HIGH),
     ("float32", (2, 3))),
    ("inner scalar pet", lambda m, a: m.inner(a, 3, preferred_element_type=np.float32),
     ("int8", (3,))),
    ("tensordot 0", lambda m, a: m.tensordot(a, a, 0), ("int8", (2,))),
    ("tensordot bad axes", lambda m, a: m.tensordot(a, a, np.int64(1)), ("float32", (2, 2))),
    ("tensordot too many", lambda m, a: m.tensordot(a, a, 3), ("float32", (2, 2))),
    ("matmul scalar", lambda m, a: m.matmul(a, 2.0), ("float32", (2,))),
    ("matmul mismatch", lambda m, a: m.matmul(a, a), ("float32", (2, 3))),
    ("vecdot mismatch", lambda m, a: m.vecdot(a, a.T), ("float32", (2, 3))),
    ("dot narrow pet", lambda m, a: m.dot(a, a, preferred_element_type=np.int8), ("int32", (3,))),
    ("cross bad dim", lambda m, a: m.cross(a, a), ("float32", (4,))),
    ("trace same axes", lambda m, a: m.trace(a, axis1=1, axis2=-1), ("float32", (2, 2))),
    ("einsum bad", lambda m, a: m.einsum("ij,jk", a, a), ("float32", (2, 3))),
]  # fmt: skip


@pytest.mark.ci_sample(2)
def test_calls(call):
    (label, f, (kind, shape)), x64 = call
    a = _operand(kind, shape, 0)
    with jax.enable_x64(x64):
        check(lambda x: f(wnp, x), lambda x: f(jnp, x), a, context=label, **_tolerance(a))


def test_einsum_path_matches_jax():
    a, b, c = np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 2))
    ours = wnp.einsum_path("ij,jk,kl", a, b, c, optimize="optimal")
    theirs = jnp.einsum_path("ij,jk,kl", a, b, c, optimize="optimal")
    assert ours[0] == theirs[0]
    assert str(ours[1]) == str(theirs[1])


def test_out_sharding_is_refused():
    x = np.ones((2, 2), np.float32)
    with pytest.raises(NotImplementedError):
        wnp.matmul(x, x, out_sharding="x")


PRECISE = {  # name -> f(module, a, b, precision); a: (2, 3), b: (3, 3)
    "matmul": lambda m, a, b, p: m.matmul(a, b, precision=p),
    "dot": lambda m, a, b, p: m.dot(a, b, precision=p),
    "vdot": lambda m, a, b, p: m.vdot(a, b[:2], precision=p),
    "vecdot": lambda m, a, b, p: m.vecdot(a, b[0], precision=p),
    "tensordot": lambda m, a, b, p: m.tensordot(a, b, 1, precision=p),
    "inner": lambda m, a, b, p: m.inner(a, b, precision=p),
    "einsum": lambda m, a, b, p: m.einsum("ij,jk->ik", a, b, precision=p),
    "einsum three": lambda m, a, b, p: m.einsum("ij,jk,kl->il", a, b, b, precision=p),
    "convolve": lambda m, a, b, p: m.convolve(a[0], b[1], precision=p),
    "correlate": lambda m, a, b, p: m.correlate(a[0], b[1], "full", precision=p),
    "linalg.multi_dot": lambda m, a, b, p: m.linalg.multi_dot([a, b, b], precision=p),
    "linalg.tensordot": lambda m, a, b, p: m.linalg.tensordot(a, b, axes=1, precision=p),
}


def _dots(jaxpr: object) -> list[str]:
    """The precision of each dot_general / conv equation of a jaxpr, inner jaxprs included."""
    found: list[str] = []

    def walk(jx: object) -> None:
        for eqn in jx.eqns:  # type: ignore[attr-defined]
            if eqn.primitive.name in ("dot_general", "conv_general_dilated"):
                found.append(str(eqn.params["precision"]))
            for v in eqn.params.values():
                inner = getattr(v, "jaxpr", v)
                if hasattr(inner, "eqns"):
                    walk(inner)

    walk(jaxpr.jaxpr)  # type: ignore[attr-defined]
    return sorted(found)


@pytest.mark.parametrize(
    "precision",
    [None, "highest", jax.lax.Precision.HIGH, ("highest", "default"), ["bfloat16", "float32"]],
    ids=str,
)
@pytest.mark.parametrize("name", sorted(PRECISE))
def test_precision_reaches_jaxs_dot_general(name: str, precision: object) -> None:
    """jnp's precision= is jax's dot_general's, eagerly and traced (it was dropped: on
    TPU/GPU the product ran at default precision)."""
    fn = PRECISE[name]
    a = np.arange(6, dtype="float32").reshape(2, 3)
    b = np.arange(9, dtype="float32").reshape(3, 3)
    try:
        want = _dots(jax.make_jaxpr(lambda x, y: fn(jnp, x, y, precision))(a, b))
    except ValueError as err:  # a list: jax's jitted functions cannot hash it
        for run in (lambda f: f(a, b), lambda f: wt.trace(f)(a, b)):
            with pytest.raises(type(err)):
                run(lambda x, y: fn(wnp, x, y, precision))
        return
    assert want  # jax contracts with dot_general here
    eager = _dots(jax.make_jaxpr(lambda x, y: fn(wnp, x, y, precision))(a, b))
    traced = _dots(jax.make_jaxpr(wt.trace(lambda x, y: fn(wnp, x, y, precision)))(a, b))
    assert eager == want and traced == want
