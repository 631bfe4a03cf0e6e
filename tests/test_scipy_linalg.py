"""weaktrace.scipy.linalg against jax.scipy.linalg (computed at test time): every
function over generated dtypes (integers, bool, f32, f64, complex), batch and empty
shapes and keyword values, eagerly and traced, x64 off and on; weak operands; errors
where jax errors; gradients through jax.grad; coverage of jax's public names."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
import weaktrace.scipy.linalg as wsl
from tests.conftest import full_run
from tests.math_cases import with_x64
from tests.mirror_harness import _family, check

# Names jax.scipy.linalg offers that weaktrace.scipy.linalg does not mirror, with the reason.
EXCLUDED: dict[str, str] = {}

DTYPES = ("int32", "bool", "float32", "float64", "complex64", "complex128")


def _operand(dtype: str, shape: tuple[int, ...], kind: str, seed: int) -> np.ndarray:
    """ "gen" (diagonally dominant), "spd" (A A^H + n I), "tri" (upper triangular,
    dominant diagonal), "small" (norm < 1), "rect"/"vec" (any values)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = shape[-1] if shape else 1
    if dt.kind == "b":
        base = rng.integers(0, 2, shape).astype(bool)
        if kind in ("gen", "spd", "tri") and len(shape) >= 2:
            eye = np.broadcast_to(np.eye(*shape[-2:], dtype=bool), shape)
            base = eye | ((kind == "gen") & base)
        return base
    if dt.kind in "iu":
        base = rng.integers(-3, 4, shape).astype(np.float64)
    else:
        base = rng.normal(size=shape)
        if dt.kind == "c":
            base = base + 1j * rng.normal(size=shape)
    if kind == "spd":
        base = base @ np.conj(np.swapaxes(base, -1, -2)) + n * np.eye(n)
    elif kind == "gen":
        base = base + 3 * n * np.eye(*shape[-2:])
    elif kind == "tri":
        base = np.triu(base) + 3 * n * np.eye(*shape[-2:])
    elif kind == "small" and dt.kind not in "iu":
        base = base / (2 * n)
    return base.astype(dt)


