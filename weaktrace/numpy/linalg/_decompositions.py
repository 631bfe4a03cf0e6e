"""``weaktrace.numpy.linalg``'s decompositions, determinants, solves and inverses.

Decompositions bind the ``jax.lax.linalg`` primitives of
``weaktrace.core.primitives_linalg``; everything else is composed from them and from
weaktrace.numpy functions the way ``jax._src.numpy.linalg`` composes it (``det`` of
2x2 and 3x3 matrices by cofactors, ``slogdet`` from the LU diagonal, ``inv`` as a
solve against the identity, ``pinv`` and ``lstsq`` from the SVD, norms from
reductions), so that values, dtypes and weak flags match. Integer and bool operands
promote to the policy's default inexact dtype first, as jax's
``promote_dtypes_inexact`` does. The result tuples are jax's own named tuples
(``EighResult``, ``QRResult``, ``SlogdetResult``, ``SVDResult``, ``EigResult``) so that
pytrees of results compare equal.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import ml_dtypes
import numpy as np
from jax._src.numpy.linalg import EighResult, EigResult, QRResult, SlogdetResult, SVDResult

from weaktrace.core import primitives_linalg as L
from weaktrace.core.primitives_lax import sort_p
from weaktrace.core.promotion import check_loop_ranks
from weaktrace.errors import InvalidInputError, OperandValueError, ShapeError
from weaktrace.numpy import contractions, creation, reductions, shapes, ufuncs
from weaktrace.numpy._core import (
    INT32,
    P,
    bind,
    context,
    convert,
    kind,
    lit,
    operand,
    promote,
)
from weaktrace.numpy.linalg._exports import EXPORTS, export

__all__ = ["EXPORTS", "export"]


def _inexact(name: str, *xs: Any) -> list[Any]:
    b = context(*xs)
    return promote(b, name, [operand_(x, b) for x in xs], "inexact")


def operand_(x: Any, b: Any) -> Any:
    """``operand``, typed loosely (tracers index and broadcast like arrays)."""
    return operand(x, b)


def _H(x: Any) -> Any:
    return ufuncs.conjugate(x.mT)


def _eye(x: Any, n: int) -> Any:
    """The n x n identity in x's dtype (strong)."""
    b = x.ctx
    rows = b.emit(P.iota_p, (), {"dtype": INT32, "shape": (n, n), "dimension": 0})
    cols = b.emit(P.iota_p, (), {"dtype": INT32, "shape": (n, n), "dimension": 1})
    return convert(b, bind(P.eq_p, rows, cols), x.aval[1], False)


def _square(name: str, x: Any) -> int:
    s = x.aval[0]
    if len(s) < 2 or s[-1] != s[-2]:
        raise ShapeError(f"Argument to {name}() must have shape [..., n, n], got {s}")
    return s[-1]


def _diag(x: Any, offset: int = 0) -> Any:
    """``jnp.diagonal(x, offset, -2, -1)``: the (offset) diagonal of the last two axes,
    as a strided slice of the flattened square corner."""
    x = x[..., :, offset:] if offset >= 0 else x[..., -offset:, :]
    *batch, rows, cols = x.aval[0]
    d = builtins.max(0, builtins.min(rows, cols))
    x = shapes.reshape(x[..., :d, :d], (*batch, d * d))
    return x[..., :: d + 1]


def _eps(x: Any) -> float:
    return float(ml_dtypes.finfo(x.aval[1].numpy).eps)


# -- decompositions ---------------------------------------------------------------


@export
def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> Any:
    """``jax.numpy.linalg.cholesky``: the lower (or upper) Cholesky factor."""
    (a,) = _inexact("cholesky", a)
    lo = bind(L.cholesky_p, a, symmetrize_input=bool(symmetrize_input))
    return _H(lo) if upper else lo


@export
def qr(a: Any, mode: str = "reduced") -> Any:
    """``jax.numpy.linalg.qr``: modes "reduced", "complete", "r" and "raw" (LAPACK's
    geqrf: the reflectors and R, transposed to ``(..., n, m)``, and the taus)."""
    (a,) = _inexact("qr", a)
    if mode in ("reduced", "r", "full"):
        full = False
    elif mode == "complete":
        full = True
    elif mode == "raw":
        h, taus = a.ctx.emit_n(L.geqrf_p, (a,), {})
        return QRResult(h.mT, taus)
    else:
        raise OperandValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = a.ctx.emit_n(L.qr_p, (a,), {"full_matrices": full})
    return r if mode == "r" else QRResult(q, r)


@export
def eigh(a: Any, UPLO: str | None = None, symmetrize_input: bool = True) -> Any:
    """``jax.numpy.linalg.eigh``: eigenvalues (real, ascending) and eigenvectors."""
    if UPLO not in (None, "L", "U"):
        raise OperandValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    (a,) = _inexact("eigh", a)
    params = {"lower": UPLO != "U", "symmetrize_input": bool(symmetrize_input)}
    v, w = a.ctx.emit_n(L.eigh_p, (a,), params)
    return EighResult(w, v)


