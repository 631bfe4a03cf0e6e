"""weaktrace.numpy.linalg against jax.numpy.linalg (computed at test time): every
function over generated dtypes (bool, integers, bf16, f16, f32, f64, complex), batch
shapes and keyword values, x64 off and on; errors where jax errors; gradients of
compiled weaktrace programs through jax.grad; coverage of jax's public names."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.math_cases import ARRAY_DTYPES, with_x64
from tests.mirror_harness import check

# Names jax.numpy.linalg offers that weaktrace.numpy.linalg does not mirror, with the reason.
EXCLUDED: dict[str, str] = {}


def _matrix(dtype: str, shape: tuple[int, ...], kind: str, seed: int) -> np.ndarray:
    """A well-conditioned operand: "gen" (diagonally dominant), "spd" (A A^H + n I),
    "rect" (any values) or "vec"."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = shape[-1]
    if dt.kind == "b":
        base = rng.integers(0, 2, shape).astype(bool)
        if kind in ("gen", "spd") and len(shape) >= 2:
            eye = np.broadcast_to(np.eye(n, dtype=bool), shape)
            base = eye if kind == "spd" else np.triu(base) | eye
        return base
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -3
        base = rng.integers(lo, 4, shape).astype(np.float64)
    else:
        base = rng.normal(size=shape)
        if dt.kind == "c":
            base = base + 1j * rng.normal(size=shape)
    if kind == "spd":
        base = base @ np.conj(np.swapaxes(base, -1, -2)) + n * np.eye(n)
    elif kind == "gen":
        base = base + 3 * n * np.eye(n)
    return base.astype(dt)


def _tol(dtype: str) -> dict[str, float]:
    if dtype in ("float16", "bfloat16"):
        return {"rtol": 3e-2, "atol": 3e-2}
    return {"rtol": 2e-4, "atol": 2e-4}