SQ, BSQ, RECT, E0 = (3, 3), (2, 3, 3), (4, 3), (0, 0)
TALL, WIDE = (4, 3), (3, 4)
FUNCS = {
    "cholesky": (lambda m, a: m.cholesky(a), ["spd"], [SQ, BSQ]),
    "cholesky lower": (lambda m, a: m.cholesky(a, lower=True, check_finite=False), ["spd"], [BSQ]),
    "cho_factor": (lambda m, a: m.cho_factor(a, True)[0], ["spd"], [SQ]),
    "cho_solve": (lambda m, a, b: m.cho_solve(m.cho_factor(a), b), ["spd", "rect"],
                  [(SQ, (3, 2)), (SQ, (3,)), (BSQ, (1, 3, 2)), ((1, 3, 3), (2, 3, 1))]),
    "cho_solve lower": (lambda m, a, b: m.cho_solve((m.cholesky(a, lower=True), True), b),
                        ["spd", "rect"], [(BSQ, (3, 2))]),
    "svd": (lambda m, a: m.svd(a), ["rect"], [RECT, (2, 3, 4)]),
    "svd values": (lambda m, a: m.svd(a, full_matrices=False, compute_uv=False), ["rect"], [RECT]),
    "svd reduced": (lambda m, a: m.svd(a, False, lapack_driver="gesvd"), ["rect"], [WIDE]),
    "det": (lambda m, a: m.det(a), ["gen"], [SQ, BSQ, (4, 4), E0]),
    "inv": (lambda m, a: m.inv(a), ["gen"], [SQ, BSQ]),
    "eigh": (lambda m, a: m.eigh(a), ["spd"], [SQ, BSQ]),
    "eigh upper": (lambda m, a: m.eigh(a, lower=False, eigvals_only=True), ["spd"], [BSQ]),
    "schur": (lambda m, a: m.schur(a), ["gen"], [SQ, BSQ]),
    "schur complex": (lambda m, a: m.schur(a, output="complex"), ["gen"], [SQ]),
    "hessenberg": (lambda m, a: m.hessenberg(a), ["rect"], [SQ, (2, 4, 4)]),
    "hessenberg q": (lambda m, a: m.hessenberg(a, calc_q=True), ["rect"], [(4, 4), E0]),
    "lu_factor": (lambda m, a: m.lu_factor(a), ["gen"], [SQ, BSQ, TALL]),
    "lu_solve": (lambda m, a, b: m.lu_solve(m.lu_factor(a), b), ["gen", "rect"],
                 [(SQ, (3, 2)), (SQ, (3,)), (BSQ, (3, 1))]),
    "lu_solve trans": (lambda m, a, b: m.lu_solve(m.lu_factor(a), b, trans=1), ["gen", "rect"],
                       [(BSQ, (2, 3, 2))]),
    "lu_solve conj": (lambda m, a, b: m.lu_solve(m.lu_factor(a), b, 2), ["gen", "rect"],
                      [(SQ, (3, 2))]),
    "lu": (lambda m, a: m.lu(a), ["gen"], [SQ, TALL, WIDE]),
    "lu permute_l": (lambda m, a: m.lu(a, permute_l=True), ["gen"], [TALL]),
    "qr": (lambda m, a: m.qr(a), ["rect"], [TALL, (2, 3, 4)]),
    "qr economic": (lambda m, a: m.qr(a, mode="economic"), ["rect"], [TALL]),
    "qr r": (lambda m, a: m.qr(a, mode="r"), ["rect"], [WIDE, TALL]),
    "qr r pivoting": (lambda m, a: m.qr(a, mode="r", pivoting=True), ["rect"], [TALL]),
    "qr pivoting": (lambda m, a: m.qr(a, pivoting=True), ["rect"], [TALL]),
    "qr_multiply": (lambda m, a, c: m.qr_multiply(a, c), ["rect", "rect"],
                    [(TALL, (2, 4)), (WIDE, (3,)), ((2, 4, 3), (4,))]),
    "qr_multiply left": (lambda m, a, c: m.qr_multiply(a, c, mode="left", conjugate=True),
                         ["rect", "rect"], [(TALL, (3, 2)), (TALL, (3,))]),
    "polar": (lambda m, a: m.polar(a), ["gen"], [SQ, (2, 4, 3)]),
    "polar left svd": (lambda m, a: m.polar(a, "left", method="svd"), ["gen"], [TALL]),
    "polar max_iterations": (lambda m, a: m.polar(a, max_iterations=3), ["gen"], [SQ]),
    "polar svd eps": (lambda m, a: m.polar(a, method="svd", eps=1e-3), ["gen"], [SQ]),
    "rsf2csf": (lambda m, a: m.rsf2csf(*m.schur(a)), ["gen"], [SQ, BSQ]),
    "solve": (lambda m, a, b: m.solve(a, b), ["gen", "rect"],
              [(SQ, (3, 2)), (BSQ, (3,)), (BSQ, (1, 3, 2))]),
    "solve pos": (lambda m, a, b: m.solve(a, b, assume_a="pos", lower=True), ["spd", "rect"],
                  [(SQ, (3, 2)), (BSQ, (2, 3))]),
    "solve sym": (lambda m, a, b: m.solve(a, b, assume_a="sym"), ["spd", "rect"], [(SQ, (3,))]),
    "solve_triangular": (lambda m, a, b: m.solve_triangular(a, b), ["tri", "rect"],
                         [(SQ, (3, 2)), (SQ, (3,)), (BSQ, (1, 3, 2)), ((3, 0, 0), (0, 2))]),
    "solve_triangular T": (lambda m, a, b: m.solve_triangular(a.mT, b, trans="T", lower=True),
                           ["tri", "rect"], [(BSQ, (3, 2))]),
    "solve_triangular C": (lambda m, a, b: m.solve_triangular(a, b, 2, unit_diagonal=True),
                           ["tri", "rect"], [(SQ, (3, 4))]),
    "solve_sylvester": (lambda m, a, b, c: m.solve_sylvester(a, b, c), ["gen", "gen", "rect"],
                        [(SQ, (2, 2), (3, 2))]),
    "solve_sylvester eigen": (lambda m, a, b, c: m.solve_sylvester(a, b, c, method="eigen"),
                              ["spd", "spd", "rect"], [(SQ, SQ, SQ)]),
    "expm": (lambda m, a: m.expm(a), ["small"], [SQ, BSQ, E0]),
    "expm upper": (lambda m, a: m.expm(a, upper_triangular=True, max_squarings=8), ["tri"],
                   [SQ]),
    "expm_frechet": (lambda m, a, e: m.expm_frechet(a, e), ["small", "small"], [(SQ, SQ)]),
    "expm_frechet only": (lambda m, a, e: m.expm_frechet(a, e, compute_expm=False),
                          ["small", "small"], [(BSQ, BSQ)]),
    "sqrtm": (lambda m, a: m.sqrtm(a), ["spd"], [SQ]),
    "funm": (lambda m, a: m.funm(a, jnp.sin), ["spd"], [SQ]),
    "funm disp": (lambda m, a: m.funm(a, jnp.exp, disp=False)[0], ["spd"], [SQ]),
    "eigh_tridiagonal": (lambda m, d, e: m.eigh_tridiagonal(d, e), ["vec", "vec"],
                         [((4,), (3,)), ((1,), (0,))]),
    "eigh_tridiagonal i": (lambda m, d, e: m.eigh_tridiagonal(
        d, e, eigvals_only=True, select="i", select_range=(1, 2)), ["vec", "vec"], [((5,), (4,))]),
    "block_diag": (lambda m, a, b: m.block_diag(a, b, a[0, 0]), ["rect", "rect"],
                   [(RECT, (2,)), (SQ, (2, 0))]),
    "toeplitz": (lambda m, c: m.toeplitz(c), ["vec"], [(3,), (2, 4), ()]),
    "toeplitz r": (lambda m, c, r: m.toeplitz(c, r), ["vec", "vec"], [((3,), (2,)),
                                                                      ((2, 3), (4,))]),
    "hankel": (lambda m, c: m.hankel(c), ["vec"], [(3,), (2, 4)]),
    "hankel r": (lambda m, c, r: m.hankel(c, r), ["vec", "vec"], [((3,), (2,)), ((2, 3), (4,))]),
    "circulant": (lambda m, c: m.circulant(c), ["vec"], [(3,), (2, 4), ()]),
    "leslie": (lambda m, f, s: m.leslie(f, s), ["vec", "vec"], [((3,), (2,)), ((2, 4), (3,))]),
    "companion": (lambda m, a: m.companion(a + 5), ["vec"], [(3,), (2, 4)]),
    "fiedler": (lambda m, a: m.fiedler(a), ["vec"], [(4,), (2, 3)]),
    "fiedler_companion": (lambda m, a: m.fiedler_companion(a + 5), ["vec"], [(5,), (2, 4), (1,)]),
    "convolution_matrix": (lambda m, a: m.convolution_matrix(a, 4), ["vec"], [(3,), (2, 5)]),
    "convolution_matrix same": (lambda m, a: m.convolution_matrix(a, 2, "same"), ["vec"], [(5,)]),
    "convolution_matrix valid": (lambda m, a: m.convolution_matrix(a, 2, mode="valid"), ["vec"],
                                 [(5,)]),
}  # fmt: skip

