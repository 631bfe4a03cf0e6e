"""The special matrices of ``jax.scipy.linalg``: ``block_diag``, ``toeplitz``,
``hankel``, ``circulant``, ``leslie``, ``companion``, ``fiedler``,
``fiedler_companion``, ``convolution_matrix`` and the constant ones (``hilbert``,
``pascal``, ``hadamard``, ``dft`` ...). Each promotes its operands as jax's does
(``promote_dtypes``, or ``promote_args_inexact`` for the companions), decides the
result's shape, dtype and weak flag here, and binds the ``scipy_linalg`` primitive
whose lowering is jax's function."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from weaktrace.core.primitives import _real_dtype
from weaktrace.core.primitives_scipy_linalg import _batch
from weaktrace.errors import OperandTypeError, OperandValueError, ShapeError
from weaktrace.numpy._core import Tracer, context
from weaktrace.scipy._linalg_core import export, one, operands, promoted


def _make(name: str, ops: list[Tracer], shape: tuple[int, ...], weak: bool,
          dtype: Any = None, **params: Any) -> Tracer:  # fmt: skip
    dt = ops[0].aval[1] if dtype is None else dtype
    return one(name, ops, _out=(shape, dt, weak), **params)


def _weak(*ops: Tracer) -> bool:
    return all(o.aval[2] for o in ops)


def _last(x: Tracer) -> tuple[tuple[int, ...], int]:
    """The batch shape and length of ``atleast_1d(x)``."""
    s = x.aval.shape or (1,)
    return s[:-1], s[-1]


@export
def block_diag(*arrs: Any) -> Any:
    """``jax.scipy.linalg.block_diag``: the arrays (at most 2-D) along the diagonal."""
    if len(arrs) == 0:
        arrs = (np.zeros((1, 0)),)  # jax: a (1, 0) float block
    ops = promoted("block_diag", *arrs, target=None, lists=False)
    bad = [i for i, a in enumerate(ops) if a.aval.ndim > 2]
    if bad:
        raise ShapeError(
            "Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, got "
            f"{ops[bad[0]].aval} at argument {bad[0]}."
        )
    shapes = [(1,) * (2 - a.aval.ndim) + a.aval.shape for a in ops]
    shape = (sum(s[0] for s in shapes), sum(s[1] for s in shapes))
    return _make("block_diag", ops, shape, False)


@export
def toeplitz(c: Any, r: Any = None) -> Any:
    """``jax.scipy.linalg.toeplitz``: first column c, first row r (default conj(c))."""
    ops = promoted("toeplitz", c, *(() if r is None else (r,)), target=None, lists=False)
    (bc, m), (br, n) = _last(ops[0]), _last(ops[-1])
    shape = (*_batch("toeplitz", bc, br), m, n)
    return _make("toeplitz", ops, shape, False)


@export
def hankel(c: Any, r: Any = None) -> Any:
    """``jax.scipy.linalg.hankel``: first column c, last row r (default zeros)."""
    ops = promoted("hankel", c, *(() if r is None else (r,)), target=None, lists=False)
    if ops[0].aval.ndim == 0:
        raise ShapeError("hankel: c must be at least 1-dimensional, got a scalar.")
    if ops[-1].aval.ndim == 0:
        raise ShapeError("hankel: r must be at least 1-dimensional, got a scalar.")
    (bc, m), (br, n) = _last(ops[0]), _last(ops[-1])
    shape = (*_batch("hankel", bc, br), m, n)
    return _make("hankel", ops, shape, False)


@export
def circulant(c: Any) -> Any:
    """``jax.scipy.linalg.circulant``: columns the cyclic shifts of c."""
    (x,) = operands(c)
    batch, n = _last(x)
    return _make("circulant", [x], (*batch, n, n), x.aval[2])


@export
def leslie(f: Any, s: Any) -> Any:
    """``jax.scipy.linalg.leslie``: fecundities f in the first row, survivals s below
    the diagonal."""
    fo, so = operands(f, s)
    (bf, n), (bs, m) = _last(fo), _last(so)
    if n < 2:
        raise ShapeError(
            f"The length of f along the last axis must be at least 2; got shape {(*bf, n)}."
        )
    if m != n - 1:
        raise ShapeError(
            "Incorrect lengths for f and s. The length of s along the last axis must be one "
            f"less than the length of f; got f shape {(*bf, n)} and s shape {(*bs, m)}."
        )
    fo, so = promoted("leslie", fo, so, target=None, lists=False)
    return _make("leslie", [fo, so], (*_batch("leslie", bf, bs), n, n), _weak(fo, so))


@export
def companion(a: Any) -> Any:
    """``jax.scipy.linalg.companion``: the (n-1) x (n-1) companion matrix (inexact)."""
    (x,) = promoted("companion", a, lists=False)
    batch, n = _last(x)
    if n < 2:
        raise ShapeError(
            f"The length of `a` along the last axis must be at least 2; got shape {(*batch, n)}."
        )
    return _make("companion", [x], (*batch, n - 1, n - 1), False)


@export
def fiedler(a: Any) -> Any:
    """``jax.scipy.linalg.fiedler``: ``|a_i - a_j|`` (real for complex a)."""
    (x,) = operands(a)
    if x.aval[1].name == "bool":
        raise OperandTypeError(
            "sub does not accept dtype bool at position 0. Accepted dtypes at position 0 are "
            "subtypes of integer, floating, complexfloating."
        )
    batch, n = _last(x)
    return _make("fiedler", [x], (*batch, n, n), x.aval[2], _real_dtype(x.aval[1]))


@export
def fiedler_companion(a: Any) -> Any:
    """``jax.scipy.linalg.fiedler_companion``: the pentadiagonal companion (inexact)."""
    (x,) = promoted("fiedler_companion", a, lists=False)
    batch, n = _last(x)
    if n == 0:
        raise ShapeError(
            "fiedler_companion requires the last axis of 'a' to have nonzero length, but got "
            f"an array of shape {(*batch, n)}."
        )
    # jax builds n <= 2 from a itself (an empty or a 1x1 matrix: weak if a is), larger n
    # by a select over strong zeros and ones
    return _make("fiedler_companion", [x], (*batch, n - 1, n - 1), n <= 2 and _weak(x))


@export
def convolution_matrix(a: Any, n: int, mode: str = "full") -> Any:
    """``jax.scipy.linalg.convolution_matrix``: the Toeplitz matrix of convolving with a."""
    n = operator.index(n)
    if n <= 0:
        raise OperandValueError(f"n must be a positive integer; got {n}.")
    (x,) = operands(a)
    if x.aval.ndim == 0:
        raise ShapeError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = x.aval.shape[-1]
    if m < 1:
        raise ShapeError(f"len(a) must be at least 1; got shape {x.aval.shape}.")
    if mode not in ("full", "valid", "same"):
        raise OperandValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    rows = {"full": m + n - 1, "same": max(m, n), "valid": max(m, n) - min(m, n) + 1}[mode]
    return _make("convolution_matrix", [x], (*x.aval.shape[:-1], rows, n), False, n=n,
                 mode=mode)  # fmt: skip


# -- constant matrices ------------------------------------------------------------------


def _const(name: str, shape: tuple[int, ...], out: Any, **params: Any) -> Tracer:
    """A matrix of no operand: jax's function of `params`, of the dtype `out` means."""
    b = context()
    dt = b.policy.user_dtype(out)
    return one(name, [], _out=(shape, dt, False), **params)


