"""Matrix decompositions and solves, named after ``jax.lax.linalg``.

Each primitive works on the last two axes of a batch of matrices, accepts float32,
float64, complex64 and complex128 (XLA's CPU linear algebra has no half-precision
kernels: ``jax.lax.linalg`` fails on float16 and bfloat16 when it lowers; weaktrace
refuses them while tracing) and keeps its operand's weak flag on the outputs of its
operand's dtype, as jax's shape rules do. Real outputs of complex operands
(eigenvalues of ``eigh``, singular values) take the matching real dtype.

The multi-output ones (``lu``, ``qr``, ``geqrf``, ``eigh``, ``svd``, ``eig``) are
``multiple_results`` primitives; ``solve`` is jax.lax.linalg's LU solve with its
custom linear-solve gradient (``rules_linalg.py``).
"""

from __future__ import annotations

from typing import Any

from weaktrace.core.primitives import _def, _real_dtype
from weaktrace.dtypes import registry
from weaktrace.errors import KernelDtypeError, OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue

_make = AbstractValue.make
_D = registry.by_name
_INT32 = _D("int32")
_LAPACK = frozenset(_D(n) for n in ("float32", "float64", "complex64", "complex128"))
_COMPLEX = {_D("float32"): _D("complex64"), _D("float64"): _D("complex128")}


def _matrix(
    name: str, x: AbstractValue, square: bool = False, half: bool = False
) -> tuple[int, int]:
    """Check a (batch of) matrices; `half`: float16 / bfloat16 are accepted too (jax's
    CPU triangular_solve computes them)."""
    if x[1] not in _LAPACK and not (half and x[1].name in ("float16", "bfloat16")):
        if x[1].name in ("float16", "bfloat16"):  # jax: NotImplementedError from the kernel
            raise KernelDtypeError(
                f"{name}: Unsupported dtype {x[1]}. jax.lax.linalg's kernels take float32, "
                "float64, complex64 or complex128. Convert first, e.g. x.astype('float32')."
            )
        raise OperandTypeError(
            f"{name} does not accept dtype {x[1]}: jax.lax.linalg's kernels take float32, "
            "float64, complex64 or complex128. Convert first, e.g. x.astype('float32')."
        )
    if x.ndim < 2 or (square and x.shape[-1] != x.shape[-2]):
        what = "square matrices (..., n, n)" if square else "matrices (..., m, n)"
        raise ShapeError(f"{name} needs {what}, got shape {x.shape}")
    return x.shape[-2], x.shape[-1]


def _cholesky(x: AbstractValue, *, symmetrize_input: bool) -> list[AbstractValue]:
    _matrix("cholesky", x, square=True)
    return [x]


cholesky_p = _def("cholesky", _cholesky)


def _lu(x: AbstractValue) -> list[AbstractValue]:
    m, n = _matrix("lu", x)
    batch = x.shape[:-2]
    return [  # the integer outputs keep x's weak flag, as jax's lu_p
        x,
        _make((*batch, min(m, n)), _INT32, x[2]),
        _make((*batch, m), _INT32, x[2]),
    ]


lu_p = _def("lu", _lu, multiple_results=True)


def _qr(x: AbstractValue, *, full_matrices: bool) -> list[AbstractValue]:
    m, n = _matrix("qr", x)
    k = m if full_matrices else min(m, n)
    batch, dt, weak = x.shape[:-2], x[1], x[2]
    return [_make((*batch, m, k), dt, weak), _make((*batch, k, n), dt, weak)]


qr_p = _def("qr", _qr, multiple_results=True)


def _geqrf(x: AbstractValue) -> list[AbstractValue]:
    """LAPACK's geqrf: R in the upper triangle, the Householder reflectors below it, and
    their ``min(m, n)`` scale factors (taus), all of x's dtype and weak flag."""
    m, n = _matrix("geqrf", x)
    return [x, _make((*x.shape[:-2], min(m, n)), x[1], x[2])]


geqrf_p = _def("geqrf", _geqrf, multiple_results=True)


def _eigh(
    x: AbstractValue,
    *,
    lower: bool,
    symmetrize_input: bool,
    subset_by_index: tuple[int, int] | None = None,
    **options: Any,
) -> list[AbstractValue]:
    """(Other options, ``sort_eigenvalues`` and ``implementation``, change no type.)"""
    n, _ = _matrix("eigh", x, square=True)
    k = n if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
    # lax.linalg.eigh returns (eigenvectors, eigenvalues); the eigenvalues are real.
    vectors = x if k == n else _make((*x.shape[:-1], k), x[1], x[2])
    return [vectors, _make((*x.shape[:-2], k), _real_dtype(x[1]), x[2])]