# name -> (f(module, *operands), operand kinds, shapes per operand)
SQ, BSQ, RECT, BRECT = (3, 3), (2, 3, 3), (4, 3), (2, 3, 4)
FUNCS = {
    "cholesky": (lambda m, a: m.linalg.cholesky(a), ["spd"], [SQ, BSQ]),
    "cholesky upper": (lambda m, a: m.linalg.cholesky(a, upper=True, symmetrize_input=False),
                       ["spd"], [BSQ]),
    "qr": (lambda m, a: m.linalg.qr(a), ["rect"], [RECT, BRECT]),
    "qr complete": (lambda m, a: m.linalg.qr(a, mode="complete"), ["rect"], [RECT, BRECT]),
    "qr r": (lambda m, a: m.linalg.qr(a, "r"), ["rect"], [BRECT]),
    "qr raw": (lambda m, a: m.linalg.qr(a, mode="raw"), ["rect"], [RECT, BRECT, (3, 4)]),
    "eigh": (lambda m, a: m.linalg.eigh(a), ["spd"], [SQ, BSQ]),
    "eigh U": (lambda m, a: m.linalg.eigh(a, UPLO="U", symmetrize_input=False), ["spd"], [BSQ]),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh(a, "U"), ["spd"], [SQ, BSQ]),
    "eigvals": (lambda m, a: m.linalg.eigvals(a), ["spd"], [SQ]),
    "svd": (lambda m, a: m.linalg.svd(a), ["rect"], [RECT, BRECT]),
    "svd reduced": (lambda m, a: m.linalg.svd(a, full_matrices=False), ["rect"], [BRECT]),
    "svd values": (lambda m, a: m.linalg.svd(a, compute_uv=False), ["rect"], [RECT, BRECT]),
    "svd hermitian": (lambda m, a: m.linalg.svd(a, hermitian=True, compute_uv=False), ["spd"],
                      [BSQ]),
    "svd subset": (lambda m, a: m.linalg.svd(a, False, subset_by_index=(0, 3)), ["rect"],
                   [RECT, BRECT]),
    "svdvals": (lambda m, a: m.linalg.svdvals(a), ["rect"], [BRECT]),
    "det": (lambda m, a: m.linalg.det(a), ["gen"], [SQ, BSQ, (2, 2), (4, 4), (2, 1, 1)]),
    "slogdet": (lambda m, a: m.linalg.slogdet(a), ["gen"], [SQ, BSQ, (2, 2), (1, 1)]),
    "slogdet qr": (lambda m, a: m.linalg.slogdet(a, method="qr"), ["gen"],
                   [SQ, BSQ, (1, 1), (4, 4)]),
    "inv": (lambda m, a: m.linalg.inv(a), ["gen"], [SQ, BSQ]),
    "solve": (lambda m, a, b: m.linalg.solve(a, b), ["gen", "rect"],
              [(SQ, (3, 2)), (BSQ, (3,)), (BSQ, (1, 3, 2)), ((1, 3, 3), (2, 3))]),
    "pinv": (lambda m, a: m.linalg.pinv(a), ["rect"], [RECT, BRECT]),
    "pinv rtol": (lambda m, a: m.linalg.pinv(a, rtol=0.1, hermitian=True), ["spd"], [BSQ]),
    "lstsq": (lambda m, a, b: m.linalg.lstsq(a, b), ["rect", "rect"],
              [(RECT, (4, 2)), (RECT, (4,))]),
    "lstsq rcond": (lambda m, a, b: m.linalg.lstsq(a, b, rcond=1e-3), ["rect", "rect"],
                    [(RECT, (4,))]),
    "matrix_rank": (lambda m, a: m.linalg.matrix_rank(a), ["rect"], [RECT, BRECT, (3,)]),
    "matrix_rank tol": (lambda m, a: m.linalg.matrix_rank(a, rtol=0.5), ["gen"], [BSQ]),
    "matrix_power": (lambda m, a: m.linalg.matrix_power(a, 5), ["gen"], [SQ, BSQ]),
    "matrix_power -2": (lambda m, a: m.linalg.matrix_power(a, -2), ["gen"], [BSQ]),
    "matrix_power 0": (lambda m, a: m.linalg.matrix_power(a, 0), ["gen"], [BSQ]),
    "norm": (lambda m, a: m.linalg.norm(a), ["rect"], [RECT, BRECT, (3,)]),
    "norm vector ord": (lambda m, a: m.linalg.norm(a, ord=3, axis=-1, keepdims=True), ["rect"],
                        [BRECT]),
    "norm inf": (lambda m, a: m.linalg.norm(a, ord=np.inf, axis=(2, 1)), ["rect"], [BRECT]),
    "norm -inf": (lambda m, a: m.linalg.norm(a, ord=-np.inf), ["rect"], [RECT]),
    "norm 1": (lambda m, a: m.linalg.norm(a, ord=1, axis=(0, 2), keepdims=True), ["rect"],
               [BRECT]),
    "norm -1": (lambda m, a: m.linalg.norm(a, ord=-1), ["rect"], [RECT]),
    "norm fro": (lambda m, a: m.linalg.norm(a, ord="fro", axis=(-1, -2)), ["rect"], [BRECT]),
    "norm 2": (lambda m, a: m.linalg.norm(a, ord=2, axis=(1, 2), keepdims=True), ["rect"],
               [BRECT]),
    "norm nuc": (lambda m, a: m.linalg.norm(a, ord="nuc", axis=(0, 2)), ["rect"], [BRECT]),
    "norm -2": (lambda m, a: m.linalg.norm(a, ord=-2), ["rect"], [RECT]),
    "vector_norm": (lambda m, a: m.linalg.vector_norm(a, axis=(0, 1)), ["rect"], [BRECT]),
    "vector_norm 1": (lambda m, a: m.linalg.vector_norm(a, ord=1), ["rect"], [RECT]),
    "vector_norm inf": (lambda m, a: m.linalg.vector_norm(a, ord=np.inf, keepdims=True),
                        ["rect"], [RECT]),
    "vector_norm 0": (lambda m, a: m.linalg.vector_norm(a, ord=0, axis=1), ["rect"], [RECT]),
    "vector_norm 0.5": (lambda m, a: m.linalg.vector_norm(a, ord=0.5), ["rect"], [RECT]),
    "vector_norm -1.5": (lambda m, a: m.linalg.vector_norm(a, ord=-1.5, axis=0), ["rect"],
                         [RECT]),
    "norm 2.5": (lambda m, a: m.linalg.norm(a, ord=2.5, axis=-1), ["rect"], [BRECT]),
    "matrix_norm": (lambda m, a: m.linalg.matrix_norm(a), ["rect"], [BRECT]),
    "matrix_norm 1": (lambda m, a: m.linalg.matrix_norm(a, ord=1, keepdims=True), ["rect"],
                      [BRECT]),
    "cond": (lambda m, a: m.linalg.cond(a), ["gen"], [SQ, BSQ]),
    "cond 1": (lambda m, a: m.linalg.cond(a, 1), ["gen"], [BSQ]),
    "cond -2": (lambda m, a: m.linalg.cond(a, -2), ["rect"], [RECT]),
    "multi_dot": (lambda m, a, b: m.linalg.multi_dot([a, b, b.T]), ["rect", "rect"],
                  [((4,), (4, 3)), ((2, 4), (4, 3))]),
    "tensorinv": (lambda m, a: m.linalg.tensorinv(a.reshape(2, 2, 4), ind=2), ["gen"],
                  [(4, 4)]),
    "tensorsolve": (lambda m, a, b: m.linalg.tensorsolve(a.reshape(2, 2, 4), b), ["gen", "rect"],
                    [((4, 4), (2, 2))]),
    "cross": (lambda m, a, b: m.linalg.cross(a, b), ["rect", "rect"], [((2, 3), (3,))]),
    "cross axis": (lambda m, a, b: m.linalg.cross(a, b, axis=0), ["rect", "rect"],
                   [((3, 2), (3, 1))]),
    "outer": (lambda m, a, b: m.linalg.outer(a, b), ["rect", "rect"], [((3,), (2,))]),
    "matmul": (lambda m, a, b: m.linalg.matmul(a, b), ["rect", "rect"], [(BRECT, (4, 2))]),
    "vecdot": (lambda m, a, b: m.linalg.vecdot(a, b, axis=0), ["rect", "rect"],
               [(RECT, (4, 1))]),
    "tensordot": (lambda m, a, b: m.linalg.tensordot(a, b, axes=1), ["rect", "rect"],
                  [(RECT, (3, 2))]),
    "trace": (lambda m, a: m.linalg.trace(a, offset=1), ["rect"], [BRECT]),
    "diagonal": (lambda m, a: m.linalg.diagonal(a, offset=-1), ["rect"], [BRECT, RECT]),
    "matrix_transpose": (lambda m, a: m.linalg.matrix_transpose(a), ["rect"], [BRECT]),
}  # fmt: skip