# Functions of no array operand: (f(module), ...)
CONSTANTS = {
    "hilbert": lambda m: m.hilbert(4),
    "invhilbert": lambda m: m.invhilbert(4),
    "pascal": lambda m: m.pascal(4),
    "pascal lower": lambda m: m.pascal(4, kind="lower"),
    "invpascal": lambda m: m.invpascal(4, "upper"),
    "helmert": lambda m: m.helmert(4),
    "helmert full": lambda m: m.helmert(3, full=True),
    "hadamard": lambda m: m.hadamard(4),
    "hadamard float": lambda m: m.hadamard(2, jnp.float32),
    "dft": lambda m: m.dft(3),
    "dft sqrtn": lambda m: m.dft(4, "sqrtn", dtype=jnp.complex128),
    # Python scalars and lists as operands (weak scalars promote as jax's do)
    "block_diag python": lambda m: m.block_diag(1.0, 2, [[3, 4]]),
    "block_diag none": lambda m: m.block_diag(),
    "toeplitz python": lambda m: m.toeplitz([1, 2, 3], [1.5, 2]),
    "circulant python": lambda m: m.circulant(2.0),
    "leslie python": lambda m: m.leslie([1.0, 2.0], 0.5),
    "companion python": lambda m: m.companion([1, 2, 3]),
    "fiedler python": lambda m: m.fiedler([1, 2, 4]),
    "expm python": lambda m: m.expm([[0.0, 1.0], [0.0, 0.0]]),
    "solve_triangular python": lambda m: m.solve_triangular(
        [[2.0, 0.0], [1, 1]], [1, 2.0], lower=True
    ),
    "lu python": lambda m: m.lu([[1.0, 2.0], [3.0, 4.0]]),
    "schur python": lambda m: m.schur([[1.0, 2.0], [3.0, 4.0]]),
    "eigh_tridiagonal python": lambda m: m.eigh_tridiagonal([1.0, 2.0], [0.5]),
    "expm_frechet python": lambda m: m.expm_frechet(
        [[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 0.0]]
    ),
    "cho_solve python": lambda m: m.cho_solve(([[2.0, 0.0], [1.0, 1.0]], True), [1, 2]),
}

