"""``weaktrace.scipy.linalg``: the ``jax.scipy.linalg`` mirror.

Every public function of jax.scipy.linalg, with its signature. Where the scipy
function is the computation weaktrace.numpy.linalg or weaktrace.lax.linalg already
does (``det``, ``inv``, ``svd``, ``eigh``, ``cholesky``, ``lu_factor``, ``solve``
of a general matrix), it is that; the others (``expm``, ``schur``, ``sqrtm``,
``solve_triangular`` with jax's broadcasting, ...) promote their operands under the
active policy, check their static arguments with jax's errors and words, and bind the
``scipy_linalg`` primitive, whose lowering is jax's own function (its values and its
custom derivatives). ``overwrite_*``, ``check_finite``, ``lwork``, ``turbo`` and
``debug`` are accepted and unused, as jax's. The special matrices (``toeplitz``,
``block_diag``, ``hilbert`` ...) are in ``_linalg_matrices``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

from weaktrace.core import primitives_linalg as L
from weaktrace.core.primitives_scipy_linalg import _batch
from weaktrace.errors import IndexingError, OperandTypeError, OperandValueError, ShapeError
from weaktrace.lax import linalg as lax_linalg
from weaktrace.numpy import ufuncs
from weaktrace.numpy._core import Tracer, bind
from weaktrace.numpy.linalg import _decompositions as np_linalg
from weaktrace.scipy import _linalg_matrices  # noqa: F401  (fill EXPORTS)
from weaktrace.scipy._linalg_core import (
    EXPORTS,
    call,
    export,
    one,
    promoted,
    square,
)


def _H(x: Any) -> Any:
    return ufuncs.conjugate(x.mT)


def _vector(name: str, a: Tracer, b: Tracer, call_words: str) -> bool:
    """jax's choice of signature: (n,n),(n) when b is 1-D, or (deprecated, with jax's
    FutureWarning) when b is a batch of vectors; else (n,n),(n,k)."""
    sa, sb = a.aval.shape, b.aval.shape
    if len(sb) == 1:
        return True
    if len(sa) == len(sb) + 1 and sa[-1] == sb[-1]:
        warnings.warn(
            f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and "
            "in the future will be treated as a batched 2D solve. "
            f"Use {call_words}[..., None]).squeeze(-1) to avoid this warning.",
            FutureWarning,
            stacklevel=3,
        )
        return True
    return False


def _floating(name: str, a: Tracer) -> None:
    """jax's schur / hessenberg kernels take floating or complex matrices only."""
    if a.aval[1].kind not in "fc":
        raise OperandTypeError(
            f"{name} does not accept dtype {a.aval[1]} at position 0. Accepted dtypes at "
            "position 0 are subtypes of floating, complexfloating."
        )


# -- decompositions -------------------------------------------------------------------


@export
def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> Any:  # fmt: skip
    """``jax.scipy.linalg.cholesky``: the lower or (default) upper Cholesky factor."""
    (x,) = promoted("cholesky", a)
    lo = bind(L.cholesky_p, x if lower else _H(x), symmetrize_input=False)
    return lo if lower else _H(lo)


@export
def cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> Any:  # fmt: skip
    """``jax.scipy.linalg.cho_factor``: ``(cholesky(a, lower), lower)``."""
    return (cholesky(a, lower=lower), lower)


@export
def cho_solve(c_and_lower: Any, b: Any, overwrite_b: bool = False,
              check_finite: bool = True) -> Any:  # fmt: skip
    """``jax.scipy.linalg.cho_solve``: x with ``a @ x = b`` from ``cho_factor(a)``."""
    c, lower = c_and_lower
    c, b = promoted("cho_solve", c, b)
    vector = _vector("cho_solve", c, b, "cho_solve(c_and_lower, b")
    return one("cho_solve", (c, b), _lower=bool(lower), _vector=vector)


