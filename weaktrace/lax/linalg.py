"""``weaktrace.lax.linalg``: ``jax.lax.linalg``'s decompositions and solves, with its
names, signatures and dtype rules. They work on the last two axes of a batch of
matrices; ``cholesky`` and ``eigh`` symmetrize their operand first with
jax.numpy's operators (so integer and bool matrices become inexact as jax's true
division makes them), the others take float32,
float64, complex64 or complex128 only. Options jax offers that weaktrace cannot
lower identically raise NotImplementedError instead of computing something else."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from jax.lax import linalg as _jlinalg

from weaktrace.core import primitives_linalg as L
from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context, operand
from weaktrace.core.primitives_lax_linalg import lax_linalg_p
from weaktrace.core.promotion import bind
from weaktrace.core.trace import Tracer
from weaktrace.lax import ops

EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.lax.linalg")
DATA = {n: getattr(_jlinalg, n) for n in ("EigImplementation", "EighImplementation",
                                          "SvdAlgorithm")}  # fmt: skip


def _one(x: Any) -> Tracer:
    return operand(x, context(x))


def _unsupported(name: str, **options: Any) -> None:
    bad = [k for k, v in options.items() if v]
    if bad:
        raise NotImplementedError(f"weaktrace.lax.linalg.{name}: {', '.join(bad)} not supported")


def _symmetrize(x: Any) -> Any:
    """jax's ``symmetrize``: ``(x + x^H) / 2`` with jax.numpy's operators (an integer
    or bool matrix becomes the inexact dtype jax's true division gives it)."""
    n = x.aval.ndim
    h = ops.transpose(x, (*range(n - 2), n - 1, n - 2)).conj()
    return (x + h) / 2


@export
def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """``jax.lax.linalg.cholesky``: the lower Cholesky factor (NaNs where x is not
    positive definite)."""
    t = _one(x)
    if symmetrize_input:
        t = _symmetrize(t)
    return bind(L.cholesky_p, t, symmetrize_input=False)


@export
def eigh(x: Any, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index: Any = None,
         implementation: Any = None) -> Any:  # fmt: skip
    """``jax.lax.linalg.eigh``: (eigenvectors, eigenvalues) of a Hermitian matrix,
    eigenvalues ascending."""
    t = _one(x)
    if symmetrize_input:
        t = _symmetrize(t)
    params: dict[str, Any] = {"lower": bool(lower), "symmetrize_input": False}
    # the other options as jax's (only when given, so programs print as before); XLA
    # refuses those this platform lacks (subset_by_index, JACOBI and QDWH on CPU) as
    # jax's own call does, with jax's NotImplementedError
    if not sort_eigenvalues:
        params["sort_eigenvalues"] = False
    if subset_by_index is not None:
        lo, hi = (operator.index(i) for i in subset_by_index)
        params["subset_by_index"] = (lo, hi)
    if implementation is not None:
        params["implementation"] = implementation
    return tuple(t.ctx.emit_n(L.eigh_p, (t,), params))


@export
def eig(x: Any, *, compute_left_eigenvectors: bool = True,
        compute_right_eigenvectors: bool = True, enable_eigvec_derivs: bool = False,
        implementation: Any = None, use_magma: Any = None) -> Any:  # fmt: skip
    """``jax.lax.linalg.eig``: [eigenvalues, left eigenvectors, right eigenvectors]
    (the ones asked for), complex."""
    _unsupported("eig", implementation=implementation)
    t = _one(x)
    params = {"compute_left_eigenvectors": bool(compute_left_eigenvectors),
              "compute_right_eigenvectors": bool(compute_right_eigenvectors)}  # fmt: skip
    if enable_eigvec_derivs:  # only jax's JVP rule reads it: handed to jax's eig
        params["enable_eigvec_derivs"] = True
    return t.ctx.emit_n(L.eig_p, (t,), params)


@export
def lu(x: Any) -> Any:
    """``jax.lax.linalg.lu``: (lu, pivots, permutation) with partial pivoting."""
    t = _one(x)
    return t.ctx.emit_n(L.lu_p, (t,), {})


@export
def qr(x: Any, *, pivoting: bool = False, full_matrices: bool = True,
       use_magma: Any = None) -> Any:  # fmt: skip
    """``jax.lax.linalg.qr``: (q, r)."""
    _unsupported("qr", pivoting=pivoting)
    t = _one(x)
    return tuple(t.ctx.emit_n(L.qr_p, (t,), {"full_matrices": bool(full_matrices)}))


@export
def svd(x: Any, *, full_matrices: bool = True, compute_uv: bool = True,
        subset_by_index: Any = None, algorithm: Any = None) -> Any:  # fmt: skip
    """``jax.lax.linalg.svd``: (u, s, vh), or s alone without compute_uv."""
    _unsupported("svd", subset_by_index=subset_by_index)
    t = _one(x)
    params = {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)}
    if algorithm is not None:  # jax's kernel choice, handed to its lowering (which checks it)
        params["algorithm"] = algorithm
    out = t.ctx.emit_n(L.svd_p, (t,), params)
    return tuple(out) if compute_uv else out[0]