# Functions whose value depends on an eigen- or Schur decomposition's arbitrary signs or
# order between implementations: compared by dtype, shape and weak flag only.
SHAPE_ONLY = {"schur", "schur complex", "hessenberg q", "rsf2csf", "qr pivoting"}


def _tol(dtype: str) -> dict[str, float]:
    if dtype in ("float64", "complex128"):
        return {"rtol": 1e-6, "atol": 1e-6}
    return {"rtol": 2e-3, "atol": 2e-3}


def _cases() -> list[tuple[str, str, int]]:
    return [
        (name, dt, i)
        for name, (_, _, shapes) in FUNCS.items()
        for i in range(len(shapes))
        for dt in DTYPES
    ]


CASES = _cases()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        cases = with_x64(CASES, 48, full_run(metafunc.config))
        ids = [f"{c[0]}-{c[1]}-s{c[2]}-{'x64' if x else 'x32'}" for c, x in cases]
        metafunc.parametrize("case", cases, ids=ids)


def _operands(name: str, dtype: str, index: int) -> list[np.ndarray]:
    _, kinds, shapes = FUNCS[name]
    shape = shapes[index]
    per = [shape] if len(kinds) == 1 else list(shape)
    return [_operand(dtype, s, k, seed) for seed, (k, s) in enumerate(zip(kinds, per, strict=True))]


def _check(name: str, f, args, dtype: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        check(lambda *a: f(wsl, *a), lambda *a: f(jsl, *a), *args, context=name,
              values=name not in SHAPE_ONLY, **_tol(dtype))  # fmt: skip


@pytest.mark.ci_sample(2)
def test_scipy_linalg_function(case):
    (name, dtype, index), x64 = case
    with jax.enable_x64(x64):
        _check(name, FUNCS[name][0], _operands(name, dtype, index), dtype)


@pytest.mark.slow
@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("name", list(FUNCS))
def test_scipy_linalg_sweep(name, x64, full):
    """Every function, shape and dtype in one x64 mode (with --run-slow; without it,
    test_scipy_linalg_function runs a sample of these cases)."""
    if not full:
        pytest.skip("the whole sweep runs with --run-slow")
    for i in range(len(FUNCS[name][2])):
        for dtype in DTYPES:
            with jax.enable_x64(x64):
                _check(name, FUNCS[name][0], _operands(name, dtype, i), dtype)


@pytest.mark.parametrize("name", list(CONSTANTS))
@pytest.mark.ci_sample(2)
def test_constant_matrices(name, full):
    """x64 alternating by case (both with --run-slow): the default dtypes follow it."""
    f = CONSTANTS[name]
    i = list(CONSTANTS).index(name)
    for x64 in (False, True) if full else (bool(i % 2),):
        with jax.enable_x64(x64):
            check(lambda: f(wsl), lambda: f(jsl), context=name)


def test_decomposition_values():
    """Schur and Hessenberg forms are compared above by type only; here their values,
    which jax computes with the same LAPACK kernels."""
    a = _operand("float64", (4, 4), "gen", 3)
    fs = [lambda m, x: m.schur(x), lambda m, x: m.hessenberg(x, calc_q=True),
          lambda m, x: m.rsf2csf(*m.schur(x)), lambda m, x: m.qr(x, pivoting=True)]  # fmt: skip
    for f in fs:
        got, want = f(wsl, jnp.asarray(a)), f(jsl, jnp.asarray(a))
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-4)


# -- weak operands -----------------------------------------------------------------------