# (function, dtype) -> reason; these cases are strict xfails.
KNOWN_MISMATCHES: dict[tuple[str, str], str] = {}


def _cases() -> list[tuple[str, str, int]]:
    return [
        (name, dt, i)
        for name, (_, _, shapes) in FUNCS.items()
        for i in range(len(shapes))
        for dt in ARRAY_DTYPES
    ]


CASES = _cases()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        full = full_run(metafunc.config)
        cases = with_x64(CASES, 44, full)
        ids = [f"{c[0]}-{c[1]}-s{c[2]}-{'x64' if x else 'x32'}" for c, x in cases]
        params = [
            pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISMATCHES[c[0][:2]]))
            if c[0][:2] in KNOWN_MISMATCHES else c for c in cases
        ]  # fmt: skip
        metafunc.parametrize("case", params, ids=ids)
    if "keyword_case" in metafunc.fixturenames:
        picked = _keyword_params(full_run(metafunc.config))
        ids = [f"{n}-{d}-{'x64' if x else 'x32'}" for (n, d), x in picked]
        metafunc.parametrize("keyword_case", picked, ids=ids)


def _operands(name: str, dtype: str, index: int) -> list[np.ndarray]:
    _, kinds, shapes = FUNCS[name]
    shape = shapes[index]
    per = [shape] if len(kinds) == 1 else list(shape)
    return [_matrix(dtype, s, k, seed) for seed, (k, s) in enumerate(zip(kinds, per, strict=True))]