@export
def triangular_solve(a: Any, b: Any, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False) -> Any:  # fmt: skip
    """``jax.lax.linalg.triangular_solve``: x with ``op(a) @ x = b`` (left_side) or
    ``x @ op(a) = b``, a triangular."""
    ctx = context(a, b)
    ta, tb = operand(a, ctx), operand(b, ctx)
    conjugate_a = conjugate_a and ta.aval[1].kind == "c"  # jax drops it for real a
    flags = {"left_side": left_side, "lower": lower, "transpose_a": transpose_a,
             "conjugate_a": conjugate_a, "unit_diagonal": unit_diagonal}  # fmt: skip
    # a b with one axis fewer than a is a single vector (a column, or a row if not left_side)
    singleton = tb.aval.ndim == ta.aval.ndim - 1
    if singleton:
        tb = ops.expand_dims(tb, (-1 if left_side else -2,))
    out = bind(L.triangular_solve_p, ta, tb, **{k: bool(v) for k, v in flags.items()})
    if singleton:
        out = out[..., 0] if left_side else out[..., 0, :]  # type: ignore[index]
    return out


def _call(fn: str, xs: tuple[Any, ...], **params: Any) -> list[Tracer]:
    ctx = context(*xs)
    ts = tuple(operand(x, ctx) for x in xs)
    return ctx.emit_n(lax_linalg_p, ts, {"fn": fn, "params": tuple(sorted(params.items()))})


@export
def hessenberg(a: Any) -> Any:
    """``jax.lax.linalg.hessenberg``: (a reduced to upper Hessenberg form with its
    Householder reflectors below the subdiagonal, taus)."""
    return _call("hessenberg", (a,))


@export
def householder_product(a: Any, taus: Any) -> Any:
    """``jax.lax.linalg.householder_product``: the product of the Householder
    reflectors stored in a's columns."""
    return _call("householder_product", (a, taus))[0]


@export
def ormqr(a: Any, taus: Any, c: Any, *, left: bool = True, transpose: bool = False) -> Any:
    """``jax.lax.linalg.ormqr``: c times the Q of a (reflectors, taus), from the left
    or the right, transposed or not."""
    return _call("ormqr", (a, taus, c), left=bool(left), transpose=bool(transpose))[0]


@export
def schur(x: Any, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable: Any = None) -> Any:  # fmt: skip
    """``jax.lax.linalg.schur``: (T, Schur vectors), or (T,)."""
    _unsupported("schur", sort_eig_vals=sort_eig_vals, select_callable=select_callable)
    return list(_call("schur", (x,), compute_schur_vectors=bool(compute_schur_vectors),
                       sort_eig_vals=False))  # fmt: skip


@export
def symmetric_product(a_matrix: Any, c_matrix: Any, *, alpha: float = 1.0, beta: float = 0.0,
                      symmetrize_output: bool = False) -> Any:  # fmt: skip
    """``jax.lax.linalg.symmetric_product``: ``alpha * a @ a.T + beta * c``."""
    return _call("symmetric_product", (a_matrix, c_matrix), alpha=float(alpha), beta=float(beta),
                 symmetrize_output=bool(symmetrize_output))[0]  # fmt: skip


@export
def tridiagonal(a: Any, *, lower: bool = True) -> Any:
    """``jax.lax.linalg.tridiagonal``: (reflectors, diagonal, off-diagonal, taus) of
    a Hermitian matrix reduced to tridiagonal form."""
    return _call("tridiagonal", (a,), lower=bool(lower))


@export
def tridiagonal_solve(dl: Any, d: Any, du: Any, b: Any, *, perturb_singular: bool = False) -> Any:
    """``jax.lax.linalg.tridiagonal_solve``: x with ``T @ x = b``, T given by its
    lower, main and upper diagonals."""
    return _call("tridiagonal_solve", (dl, d, du, b), perturb_singular=bool(perturb_singular))[0]


@export
def cholesky_update(r_matrix: Any, w_vector: Any) -> Any:
    """``jax.lax.linalg.cholesky_update``: the upper Cholesky factor of
    ``r.T @ r + w w.T``."""
    return _call("cholesky_update", (r_matrix, w_vector))[0]


@export
def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """``jax.lax.linalg.lu_pivots_to_permutation``: LU pivots (row swaps) as a
    permutation of permutation_size rows."""
    size = operator.index(permutation_size)
    return _call("lu_pivots_to_permutation", (pivots,), permutation_size=size)[0]


@export
def qdwh(x: Any, *, is_hermitian: bool = False, max_iterations: int | None = None,
         eps: float | None = None, dynamic_shape: Any = None) -> Any:  # fmt: skip
    """``jax.lax.linalg.qdwh``: the polar decomposition (u, h, iterations, converged)."""
    _unsupported("qdwh", dynamic_shape=dynamic_shape)
    ctx = context(x)
    params = {
        "is_hermitian": bool(is_hermitian),
        "max_iterations": max_iterations,
        "eps": eps,
        "_int": ctx.policy.scalar(int)[0],
    }  # the iteration count: a weak Python int
    return tuple(_call("qdwh", (x,), **params))


globals().update(DATA)
# jax's primitive objects (``cholesky_p``, ...), as jax's own, as weaktrace.lax re-exports
# jax.lax's: they name the equations jax records for an eager weaktrace call.
globals().update({_n: getattr(_jlinalg, _n) for _n in dir(_jlinalg) if _n.endswith("_p")})
__all__ = sorted({*EXPORTS, *DATA})