@export
def eigvalsh(a: Any, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Any:
    """``jax.numpy.linalg.eigvalsh``."""
    return eigh(a, UPLO, symmetrize_input=symmetrize_input)[0]


@export
def eig(a: Any) -> Any:
    """``jax.numpy.linalg.eig`` (jax computes it on CPU only)."""
    (a,) = _inexact("eig", a)
    params = {"compute_left_eigenvectors": False, "compute_right_eigenvectors": True}
    w, v = a.ctx.emit_n(L.eig_p, (a,), params)
    return EigResult(w, v)


@export
def eigvals(a: Any) -> Any:
    """``jax.numpy.linalg.eigvals``."""
    (a,) = _inexact("eigvals", a)
    params = {"compute_left_eigenvectors": False, "compute_right_eigenvectors": False}
    return a.ctx.emit_n(L.eig_p, (a,), params)[0]


def _hermitian_svd(a: Any, compute_uv: bool) -> Any:
    """``svd(hermitian=True)``: from eigh, singular values sorted descending."""
    w, v = eigh(a)
    s = ufuncs.abs(w)
    last = s.aval.ndim - 1
    if not compute_uv:
        (s,) = s.ctx.emit_n(sort_p, (s,), {"dimension": last, "is_stable": True, "num_keys": 1})
        return bind(P.rev_p, s, dimensions=(last,))
    b = s.ctx
    sign = ufuncs.sign(w)
    idx = b.emit(P.iota_p, (), {"dimension": last, "shape": s.aval.shape, "dtype": INT32})
    params = {"dimension": last, "is_stable": True, "num_keys": 1}
    rev: list[Any] = [bind(P.rev_p, t, dimensions=(last,))
                      for t in b.emit_n(sort_p, (s, idx, sign), params)]  # fmt: skip
    s, idx, sign = rev
    n = s.aval.shape[-1]
    rows = b.emit(P.iota_p, (), {"dimension": 0, "shape": (n, 1), "dtype": INT32})
    pick = convert(b, ufuncs.equal(rows, idx[..., None, :]), v.aval[1], False)
    u = contractions.matmul(v, pick)  # u[..., :, i] = v[..., :, idx[i]]
    signs: Any = convert(b, sign, u.aval[1], False)
    vh = _H(u * signs[..., None, :])
    return SVDResult(u, s, vh)


def _svd_subset(a: Any, subset: tuple[int, int] | None, full_matrices: bool) -> None:
    """jax's rules for ``subset_by_index``: with full matrices it must be the whole
    range (ValueError); CPU kernels compute the whole range only (NotImplementedError,
    as jax raises when it lowers); the whole range is the plain SVD."""
    if subset is None:
        return
    if a.aval.ndim < 2:
        return  # the svd primitive reports the shape
    start, stop = (operator.index(i) for i in subset)
    rank = builtins.min(a.aval[0][-2:])
    if full_matrices and (start, stop) != (0, rank):
        raise OperandValueError("full_matrices and subset_by_index cannot both be set")
    if (start, stop) != (0, rank):
        raise NotImplementedError(
            "svd(subset_by_index=...) is computed on TPU only: jax's CPU and GPU kernels "
            f"compute all {rank} singular values, so only subset_by_index=(0, {rank}) works"
        )


@export
def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index: tuple[int, int] | None = None) -> Any:  # fmt: skip
    """``jax.numpy.linalg.svd``: ``(U, S, Vh)``, or the singular values alone."""
    (a,) = _inexact("svd", a)
    _svd_subset(a, subset_by_index, full_matrices and not hermitian)
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    params = {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)}
    out = a.ctx.emit_n(L.svd_p, (a,), params)
    return SVDResult(*out) if compute_uv else out[0]


@export
def svdvals(x: Any, /) -> Any:
    """``jax.numpy.linalg.svdvals``."""
    return svd(x, compute_uv=False, hermitian=False)


# -- determinants, solves, inverses ---------------------------------------------------


def _slogdet_qr(a: Any) -> tuple[Any, Any]:
    """``jax._src.numpy.linalg._slogdet_qr``: the R diagonal's signs and logs, times -1
    for each Householder reflection made (a nonzero tau among the first n - 1)."""
    if kind(a) == "c":
        raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
    n = a.aval[0][-1]
    b = a.ctx
    h, taus = b.emit_n(L.geqrf_p, (a,), {})
    diag = _diag(h)
    logdet = reductions.sum(ufuncs.log(ufuncs.abs(diag)), axis=-1)
    sign = reductions.prod(ufuncs.sign(diag), axis=-1)
    flips = ufuncs.where(ufuncs.not_equal(taus[..., : n - 1], 0), -1, 1)
    return sign * convert(b, reductions.prod(flips, axis=-1), sign.aval[1], False), logdet