WEAK = ["cholesky", "cho_solve", "det", "inv", "eigh", "schur", "schur complex", "hessenberg q",
        "lu_factor", "lu_solve", "lu", "qr", "qr pivoting", "qr_multiply", "polar", "rsf2csf",
        "solve", "solve pos", "solve_triangular", "solve_sylvester", "expm", "expm_frechet",
        "sqrtm", "block_diag", "toeplitz", "hankel", "circulant", "leslie", "companion",
        "fiedler", "fiedler_companion", "convolution_matrix", "eigh_tridiagonal",
        "funm"]  # fmt: skip


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("name", WEAK)
def test_weak_operands(name, x64):
    """Weakly typed float operands (as jax.jit sees arguments marked weak)."""
    f, _, shapes = FUNCS[name]
    shape = shapes[0]
    per = [shape] if len(FUNCS[name][1]) == 1 else list(shape)
    dt = np.dtype("float64" if x64 else "float32")
    args = [jax.ShapeDtypeStruct(s, dt, weak_type=True) for s in per]
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        want = jax.eval_shape(lambda *a: f(jsl, *a), *args)
        got = wt.trace(lambda *a: f(wsl, *a)).trace(*args).out_avals
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type), name


# -- errors ------------------------------------------------------------------------------

ERRORS = [
    ("expm vector", lambda m, a: m.expm(a[0]), (3, 3)),
    ("expm non-square", lambda m, a: m.expm(a), (3, 4)),
    ("expm_frechet shapes", lambda m, a: m.expm_frechet(a, a[:2, :2]), (3, 3)),
    ("expm_frechet int", lambda m, a: m.expm_frechet(a.astype(jnp.int32), a), (3, 3)),
    ("expm_frechet dtypes", lambda m, a: m.expm_frechet(a, a.astype(jnp.complex64)), (3, 3)),
    ("sqrtm empty", lambda m, a: m.sqrtm(a[:0, :0]), (3, 3)),
    ("schur output", lambda m, a: m.schur(a, output="x"), (3, 3)),
    ("schur int", lambda m, a: m.schur(a.astype(jnp.int32)), (3, 3)),
    ("hessenberg bool", lambda m, a: m.hessenberg(a > 0), (3, 3)),
    ("qr mode", lambda m, a: m.qr(a, mode="raw"), (3, 3)),
    ("qr_multiply mode", lambda m, a: m.qr_multiply(a, a, mode="up"), (3, 3)),
    ("qr_multiply shapes", lambda m, a: m.qr_multiply(a, a[:, :2]), (3, 3)),
    ("qr_multiply left shapes", lambda m, a: m.qr_multiply(a, a[:, :2], mode="left"), (3, 2)),
    ("solve assume_a", lambda m, a: m.solve(a, a, assume_a="tri"), (3, 3)),
    ("solve pos shapes", lambda m, a: m.solve(a, a[:2], assume_a="pos"), (3, 3)),
    ("solve pos vector", lambda m, a: m.solve(a, a[0, 0], assume_a="pos"), (2, 3, 3)),
    ("solve_triangular trans", lambda m, a: m.solve_triangular(a, a, trans=3), (3, 3)),
    ("solve_triangular shapes", lambda m, a: m.solve_triangular(a, a[:2]), (3, 3)),
    ("cho_solve shapes", lambda m, a: m.cho_solve((a, False), a[:2]), (3, 3)),
    ("lu_solve shapes", lambda m, a: m.lu_solve(m.lu_factor(a), a[:2]), (3, 3)),
    ("lu batched", lambda m, a: m.lu(a), (2, 3, 3)),
    ("polar side", lambda m, a: m.polar(a, "up"), (3, 3)),
    ("polar vector", lambda m, a: m.polar(a[0]), (3, 3)),
    ("polar method", lambda m, a: m.polar(a, method="newton"), (3, 3)),
    ("polar qdwh wide", lambda m, a: m.polar(a), (3, 4)),
    ("polar eps", lambda m, a: m.polar(a, eps=1e-3), (3, 3)),
    ("polar int", lambda m, a: m.polar(a.astype(jnp.int32)), (3, 3)),
    ("rsf2csf shapes", lambda m, a: m.rsf2csf(a, a[:2, :2]), (3, 3)),
    ("rsf2csf non-square", lambda m, a: m.rsf2csf(a, a), (3, 4)),
    ("sqrtm blocksize", lambda m, a: m.sqrtm(a, blocksize=2), (3, 3)),
    ("sqrtm batched", lambda m, a: m.sqrtm(a), (2, 3, 3)),
    ("eigh b", lambda m, a: m.eigh(a, a), (3, 3)),
    ("eigh type", lambda m, a: m.eigh(a, type=2), (3, 3)),
    ("eigh eigvals", lambda m, a: m.eigh(a, eigvals=(0, 1)), (3, 3)),
    ("solve_sylvester shapes", lambda m, a: m.solve_sylvester(a, a, a[:2]), (3, 3)),
    ("solve_sylvester method", lambda m, a: m.solve_sylvester(a, a, a, method="x"), (3, 3)),
    (
        "eigh_tridiagonal dtypes",
        lambda m, a: m.eigh_tridiagonal(a[0], a[0, :2].astype(jnp.float16)),
        (3, 3),
    ),
    (
        "eigh_tridiagonal int",
        lambda m, a: m.eigh_tridiagonal(a[0].astype(jnp.int32), a[0, :2].astype(jnp.int32)),
        (3, 3),
    ),
    (
        "eigh_tridiagonal select",
        lambda m, a: m.eigh_tridiagonal(a[0], a[0, :2], select="x"),
        (3, 3),
    ),
    (
        "eigh_tridiagonal select v",
        lambda m, a: m.eigh_tridiagonal(a[0], a[0, :2], select="v"),
        (3, 3),
    ),
    ("eigh_tridiagonal range", lambda m, a: m.eigh_tridiagonal(a[0], a[0, :2], select="i"), (3, 3)),
    ("block_diag 3-d", lambda m, a: m.block_diag(a[None]), (3, 3)),
    ("hankel scalar", lambda m, a: m.hankel(a[0, 0]), (3, 3)),
    ("leslie lengths", lambda m, a: m.leslie(a[0], a[0]), (3, 3)),
    ("leslie short", lambda m, a: m.leslie(a[0, :1], a[0, :0]), (3, 3)),
    ("companion short", lambda m, a: m.companion(a[0, :1]), (3, 3)),
    ("fiedler bool", lambda m, a: m.fiedler(a[0] > 0), (3, 3)),
    ("fiedler_companion empty", lambda m, a: m.fiedler_companion(a[0, :0]), (3, 3)),
    ("convolution_matrix n", lambda m, a: m.convolution_matrix(a[0], 0), (3, 3)),
    ("convolution_matrix mode", lambda m, a: m.convolution_matrix(a[0], 2, "x"), (3, 3)),
    ("convolution_matrix scalar", lambda m, a: m.convolution_matrix(a[0, 0], 2), (3, 3)),
    ("pascal kind", lambda m, a: m.pascal(3, kind="x"), (3, 3)),
    ("invpascal kind", lambda m, a: m.invpascal(3, kind="x"), (3, 3)),
    ("helmert n", lambda m, a: m.helmert(0), (3, 3)),
    ("hadamard n", lambda m, a: m.hadamard(3), (3, 3)),
    ("dft scale", lambda m, a: m.dft(3, scale="x"), (3, 3)),
    ("dft dtype", lambda m, a: m.dft(3, dtype=jnp.float32), (3, 3)),
]