def test_linalg_function(case):
    (name, dtype, index), x64 = case
    f = FUNCS[name][0]
    args = _operands(name, dtype, index)
    with jax.enable_x64(x64):
        check(lambda *a: f(wnp, *a), lambda *a: f(jnp, *a), *args, context=name, **_tol(dtype))


# -- weak operands ---------------------------------------------------------------------


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("name", ["cholesky", "eigh", "svd", "det", "inv", "norm", "qr"])
def test_weak_operands(name, x64):
    """A weakly typed float operand (as jax.jit sees an argument marked weak)."""
    f = FUNCS[name][0]
    shape = FUNCS[name][2][-1]
    dt = "float64" if x64 else "float32"
    arg = jax.ShapeDtypeStruct(shape, np.dtype(dt), weak_type=True)
    with jax.enable_x64(x64):
        want = jax.eval_shape(lambda a: f(jnp, a), arg)
        got = wt.trace(lambda a: f(wnp, a)).trace(arg).out_avals
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type), name


# -- errors ------------------------------------------------------------------------------

ERRORS = [
    ("det non-square", lambda m, a: m.linalg.det(a), (2, 3)),
    ("det vector", lambda m, a: m.linalg.det(a), (3,)),
    ("slogdet non-square", lambda m, a: m.linalg.slogdet(a), (2, 3, 4)),
    ("inv non-square", lambda m, a: m.linalg.inv(a), (3, 4)),
    ("cholesky non-square", lambda m, a: m.linalg.cholesky(a), (3, 4)),
    ("eigh vector", lambda m, a: m.linalg.eigh(a), (3,)),
    ("eigh UPLO", lambda m, a: m.linalg.eigh(a, UPLO="X"), (3, 3)),
    ("qr mode", lambda m, a: m.linalg.qr(a, mode="nope"), (3, 3)),
    ("svd vector", lambda m, a: m.linalg.svd(a), (3,)),
    ("solve vector a", lambda m, a: m.linalg.solve(a[0], a[0]), (3, 3)),
    ("solve mismatch", lambda m, a: m.linalg.solve(a, a[:2]), (3, 3)),
    ("solve batched 1-d", lambda m, a: m.linalg.solve(a, a[:, 0]), (2, 2, 3)),
    ("norm bad ord", lambda m, a: m.linalg.norm(a, ord="x", axis=(0, 1)), (3, 3)),
    ("norm three axes", lambda m, a: m.linalg.norm(a, axis=(0, 1, 2)), (2, 3, 3)),
    ("vector_norm string", lambda m, a: m.linalg.vector_norm(a, ord="inf"), (3,)),
    ("outer matrix", lambda m, a: m.linalg.outer(a, a), (3, 3)),
    ("cross length", lambda m, a: m.linalg.cross(a, a), (2, 2)),
    ("matrix_transpose vector", lambda m, a: m.linalg.matrix_transpose(a), (3,)),
    ("multi_dot one", lambda m, a: m.linalg.multi_dot([a]), (3, 3)),
    ("multi_dot mismatch", lambda m, a: m.linalg.multi_dot([a, a[:2]]), (3, 3)),
    ("cond vector", lambda m, a: m.linalg.cond(a), (3,)),
    ("cond p non-square", lambda m, a: m.linalg.cond(a, 1), (3, 4)),
    ("tensorinv ind", lambda m, a: m.linalg.tensorinv(a, ind=0), (3, 3)),
    ("tensorinv shape", lambda m, a: m.linalg.tensorinv(a, ind=1), (3, 4)),
    ("lstsq 3-d", lambda m, a: m.linalg.lstsq(a, a[:, :, 0]), (2, 3, 3)),
    ("pinv rtol rcond", lambda m, a: m.linalg.pinv(a, rtol=0.1, rcond=0.1), (3, 3)),
    ("matrix_rank tol rtol", lambda m, a: m.linalg.matrix_rank(a, rtol=0.1, tol=0.1), (3, 3)),
    ("cholesky float16", lambda m, a: m.linalg.cholesky(a.astype(m.float16)), (3, 3)),
    ("svd bfloat16", lambda m, a: m.linalg.svd(a.astype(m.bfloat16)), (3, 3)),
    (
        "solve float16",
        lambda m, a: m.linalg.solve(a.astype(m.float16), a[0].astype(m.float16)),
        (3, 3),
    ),
]