@export
def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd") -> Any:  # fmt: skip
    """``jax.scipy.linalg.svd``: ``(u, s, vh)`` (a tuple), or s alone."""
    (x,) = promoted("svd", a)
    out = lax_linalg.svd(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    return tuple(out) if compute_uv else out


@export
def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """``jax.scipy.linalg.det``: ``jax.numpy.linalg.det``."""
    return np_linalg.det(a)


@export
def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """``jax.scipy.linalg.inv``: ``jax.numpy.linalg.inv``."""
    return np_linalg.inv(a)


@export
def eigh(a: Any, b: Any = None, lower: bool = True, eigvals_only: bool = False,
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True,
         eigvals: None = None, type: int = 1, check_finite: bool = True) -> Any:  # fmt: skip
    """``jax.scipy.linalg.eigh``: ``(w, v)`` of a Hermitian matrix, or w alone (the
    standard problem only, as jax)."""
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (x,) = promoted("eigh", a)
    v, w = lax_linalg.eigh(x, lower=bool(lower))
    return w if eigvals_only else (w, v)


@export
def schur(a: Any, output: str = "real") -> Any:
    """``jax.scipy.linalg.schur``: ``[T, Z]`` (a list, as jax's), real or complex form."""
    if output not in ("real", "complex"):
        raise OperandValueError(
            f"Expected 'output' to be either 'real' or 'complex', got {output=}."
        )
    (x,) = promoted("schur", a, target=None, lists=False)
    if output == "real":  # jax casts to complex first for the complex form
        _floating("schur", x)
    return call("schur", (x,), output=output)


@export
def hessenberg(a: Any, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> Any:  # fmt: skip
    """``jax.scipy.linalg.hessenberg``: H, or ``(H, Q)`` with calc_q."""
    (x,) = promoted("hessenberg", a, target=None, lists=False)
    if not (x.aval.shape and x.aval.shape[-1] == 0):  # jax: an empty a is zeros_like(a)
        _floating("hessenberg", x)
    out = call("hessenberg", (x,), calc_q=bool(calc_q), overwrite_a=bool(overwrite_a),
               check_finite=bool(check_finite))  # fmt: skip
    return tuple(out) if calc_q else out[0]


@export
def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """``jax.scipy.linalg.lu_factor``: ``(lu, pivots)``."""
    (x,) = promoted("lu_factor", a)
    lu_, piv, _ = x.ctx.emit_n(L.lu_p, (x,), {})
    return lu_, piv


@export
def lu_solve(lu_and_piv: Any, b: Any, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True) -> Any:  # fmt: skip
    """``jax.scipy.linalg.lu_solve``: x with ``op(a) @ x = b`` from ``lu_factor(a)``."""
    lu_, piv = lu_and_piv
    lu_, b = promoted("lu_solve", lu_, b)
    (piv,) = promoted("lu_solve", piv, target=None, lists=False)
    vector = _vector("lu_solve", lu_, b, "lu_solve(lu_and_piv, b")
    return one("lu_solve", (lu_, piv, b), trans=trans, _vector=vector)


@export
def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> Any:  # fmt: skip
    """``jax.scipy.linalg.lu``: ``(p, l, u)``, or ``(p @ l, u)`` with permute_l."""
    (x,) = promoted("lu", a)
    if x.aval.ndim != 2:  # jax's _lu unpacks the shape of one matrix
        n = x.aval.ndim
        raise ShapeError(f"too many values to unpack (expected 2, got {n})" if n > 2 else
                         f"not enough values to unpack (expected 2, got {n})")  # fmt: skip
    out = call("lu", (x,), permute_l=bool(permute_l), overwrite_a=bool(overwrite_a),
               check_finite=bool(check_finite))  # fmt: skip
    return tuple(out)


@export
def qr(a: Any, overwrite_a: bool = False, lwork: Any = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> Any:  # fmt: skip
    """``jax.scipy.linalg.qr``: ``(q, r)``, ``(r,)``, with the pivots p last."""
    if mode not in ("full", "r", "economic"):
        raise OperandValueError(f"Unsupported QR decomposition mode '{mode}'")
    (x,) = promoted("qr", a)
    return tuple(call("qr", (x,), mode=mode, pivoting=bool(pivoting)))


@export
def qr_multiply(a: Any, c: Any, mode: str = "right", pivoting: bool = False,
                conjugate: bool = False, overwrite_a: bool = False,
                overwrite_c: bool = False) -> Any:  # fmt: skip
    """``jax.scipy.linalg.qr_multiply``: ``(c @ Q or Q @ c, r)``, with the pivots."""
    x, y = promoted("qr_multiply", a, c)
    if mode not in ("right", "left"):
        raise OperandValueError(f"mode must be 'right' or 'left', got {mode!r}")
    if x.aval.ndim < 2:
        raise ShapeError(f"qr_multiply needs matrices (..., m, n), got shape {x.aval.shape}")
    sc = y.aval.shape
    onedim = len(sc) == 1
    if onedim:
        sc = (*sc, 1) if mode == "left" else (1, *sc)
    m, n = x.aval.shape[-2:]
    k = min(m, n)
    if mode == "left" and sc[-2] != k:
        raise ShapeError(
            f"Array shapes are not compatible for Q @ c operation: a has shape "
            f"{x.aval.shape} so Q has {k} columns, but c has {sc[-2]} rows (expected {k})."
        )
    if mode == "right" and sc[-1] != m:
        raise ShapeError(
            f"Array shapes are not compatible for c @ Q operation: a has shape "
            f"{x.aval.shape} so Q has {m} rows, but c has {sc[-1]} columns (expected {m})."
        )
    batch = _batch("qr_multiply", x.aval.shape[:-2], sc[:-2])
    core = (sc[-2], k) if mode == "right" else (m, sc[-1])
    # a 1-D c: jax ravels the whole (batch..., core) result, batch included
    shape = (math.prod((*batch, *core)),) if onedim else (*batch, *core)
    out = call("qr_multiply", (x, y), mode=mode, pivoting=bool(pivoting),
               conjugate=bool(conjugate), _shape=shape)  # fmt: skip
    return tuple(out)


@export
def polar(a: Any, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None) -> Any:  # fmt: skip
    """``jax.scipy.linalg.polar``: ``(u, p)`` with ``a = u p`` (right) or ``p u`` (left)."""
    (x,) = promoted("polar", a, target=None)
    if x.aval.ndim < 2:
        raise ShapeError("The input `a` must be at least a 2-D array.")
    if side not in ["right", "left"]:
        raise OperandValueError("The argument `side` must be either 'right' or 'left'.")
    if x.aval[1].kind not in "fc":
        raise OperandValueError(f"data type {x.aval[1].numpy.type} not inexact")
    m, n = x.aval.shape[-2:]
    if method == "qdwh" and ((side == "right" and m < n) or (side == "left" and m > n)):
        raise NotImplementedError(
            "method='qdwh' only supports mxn matrices where m < n where side='right' and "
            f"m >= n side='left', got {(m, n)} with {side=}"
        )
    if method not in ("qdwh", "svd"):
        raise OperandValueError(f"Unknown polar decomposition method {method}.")
    if eps is not None and method == "qdwh":
        # jax's polar traces eps (it is not static there) and hands it to qdwh as a static
        # argument: every eps fails, eagerly and under jit, in these words.
        raise OperandValueError(
            "Non-hashable static arguments are not supported: jax.scipy.linalg.polar passes "
            "eps, traced, to qdwh as a static argument. Leave eps=None (qdwh's own default)."
        )
    # max_iterations: accepted and unused, as by jax (qdwh is not given it)
    return tuple(call("polar", (x,), side=side, method=method, _m=m, _n=n))


@export
def rsf2csf(T: Any, Z: Any, check_finite: bool = True) -> Any:
    """``jax.scipy.linalg.rsf2csf``: the complex Schur form of a real one."""
    t, z = promoted("rsf2csf", T, Z, target="complex")
    square(t, "Input 'T' must be square.")
    square(z, "Input 'Z' must be square.")
    if t.aval.shape[-1] != z.aval.shape[-1]:
        raise ShapeError(f"Input array shapes must match: Z: {z.aval.shape} vs. T: {t.aval.shape}")
    return tuple(call("rsf2csf", (t, z), check_finite=bool(check_finite)))


# -- solves ---------------------------------------------------------------------------


@export
def solve(a: Any, b: Any, lower: bool = False, overwrite_a: bool = False,
          overwrite_b: bool = False, debug: bool = False, check_finite: bool = True,
          assume_a: str = "gen") -> Any:  # fmt: skip
    """``jax.scipy.linalg.solve``: LU for 'gen', 'sym' and 'her' (jax.numpy.linalg.solve),
    Cholesky for 'pos'."""
    valid_assume_a = ["gen", "sym", "her", "pos"]
    if assume_a not in valid_assume_a:
        raise OperandValueError(
            f"Expected assume_a to be one of {valid_assume_a}; got {assume_a!r}"
        )
    if assume_a != "pos":
        return np_linalg.solve(a, b)
    x, y = promoted("solve", a, b)
    sa, sb = x.aval.shape, y.aval.shape
    if not (len(sa) >= 2 and len(sb) in (len(sa), len(sa) - 1)
            and sa[-1] == sa[-2] == sb[len(sa) - 2]):  # fmt: skip
        raise ShapeError(
            "The arguments to solve must have shapes a=[..., m, m] and b=[..., m, k] or "
            f"b=[..., m]; got a={sa} and b={sb}"
        )
    vector = len(sa) == len(sb) + 1
    return one("solve", (x, y), lower=bool(lower), assume_a=assume_a, _vector=vector)


def _trans(trans: Any) -> None:
    if not any(trans == v for v in (0, "N", 1, "T", 2, "C")):
        raise OperandValueError(f"Invalid 'trans' value {trans}")


@export
def solve_triangular(a: Any, b: Any, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False, debug: Any = None,
                     check_finite: bool = True) -> Any:  # fmt: skip
    """``jax.scipy.linalg.solve_triangular``: x with ``op(a) @ x = b``, a triangular;
    batch dimensions broadcast."""
    _trans(trans)
    x, y = promoted("solve_triangular", a, b)
    vector = _vector("solve_triangular", x, y, "solve_triangular(a, b")
    return one("solve_triangular", (x, y), trans=trans, lower=bool(lower),
               unit_diagonal=bool(unit_diagonal), _vector=vector)  # fmt: skip


@export
def solve_sylvester(A: Any, B: Any, C: Any, *, method: str = "schur", tol: float = 1e-8) -> Any:
    """``jax.scipy.linalg.solve_sylvester``: X with ``A X + X B = C``."""
    a, b, c = promoted("solve_sylvester", A, B, C)
    if c.aval.ndim < 2:
        raise ShapeError(f"not enough values to unpack (expected 2, got {c.aval.ndim})")
    m, n = c.aval.shape[-2:]
    if a.aval.shape[-2:] != (m, m) or b.aval.shape[-2:] != (n, n):
        raise ShapeError(
            f"Incompatible shapes for Sylvester equation:\nA: {a.aval.shape}\n"
            f"B: {b.aval.shape}\nC: {c.aval.shape}"
        )
    if method not in ("schur", "eigen"):
        raise OperandValueError(
            f'Unrecognized method {method}. The two valid methods are either "schur" or "eigen".'
        )
    (t,) = promoted("solve_sylvester", tol, target=None)
    return call("solve_sylvester", (a, b, c, t), (None, None, None, "tol"), method=method)[0]


# -- matrix functions -----------------------------------------------------------------


@export
def expm(A: Any, *, upper_triangular: bool = False, max_squarings: int = 16) -> Any:
    """``jax.scipy.linalg.expm``: the matrix exponential (Pade approximation and
    squaring; NaN where more than `max_squarings` squarings are needed)."""
    (a,) = promoted("expm", A, lists=False)
    square(a, f"Expected A to be a (batched) square matrix, got A.shape={a.aval.shape}.")
    return one("expm", (a,), upper_triangular=bool(upper_triangular),
               max_squarings=int(max_squarings))  # fmt: skip


@export
def expm_frechet(A: Any, E: Any, *, method: str | None = None, compute_expm: bool = True) -> Any:
    """``jax.scipy.linalg.expm_frechet``: ``(expm(A), L(A, E))``, or the derivative alone."""
    a, e = operands_promoted(A, E)
    s, t = a.aval.shape, e.aval.shape
    if len(s) < 2 or s[-2] != s[1]:
        raise ShapeError(f"expected A to be a (batched) square matrix, got A.shape={s}")
    if len(t) < 2 or t[-2] != t[-1]:
        raise ShapeError(f"expected E to be a (batched) square matrix, got E.shape={t}")
    if s != t:
        raise ShapeError(f"expected A and E to be the same shape, got A.shape={s} E.shape={t}")
    out = call("expm_frechet", (a, e), method=method, compute_expm=bool(compute_expm))
    return tuple(out) if compute_expm else out[0]


def operands_promoted(A: Any, E: Any) -> list[Tracer]:
    """expm_frechet's operands as jax takes them: unpromoted (jax differentiates expm at
    A along E with jax.jvp, which wants one inexact dtype)."""
    a, e = (promoted("expm_frechet", v, target=None)[0] for v in (A, E))
    da, de = a.aval[1], e.aval[1]
    if da is not de or da.kind not in "fc":
        want = da if da.kind in "fc" else "float0"
        raise OperandTypeError(
            "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or "
            "in case of int/bool primal dtype the tangent dtype must be float0."
            f"Got primal dtype {da} and so expected tangent dtype {want}, but got tangent "
            f"dtype {de} instead."
        )
    return [a, e]


@export
def sqrtm(A: Any, blocksize: int = 1) -> Any:
    """``jax.scipy.linalg.sqrtm``: the principal square root (complex), by the Schur form."""
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    (a,) = promoted("sqrtm", A, lists=False)
    if a.aval.ndim != 2:
        raise ShapeError("diag input must be 1d or 2d")
    if a.aval.shape[0] == 0:  # jax's triangular square root indexes T[0, 0]
        raise IndexingError("index is out of bounds for axis 0 with size 0")
    return one("sqrtm", (a,), blocksize=blocksize)


@export
def funm(A: Any, func: Callable[[Any], Any], disp: bool = True) -> Any:
    """``jax.scipy.linalg.funm``: ``func`` of a square matrix by the Schur-Parlett method
    (``func`` is called on jax's values when it lowers: write it with weaktrace.numpy
    or jax.numpy); with ``disp=False``, ``(F, error estimate)``."""
    (a,) = promoted("funm", A, target=None)
    if a.aval.ndim != 2 or a.aval.shape[0] != a.aval.shape[1]:
        raise ShapeError("expected square array_like input")
    _floating("schur", a)
    out = call("funm", (a,), func=func, disp=bool(disp))
    return out[0] if disp else tuple(out)


@export
def eigh_tridiagonal(d: Any, e: Any, *, eigvals_only: bool = False, select: str = "a",
                     select_range: tuple[float, float] | None = None, tol: float | None = None,
                     key: Any = None) -> Any:  # fmt: skip
    """``jax.scipy.linalg.eigh_tridiagonal``: eigenvalues (and vectors) of the symmetric
    tridiagonal matrix with diagonal d and off-diagonal e, by bisection."""
    # jax checks the dtypes as given (lists made arrays), unpromoted
    x, y = (promoted("eigh_tridiagonal", v, target=None)[0] for v in (d, e))
    dx, dy = x.aval[1], y.aval[1]
    if dx is not dy:
        raise OperandTypeError(
            f"diagonal and off-diagonal values must have same dtype, got {dx} and {dy}"
        )
    if dx.name not in ("float32", "float64", "complex64", "complex128"):
        raise OperandTypeError(
            "Only float32 and float64 inputs are supported as inputs to "
            f"jax.scipy.linalg.eigh_tridiagonal, got {dx} and {dy}"
        )
    if x.aval.shape[0] > 1:
        if select == "i":
            if select_range is None:
                raise OperandValueError("for select='i', select_range must be specified.")
            if select_range[0] > select_range[1]:
                raise OperandValueError("Got empty index range in select_range.")
        elif select == "v":
            raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
        elif select != "a":
            raise OperandValueError("'select must have a value in {'a', 'i', 'v'}.")
    ops, names = [x, y], [None, None]  # type: list[Tracer], list[str | None]
    for name, v in (("tol", tol), ("key", key)):
        if v is not None:
            ops += promoted("eigh_tridiagonal", v, target=None)
            names.append(name)
    rng = None if select_range is None else tuple(select_range)
    out = call("eigh_tridiagonal", ops, names, eigvals_only=bool(eigvals_only), select=select,
               select_range=rng)  # fmt: skip
    return out[0] if eigvals_only else tuple(out)


globals().update(EXPORTS)
__all__ = sorted(EXPORTS)