@export
def slogdet(a: Any, *, method: str | None = None) -> Any:
    """``jax.numpy.linalg.slogdet``: ``(sign, logabsdet)``."""
    (a,) = _inexact("slogdet", a)
    _square("slogdet", a)
    if method not in (None, "lu", "qr"):
        raise OperandValueError(f"Unknown slogdet method '{method}'. Supported methods "
                                "are 'lu' (`None`), and 'qr'.")  # fmt: skip
    if method == "qr":
        return SlogdetResult(*_slogdet_qr(a))
    # jax's own slogdet, for its custom JVP (the sign's tangent of a complex matrix)
    return SlogdetResult(*a.ctx.emit_n(L.slogdet_p, (a,), {}))


@export
def det(a: Any) -> Any:
    """``jax.numpy.linalg.det``: cofactors for 2x2 and 3x3 (as jax), else jax's own det."""
    (a,) = _inexact("det", a)
    n = _square("det", a)
    if n == 2:
        return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    if n == 3:
        terms = [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
        pos = [a[..., 0, i] * a[..., 1, j] * a[..., 2, k] for i, j, k in terms]
        neg = [a[..., 0, k] * a[..., 1, j] * a[..., 2, i] for i, j, k in terms]
        return pos[0] + pos[1] + pos[2] - neg[0] - neg[1] - neg[2]
    return a.ctx.emit(L.det_p, (a,), {})  # jax's own det, for its custom JVP


@export
def solve(a: Any, b: Any) -> Any:
    """``jax.numpy.linalg.solve``: b of shape (..., n) or (..., n, k)."""
    a, b = _inexact("solve", a, b)
    sa, sb = a.aval[0], b.aval[0]
    if len(sa) < 2:
        raise ShapeError(f"left hand array must be at least two dimensional; got a.shape={sa}")
    if len(sb) > 1 and len(sa) == len(sb) + 1 and sa[-1] == sb[-1] and sa[-1] != sb[-2]:
        raise ShapeError(f"Invalid shapes for solve: {sa}, {sb} (a batched 1-D solve is "
                         "spelled solve(a, b[..., None])[..., 0])")  # fmt: skip
    n = _square("solve", a)
    vector = len(sb) == 1
    core = sb[-1:] if vector else sb[-2:]
    sig = "(m,m),(m)->(m)" if vector else "(m,m),(m,n)->(m,n)"
    check_loop_ranks(sig, [sa, sb], [2, len(core)])
    if not core or core[0] != n:
        raise ShapeError(f"solve: a {sa} and b {sb} do not fit")
    try:
        batch = tuple(np.broadcast_shapes(sa[:-2], sb[: len(sb) - len(core)]))
    except ValueError:
        raise ShapeError(f"solve: batch shapes of {sa} and {sb} do not broadcast") from None
    a = shapes.broadcast_to(a, (*batch, n, n))
    b = shapes.broadcast_to(b, (*batch, *core))
    return bind(L.solve_p, a, b, vector=vector)


@export
def inv(a: Any) -> Any:
    """``jax.numpy.linalg.inv``: solve(a, identity)."""
    b = context(a)
    x = operand_(a, b)
    n = _square("inv", x)
    (x,) = promote(b, "inv", [x], "inexact")
    eye = shapes.broadcast_to(_eye(x, n), x.aval[0])
    return solve(x, eye)


@export
def pinv(a: Any, rtol: Any = None, hermitian: bool = False, *, rcond: Any = None) -> Any:
    """``jax.numpy.linalg.pinv``: from the SVD, singular values at or below
    ``rtol * max(s)`` dropped."""
    if rcond is not None:
        if rtol is not None:
            raise OperandValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    (arr,) = _inexact("pinv", a)
    m, n = arr.aval[0][-2:] if arr.aval.ndim >= 2 else (0, 0)
    if arr.aval.ndim < 2:
        raise ShapeError(f"pinv needs matrices (..., m, n), got shape {arr.aval[0]}")
    if m == 0 or n == 0:  # jax: an empty (..., n, m) result in a's dtype
        return creation.zeros((*arr.aval[0][:-2], n, m), dtype=arr.aval[1].numpy)
    b = arr.ctx
    real = P._real_dtype(arr.aval[1])
    if rtol is None:
        rtol = lit(b, 10.0 * builtins.max(m, n) * _eps(arr), real)
    rt = operand_(rtol, b)
    if rt.aval[1] is not real:
        rt = convert(b, rt, real, False)
    # jax's own pinv, for its custom JVP (the svd composition differentiated to NaN at
    # repeated singular values, the identity among them)
    return b.emit(L.pinv_p, (arr, rt), {"hermitian": bool(hermitian)})


@export
def matrix_power(a: Any, n: int) -> Any:
    """``jax.numpy.linalg.matrix_power`` by repeated squaring."""
    b = context(a)
    arr = operand_(a, b)
    _square("matrix_power", arr)
    try:
        n = operator.index(n)
    except TypeError:
        raise InvalidInputError(f"exponent must be an integer, got {n}") from None
    if n == 0:
        return shapes.broadcast_to(_eye(arr, arr.aval[0][-1]), arr.aval[0])
    if n < 0:
        arr, n = inv(arr), -n
    z = result = None
    while n > 0:
        z = arr if z is None else contractions.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else contractions.matmul(result, z)
    return result