eigh_p = _def("eigh", _eigh, multiple_results=True)


def _svd(x: AbstractValue, *, full_matrices: bool, compute_uv: bool,
         algorithm: Any = None) -> list[AbstractValue]:  # fmt: skip
    m, n = _matrix("svd", x)
    k = min(m, n)
    batch, dt, weak = x.shape[:-2], x[1], x[2]
    s = _make((*batch, k), _real_dtype(dt), weak)
    if not compute_uv:
        return [s]
    cu, rv = (m, n) if full_matrices else (k, k)
    return [_make((*batch, m, cu), dt, weak), s, _make((*batch, rv, n), dt, weak)]


svd_p = _def("svd", _svd, multiple_results=True)


def _eig(
    x: AbstractValue,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool = False,
) -> list[AbstractValue]:
    n, _ = _matrix("eig", x, square=True)
    dt = _COMPLEX.get(x[1], x[1])
    out = [_make((*x.shape[:-2], n), dt, x[2])]
    out += [_make(x.shape, dt, x[2])] * (compute_left_eigenvectors + compute_right_eigenvectors)
    return out


eig_p = _def("eig", _eig, multiple_results=True)


def _triangular_solve(
    a: AbstractValue,
    b: AbstractValue,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> list[AbstractValue]:
    n, _ = _matrix("triangular_solve", a, square=True, half=True)
    _matrix("triangular_solve", b, half=True)
    if a[1] is not b[1]:
        raise OperandTypeError(f"triangular_solve needs one dtype, got {a[1]} and {b[1]}")
    if a.shape[:-2] != b.shape[:-2] or b.shape[-2 if left_side else -1] != n:
        raise ShapeError(f"triangular_solve: shapes {a.shape} and {b.shape} do not fit")
    return [_make(b.shape, b[1], a[2] and b[2])]


triangular_solve_p = _def("triangular_solve", _triangular_solve)


def _solve(a: AbstractValue, b: AbstractValue, *, vector: bool) -> list[AbstractValue]:
    """``jax.lax.linalg._solve`` on operands of one dtype and one batch shape: b is
    (..., n) when `vector`, else (..., n, k)."""
    n, _ = _matrix("solve", a, square=True)
    if a[1] is not b[1]:
        raise OperandTypeError(f"solve needs one dtype, got {a[1]} and {b[1]}")
    core = b.shape[-1:] if vector else b.shape[-2:]
    if b.shape[: b.ndim - len(core)] != a.shape[:-2] or core[0] != n:
        raise ShapeError(f"solve: shapes {a.shape} and {b.shape} do not fit")
    return [_make(b.shape, b[1], a[2] and b[2])]


solve_p = _def("solve", _solve)


def _half_ok(a: AbstractValue) -> bool:
    """float16 / bfloat16 det and slogdet compute in jax where no LU kernel runs: 1x1 and
    2x2 matrices (a closed form) or an empty batch; elsewhere the kernel refuses them."""
    return a.ndim >= 2 and (a.shape[-1] in (1, 2) or 0 in a.shape[:-2])


def _det(a: AbstractValue) -> list[AbstractValue]:
    """``jax.numpy.linalg.det`` of 1x1 or n >= 4 matrices, whole (its custom JVP is jax's:
    the cofactor rule, 0 at a singular matrix): strong, as jax's."""
    _matrix("det", a, square=True, half=_half_ok(a))
    return [_make(a.shape[:-2], a[1], False)]


det_p = _def("det", _det)


def _slogdet(a: AbstractValue) -> list[AbstractValue]:
    """``jax.numpy.linalg.slogdet`` (method 'lu'), whole (its custom JVP is jax's): sign in
    a's dtype, log|det| real; weak only where jax's small-matrix formula keeps a weak a."""
    n, _ = _matrix("slogdet", a, square=True, half=_half_ok(a))
    weak = a[2] and n <= 2
    return [_make(a.shape[:-2], a[1], weak), _make(a.shape[:-2], _real_dtype(a[1]), weak)]


slogdet_p = _def("slogdet", _slogdet, multiple_results=True)


def _pinv(a: AbstractValue, rtol: AbstractValue, *, hermitian: bool) -> list[AbstractValue]:
    """``jax.numpy.linalg.pinv`` whole (its custom JVP is jax's): (..., n, m), strong."""
    m, n = _matrix("pinv", a)
    return [_make((*a.shape[:-2], n, m), a[1], False)]


pinv_p = _def("pinv", _pinv)