def _size(n: Any) -> int:
    return operator.index(n)


@export
def hilbert(n: int) -> Any:
    """``jax.scipy.linalg.hilbert``: ``1 / (i + j + 1)`` (default float)."""
    n = _size(n)
    return _const("hilbert", (n, n), float, n=n)


@export
def invhilbert(n: int) -> Any:
    """``jax.scipy.linalg.invhilbert``: the inverse Hilbert matrix (default float)."""
    n = _size(n)
    return _const("invhilbert", (n, n), float, n=n)


def _kind(kind: Any, article: str) -> str:
    kind = "symmetric" if kind is None else kind
    valid_kind = ["symmetric", "lower", "upper"]
    if kind not in valid_kind:
        raise OperandValueError(f"Expected kind to be {article}: {valid_kind}; got {kind}")
    return kind


@export
def pascal(n: int, kind: str | None = None) -> Any:
    """``jax.scipy.linalg.pascal``: binomial coefficients (float32, as jax's)."""
    n, kind = _size(n), _kind(kind, "on of")
    return _const("pascal", (n, n), np.float32, n=n, kind=kind)


@export
def invpascal(n: int, kind: str | None = None) -> Any:
    """``jax.scipy.linalg.invpascal``: the inverse Pascal matrix (default float)."""
    n, kind = _size(n), _kind(kind, "one of")
    return _const("invpascal", (n, n), float, n=n, kind=kind)


@export
def helmert(n: int, full: bool = False) -> Any:
    """``jax.scipy.linalg.helmert``: the (n-1) x n (or n x n) Helmert matrix."""
    n = _size(n)
    if n < 1:
        raise OperandValueError(f"n must be a positive integer; got {n}.")
    return _const("helmert", (n if full else n - 1, n), float, n=n, full=bool(full))


@export
def hadamard(n: int, dtype: Any = int) -> Any:
    """``jax.scipy.linalg.hadamard``: Sylvester's n x n Hadamard matrix (n a power of 2)."""
    n = _size(n)
    if n < 1 or not math.log2(n).is_integer():
        raise OperandValueError(f"n must be a positive power of 2; got {n}.")
    return _const("hadamard", (n, n), dtype, n=n, dtype=dtype)


@export
def dft(n: int, scale: str | None = None, *, dtype: Any = None) -> Any:
    """``jax.scipy.linalg.dft``: the n x n DFT matrix (complex), scaled by None, 'sqrtn'
    or 'n'."""
    n = _size(n)
    if scale is not None and scale not in ("sqrtn", "n"):
        raise OperandValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    dt = context().policy.user_dtype(complex if dtype is None else dtype)
    if dt.kind != "c":
        raise OperandValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    return _const("dft", (n, n), dt.numpy, n=n, scale=scale, dtype=dtype)