@pytest.mark.parametrize("err", range(len(ERRORS)), ids=[e[0] for e in ERRORS])
def test_errors(err, full):
    name, f, shape = ERRORS[err]
    a = _operand("float32", shape, "gen" if shape[-1] == shape[-2] else "rect", 0)
    for x64 in (False, True) if full else (bool(err % 2),):
        with jax.enable_x64(x64):
            with pytest.raises(Exception) as want:
                jax.jit(lambda x: f(jsl, x))(a)
            with pytest.raises((wt.WeaktraceError, NotImplementedError)) as got:
                wt.trace(lambda x: f(wsl, x)).trace(a)
            assert isinstance(got.value, _family(want.value)), (name, got.value, want.value)
            if full:  # eagerly too, and the error families compared
                check(lambda x: f(wsl, x), lambda x: f(jsl, x), a, context=name)


def test_batched_vector_solves_warn_as_jax():
    """A batch of vectors as b is deprecated in jax with a FutureWarning; so here."""
    a = jnp.asarray(_operand("float32", (2, 3, 3), "tri", 0))
    b = jnp.asarray(_operand("float32", (2, 3), "rect", 1))
    for f in (lambda m: m.solve_triangular(a, b), lambda m: m.cho_solve((a, False), b),
              lambda m: m.lu_solve(m.lu_factor(a), b)):  # fmt: skip
        with pytest.warns(FutureWarning):
            want = f(jsl)
        with pytest.warns(FutureWarning, match="batched 1D solves"):
            got = f(wsl)
        np.testing.assert_allclose(got, want, rtol=1e-5)