@pytest.mark.parametrize("err", range(len(ERRORS)), ids=[e[0] for e in ERRORS])
def test_errors(err, full):
    name, f, shape = ERRORS[err]
    for x64 in (False, True) if full else (bool(err % 2),):
        _check_error(name, f, shape, x64)


def _check_error(name, f, shape, x64):
    a = _matrix("float32", shape, "gen" if len(shape) > 1 and shape[-1] == shape[-2] else "rect",
                0)  # fmt: skip
    with jax.enable_x64(x64):
        with pytest.raises(Exception):  # noqa: B017  (jax's own error kinds vary)
            jax.jit(lambda x: f(jnp, x))(a)
        with pytest.raises(wt.WeaktraceError):
            wt.trace(lambda x: f(wnp, x)).trace(a)
        check(lambda x: f(wnp, x), lambda x: f(jnp, x), a, context=name)


# -- gradients ---------------------------------------------------------------------------

LOSSES = {
    "solve": lambda m, a, b: m.sum(m.linalg.solve(a, b) ** 2),
    "cholesky": lambda m, a, b: m.sum(m.linalg.cholesky(a @ a.T) * b[:, :1].T),
    "slogdet": lambda m, a, b: m.linalg.slogdet(a)[1] + m.sum(b),
    "det": lambda m, a, b: m.linalg.det(a @ a) * m.sum(b),
    "inv": lambda m, a, b: m.sum(m.linalg.inv(a) * b[:, 0]),
    "norm": lambda m, a, b: m.linalg.norm(a) + m.linalg.norm(b, ord=1, axis=0).sum(),
    "norm 2": lambda m, a, b: m.linalg.norm(a, ord=2),
    "eigh": lambda m, a, b: m.sum(m.linalg.eigvalsh(a + a.T) * b[:, 0]),
    "svd": lambda m, a, b: m.sum(m.linalg.svd(a, compute_uv=False)),
    "qr": lambda m, a, b: m.sum(m.linalg.qr(a)[1] ** 2),
    "pinv": lambda m, a, b: m.sum(m.linalg.pinv(a) * b[:, 0]),
}


@pytest.mark.parametrize("name", list(LOSSES))
def test_gradients(name):
    """jax.grad through a compiled weaktrace function equals jax's gradient."""
    loss = LOSSES[name]
    a = _matrix("float32", (3, 3), "gen", 1)
    b = _matrix("float32", (3, 2), "rect", 2)
    ours = jax.grad(wt.trace(lambda x, y: loss(wnp, x, y)), argnums=(0, 1))(a, b)
    want = jax.grad(lambda x, y: loss(jnp, x, y), argnums=(0, 1))(a, b)
    for g, w in zip(ours, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-3, atol=1e-4)


# -- coverage ------------------------------------------------------------------------------


def test_every_jax_linalg_name_is_mirrored():
    names = sorted(n for n in dir(jnp.linalg) if not n.startswith("_"))
    missing = [n for n in names if not hasattr(wnp.linalg, n) and n not in EXCLUDED]
    assert not missing, f"weaktrace.numpy.linalg lacks {missing}"
    stale = [n for n in EXCLUDED if hasattr(wnp.linalg, n) or not hasattr(jnp.linalg, n)]
    assert not stale, f"drop {stale} from EXCLUDED"
    assert sorted(wnp.linalg.__all__) == [n for n in names if n not in EXCLUDED]