# -- gradients ---------------------------------------------------------------------------

LOSSES = {
    "solve_triangular": lambda m, a, b: (m.solve_triangular(a, b, lower=True) ** 2).sum(),
    "solve_triangular T": lambda m, a, b: m.solve_triangular(a, b, trans=1).sum(),
    "cho_solve": lambda m, a, b: (m.cho_solve(m.cho_factor(a @ a.T + 3 * jnp.eye(3)), b) ** 2)
    .sum(),
    "expm": lambda m, a, b: (m.expm(a / 10) * b[:, :1]).sum(),
    "expm_frechet": lambda m, a, b: m.expm_frechet(a / 10, a.T / 10, compute_expm=False).sum(),
    "lu_solve": lambda m, a, b: (m.lu_solve(m.lu_factor(a), b) ** 2).sum(),
    "solve pos": lambda m, a, b: m.solve(a @ a.T + 3 * jnp.eye(3), b, assume_a="pos").sum(),
    "det": lambda m, a, b: m.det(a) * b.sum(),
    "toeplitz": lambda m, a, b: (m.toeplitz(a[0], b[:, 0]) ** 2).sum(),
}  # fmt: skip


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.ci_sample(2)
def test_gradients(name):
    """jax.grad through a compiled weaktrace function equals jax's gradient."""
    loss = LOSSES[name]
    a = _operand("float32", (3, 3), "tri", 1)
    b = _operand("float32", (3, 2), "rect", 2)
    ours = jax.grad(wt.trace(lambda x, y: loss(wsl, x, y)), argnums=(0, 1))(a, b)
    want = jax.grad(lambda x, y: loss(jsl, x, y), argnums=(0, 1))(a, b)
    for g, w in zip(ours, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-3, atol=1e-4)


# -- policies, coverage --------------------------------------------------------------------


def test_integer_operands_follow_the_policy():
    """Each mirror promotes with weaktrace's own rules: under the torch policy an int32
    matrix becomes torch's default float (float32), as under jax with x64 off."""
    a = _operand("int32", (3, 3), "gen", 0)
    with jax.enable_x64(True):
        got = wt.trace(lambda x: wsl.expm(x), policy="torch").trace(a).out_avals
        want = jax.eval_shape(lambda x: jsl.expm(x.astype(jnp.float32)), a)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)


def test_every_jax_scipy_linalg_name_is_mirrored():
    names = sorted(n for n in dir(jsl) if not n.startswith("_"))
    missing = [n for n in names if not hasattr(wsl, n) and n not in EXCLUDED]
    assert not missing, missing
    assert sorted(wsl.__all__) == [n for n in names if n not in EXCLUDED]


def test_signatures_match_jax():
    import inspect

    for n in wsl.__all__:
        ours = list(inspect.signature(getattr(wsl, n)).parameters.items())
        theirs = list(inspect.signature(getattr(jsl, n)).parameters.items())
        assert [(k, p.kind, p.default) for k, p in ours] == [
            (k, p.kind, p.default) for k, p in theirs
        ], n


def test_scipy_exposes_linalg():
    import weaktrace.scipy as wscipy

    assert wscipy.linalg is wsl
    assert wnp.linalg is not wsl


def test_jax_scipy_linalg_on_a_tracer_names_the_mirror():
    """jax.scipy.linalg handed a weaktrace tracer: the error names weaktrace.scipy.linalg."""
    x = jnp.eye(3)
    with pytest.raises(wt.ForeignFunctionError, match=r"weaktrace\.scipy\.linalg\.expm"):
        wt.trace(lambda a: jax.scipy.linalg.expm(a)).trace(x)
    with pytest.raises(wt.ForeignFunctionError, match=r"weaktrace\.numpy\.linalg\.inv"):
        wt.trace(lambda a: jnp.linalg.inv(a)).trace(x)