def test_linalg_is_a_submodule():
    from weaktrace.numpy import linalg

    assert wnp.linalg is linalg
    assert "linalg" not in wnp.__all__  # a module, as jax.numpy.linalg is


# -- keyword values, every one in CI: qr raw (geqrf), slogdet qr, svd subset_by_index, and
# general vector-norm orders of integers (ord and 1/ord truncate to the integer dtype) --

KEYWORD_VALUES = {
    "qr raw": lambda m, a: m.linalg.qr(a, mode="raw"),
    "qr raw batch": lambda m, a: m.linalg.qr(a[None], mode="raw"),
    "slogdet qr": lambda m, a: m.linalg.slogdet(a, method="qr"),
    "slogdet bad": lambda m, a: m.linalg.slogdet(a, method="cholesky"),
    "svd subset all": lambda m, a: m.linalg.svd(a, subset_by_index=(0, 4)),
    "svd subset all values": lambda m, a: m.linalg.svd(a, False, False, subset_by_index=(0, 4)),
    "svd subset part": lambda m, a: m.linalg.svd(a, full_matrices=False, subset_by_index=(0, 2)),
    "svd subset beyond": lambda m, a: m.linalg.svd(a, False, subset_by_index=(0, 9)),
    "svd subset full": lambda m, a: m.linalg.svd(a, subset_by_index=(1, 3)),
    "svd subset hermitian": lambda m, a: m.linalg.svd(a, hermitian=True, subset_by_index=(0, 2)),
    "svd subset hermitian all": lambda m, a: m.linalg.svd(a, hermitian=True,
                                                          subset_by_index=(0, 4)),
    "vector_norm 0.5": lambda m, a: m.linalg.vector_norm(a, ord=0.5),
    "vector_norm 1e-3": lambda m, a: m.linalg.vector_norm(a, ord=1e-3, axis=1),
    "vector_norm 2.5": lambda m, a: m.linalg.vector_norm(a, ord=2.5),
    "vector_norm -1": lambda m, a: m.linalg.vector_norm(a, ord=-1),
    "vector_norm -1.5": lambda m, a: m.linalg.vector_norm(a, ord=-1.5),
    "norm 0.5": lambda m, a: m.linalg.norm(a, ord=0.5, axis=0),
}  # fmt: skip
KEYWORD_DTYPES = ("int8", "int32", "int64", "uint8", "uint64", "bool", "float32", "complex64")
KEYWORD_CASES = [(n, d) for n in KEYWORD_VALUES for d in KEYWORD_DTYPES]


def _keyword_params(full: bool) -> list:
    """All (name, dtype) pairs in both modes under --run-slow; in CI each name once with
    a float32 or complex64 operand and once with an integer or bool one, x64 alternating."""
    if full:
        return [(c, x64) for c in KEYWORD_CASES for x64 in (False, True)]
    ints = ("int8", "int32", "int64", "uint8", "uint64", "bool")
    picked = []
    for i, name in enumerate(KEYWORD_VALUES):
        picked.append(((name, ("float32", "complex64")[i % 2]), bool(i % 2)))
        picked.append(((name, ints[i % len(ints)]), not i % 2))
    return picked


def test_keyword_values(keyword_case):
    """Each keyword value against jax (results, or the same kind of error: complex
    slogdet qr, subsets CPU kernels do not compute, negative integer powers)."""
    (name, dtype), x64 = keyword_case
    f = KEYWORD_VALUES[name]
    a = _matrix(dtype, (4, 4), "gen", 0)
    with jax.enable_x64(x64):
        check(lambda x: f(wnp, x), lambda x: f(jnp, x), a, context=name, **_tol(dtype))


def test_slogdet_qr_sign_counts_reflections():
    """A permutation matrix: geqrf reflects, so the sign comes from the taus."""
    a = np.eye(4, dtype=np.float32)[[1, 0, 3, 2]]
    sign, logdet = wnp.linalg.slogdet(a, method="qr")
    want = jnp.linalg.slogdet(a, method="qr")
    assert float(sign) == float(want.sign) == 1.0
    np.testing.assert_allclose(logdet, want.logabsdet, atol=1e-6)
