"""``weaktrace.numpy.linalg``'s norms, ranks, least squares and the array-API
spellings of weaktrace.numpy's contractions (``matmul``, ``vecdot``, ``tensordot``,
``trace``, ``diagonal``, ``cross``, ``outer``, ``matrix_transpose``), each written as
``jax._src.numpy.linalg`` writes it."""

from __future__ import annotations

import builtins
import itertools
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from weaktrace.errors import (
    ArgumentOverflowError,
    OperandTypeError,
    OperandValueError,
    ShapeError,
)
from weaktrace.numpy import contractions, creation, reductions, shapes, ufuncs
from weaktrace.numpy._core import (
    P,
    axis_arg,
    const_like,
    context,
    convert,
    lit,
    promote,
    static_args,
)
from weaktrace.numpy.gathers import _concrete
from weaktrace.numpy.linalg._decompositions import _diag, _eps, _inexact, inv, operand_, solve, svd
from weaktrace.numpy.linalg._exports import export

__all__: list[str] = []


def _abs2_sum(x: Any, axis: Any, keepdims: bool) -> Any:
    return ufuncs.sqrt(
        reductions.sum(ufuncs.real(x * ufuncs.conjugate(x)), axis=axis, keepdims=keepdims)
    )


@export
def vector_norm(x: Any, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: int | str = 2) -> Any:  # fmt: skip
    """``jax.numpy.linalg.vector_norm`` (integer operands stay integer for ord 1, inf
    and -inf, as in jax)."""
    b = context(x)
    x = operand_(x, b)
    b.policy.refuse("norm", [x.aval])  # torch's norms take inexact tensors only
    if ord is None or ord == 2:
        return _abs2_sum(x, axis, keepdims)
    if ord == np.inf:
        return reductions.amax(ufuncs.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return reductions.amin(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        if x.aval[1].kind not in "fc":  # jnp.finfo of a non-inexact dtype raises
            raise OperandTypeError(f"vector_norm(ord=0) needs an inexact dtype, got {x.aval[1]}")
        dt = P._real_dtype(x.aval[1])
        return reductions.sum(ufuncs.not_equal(x, 0), dtype=dt.numpy, axis=axis,
                              keepdims=keepdims)  # fmt: skip
    if ord == 1:
        return reductions.sum(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise OperandValueError(f"Invalid order '{ord}' for vector norm.")
    abs_x = ufuncs.abs(x)
    if abs_x.aval[1].kind in "iu":
        return _integer_vector_norm(abs_x, ord, axis, keepdims)
    ord_c = const_like(abs_x, ord)  # lax._const: ord in abs_x's dtype (ints truncate)
    with np.errstate(all="ignore"):
        inv = 1.0 / np.asarray(ord_c.atom.value)
    out = reductions.sum(ufuncs.power(abs_x, ord_c), axis=axis, keepdims=keepdims)
    return ufuncs.power(out, const_like(abs_x, inv))


def _integer_vector_norm(abs_x: Any, ord: Any, axis: Any, keepdims: bool) -> Any:
    """jax's general ``ord`` on integers: ``lax._const`` makes ord and 1/ord concrete
    numpy integers of x's dtype (truncated; a negative ord is out of range for unsigned
    dtypes), and jnp.power takes a concrete integer exponent to ``integer_pow``, which
    refuses negative powers of integers (ord 0.5 gives 1/0, cast to a negative integer)."""
    dt = abs_x.aval[1].numpy
    try:
        ord_c = np.array(ord, dt)
    except OverflowError as err:
        raise ArgumentOverflowError(f"vector_norm: ord={ord!r} does not fit {dt}: {err}") from None
    with np.errstate(all="ignore"):
        inv = np.array(1.0 / ord_c, dt)
    out = reductions.sum(ufuncs.power(abs_x, ord_c[()]), axis=axis, keepdims=keepdims)
    return ufuncs.power(out, inv[()])


def _moveaxes_last(x: Any, axes: tuple[int, int]) -> Any:
    rest = [d for d in range(x.aval.ndim) if d not in axes]
    return shapes.transpose(x, (*rest, *axes))


@export
@static_args("axis")
def norm(x: Any, ord: int | str | None = None, axis: tuple[int, ...] | int | None = None,
         keepdims: bool = False) -> Any:  # fmt: skip
    """``jax.numpy.linalg.norm``: a vector norm over one axis, a matrix norm over two."""
    (x,) = _inexact("norm", x)
    ndim = x.aval.ndim
    if axis is None:
        if ord is None:
            return _abs2_sum(x, None, keepdims)
        axes = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axes = tuple(axis_arg(a, ndim, "norm") for a in axis)
    else:
        axes = (axis_arg(axis, ndim, "norm"),)
    if len(axes) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axes, keepdims=keepdims)
    if len(axes) != 2:
        raise OperandValueError(
            f"Improper number of axes for norm: axis={axis}. Pass one axis "
            "to compute a vector-norm, or two axes to compute a matrix-norm."
        )
    row, col = axes
    if ord is None or ord in ("f", "fro"):
        return _abs2_sum(x, axes, keepdims)
    if ord in (1, -1):
        if not keepdims and col > row:
            col -= 1
        sums = reductions.sum(ufuncs.abs(x), axis=row, keepdims=keepdims)
        if ord == 1:
            return reductions.amax(sums, axis=col, keepdims=keepdims, initial=0)
        return reductions.amin(sums, axis=col, keepdims=keepdims)
    if ord in (np.inf, -np.inf):
        if not keepdims and row > col:
            row -= 1
        sums = reductions.sum(ufuncs.abs(x), axis=col, keepdims=keepdims)
        if ord == np.inf:
            return reductions.amax(sums, axis=row, keepdims=keepdims, initial=0)
        return reductions.amin(sums, axis=row, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        s = svd(_moveaxes_last(x, axes), compute_uv=False)
        if ord == 2:
            y = reductions.amax(s, axis=-1, initial=0)
        elif ord == -2:
            y = reductions.amin(s, axis=-1)
        else:
            y = reductions.sum(s, axis=-1)
        return shapes.expand_dims(y, axes) if keepdims else y
    raise OperandValueError(f"Invalid order '{ord}' for matrix norm.")


@export
def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: str | int = "fro") -> Any:
    """``jax.numpy.linalg.matrix_norm``: norm over the last two axes."""
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


@export
def matrix_rank(M: Any, rtol: Any = None, hermitian: bool = False, *, tol: Any = None) -> Any:
    """``jax.numpy.linalg.matrix_rank``: singular values above ``rtol`` counted."""
    if tol is not None:
        if rtol is not None:
            raise OperandValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    (m,) = _inexact("matrix_rank", M)
    b = m.ctx
    if m.aval.ndim < 2:
        return convert(b, reductions.any(ufuncs.not_equal(m, 0)), P._INT32, False)
    s = svd(m, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        big = lit(b, builtins.max(m.aval[0][-2:]), s.aval[1])
        rt = reductions.max(s, axis=-1) * big * lit(b, _eps(s), s.aval[1])
    else:
        rt = operand_(rtol, b)
    rt = shapes.expand_dims(rt, rt.aval.ndim)
    return reductions.sum(ufuncs.greater(s, rt), axis=-1)


@export
def cond(x: Any, p: Any = None) -> Any:
    """``jax.numpy.linalg.cond``: the condition number in norm `p`."""
    arr = operand_(x, context(x))
    shape = arr.aval[0]
    if len(shape) < 2:
        raise ShapeError(f"jnp.linalg.cond: input array must be at least 2D; got {shape}")
    if shape[-1] == 0 or shape[-2] == 0:
        raise ShapeError(f"jnp.linalg.cond: input array must not be empty; got {shape}")
    if p is None or p == 2:
        s = svd(arr, compute_uv=False)
        return ufuncs.true_divide(s[..., 0], s[..., -1])
    if p == -2:
        s = svd(arr, compute_uv=False)
        r = ufuncs.true_divide(s[..., -1], s[..., 0])
    else:
        if shape[-2] != shape[-1]:
            raise ShapeError(f"jnp.linalg.cond: for p={p}, array must be square; got {shape}")
        r = norm(arr, ord=p, axis=(-2, -1)) * norm(inv(arr), ord=p, axis=(-2, -1))
    nan_in = reductions.any(ufuncs.isnan(arr), axis=(-2, -1))
    return ufuncs.where(ufuncs.logical_and(ufuncs.isnan(r), ufuncs.logical_not(nan_in)),
                        np.inf, r)  # fmt: skip


@export
def lstsq(a: Any, b: Any, rcond: float | None = None, *, numpy_resid: bool = False) -> Any:
    """``jax.numpy.linalg.lstsq``: ``(x, residuals, rank, s)`` from the SVD. Residuals
    are always computed, as jax does under jit; with ``numpy_resid`` they are empty
    where NumPy's are (rank < n or m <= n), which needs a concrete rank (eager only)."""
    a, b = _inexact("lstsq", a, b)
    ctx = a.ctx
    if a.aval.ndim and b.aval.ndim and a.aval[0][0] != b.aval[0][0]:
        raise ShapeError("Leading dimensions of input arrays must match")
    vector = b.aval.ndim == 1
    if vector:
        b = b[:, None]
    if a.aval.ndim != 2:
        raise ShapeError(f"{a.aval.ndim}-dimensional array given. Array must be two-dimensional")
    if b.aval.ndim != 2:
        raise ShapeError(f"{b.aval.ndim}-dimensional array given. Array must be one or "
                         "two-dimensional")  # fmt: skip
    m, n = a.aval[0]
    dt = a.aval[1].numpy
    if m * n == 0:  # jax: no SVD; s is empty (in a's dtype), rank 0, x zeros
        s = creation.zeros((0,), dtype=dt)
        rank = creation.array(0, dtype=int)
        x = creation.zeros((n, *b.aval[0][1:]), dtype=dt)
    else:
        if rcond is None:
            cut = operand_(_eps(a) * builtins.max(n, m), ctx)
        else:
            cut = operand_(ufuncs.where(ufuncs.less(rcond, 0), _eps(a), rcond), ctx)
        u, s, vt = svd(a, full_matrices=False)
        cut = convert(ctx, cut, s.aval[1], False)
        mask = ufuncs.logical_and(ufuncs.greater(s, 0), ufuncs.greater_equal(s, cut * s[0]))
        rank = reductions.sum(mask)
        safe_s = convert(ctx, ufuncs.where(mask, s, 1), a.aval[1], False)
        s_inv = ufuncs.where(mask, ufuncs.true_divide(1, safe_s), 0)[:, None]
        utb = contractions.matmul(ufuncs.conjugate(u).T, b)
        x = contractions.matmul(ufuncs.conjugate(vt).T, s_inv * utb)
    if numpy_resid and (m <= n or _concrete(rank, "lstsq(numpy_resid=True)") < n):
        resid = creation.asarray([])
    else:
        resid = ufuncs.power(norm(b - contractions.matmul(a, x), axis=0), 2)
    if vector:
        x = shapes.ravel(x)
    return x, resid, rank, s


# -- array-API spellings --------------------------------------------------------------


@export
def matmul(x1: Any, x2: Any, /, *, precision: Any = None,
           preferred_element_type: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.linalg.matmul``."""
    return contractions.matmul(x1, x2, precision=precision,
                               preferred_element_type=preferred_element_type)  # fmt: skip


@export
def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.linalg.vecdot``."""
    return contractions.vecdot(x1, x2, axis=axis, precision=precision,
                               preferred_element_type=preferred_element_type)  # fmt: skip


@export
def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2, precision: Any = None,
              preferred_element_type: Any = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.linalg.tensordot``."""
    return contractions.tensordot(x1, x2, axes, precision=precision,
                                  preferred_element_type=preferred_element_type,
                                  out_sharding=out_sharding)  # fmt: skip


@export
def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """``jax.numpy.linalg.trace``: over the last two axes."""
    return contractions.trace(x, offset, -2, -1, dtype)


@export
def diagonal(x: Any, /, *, offset: int = 0) -> Any:
    """``jax.numpy.linalg.diagonal``: of the last two axes."""
    arr = operand_(x, context(x))
    if arr.aval.ndim < 2:
        raise ShapeError(f"diagonal needs an array of two or more dimensions, got {arr.aval[0]}")
    return _diag(arr, operator.index(offset))


@export
def matrix_transpose(x: Any, /) -> Any:
    """``jax.numpy.linalg.matrix_transpose``: swap the last two axes."""
    arr = operand_(x, context(x))
    ndim = arr.aval.ndim
    if ndim < 2:
        raise ShapeError(f"matrix_transpose requires at least 2 dimensions; got ndim={ndim}")
    return shapes.transpose(arr, (*range(ndim - 2), ndim - 1, ndim - 2))


@export
def outer(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.linalg.outer`` of two vectors."""
    b = context(x1, x2)
    a, c = operand_(x1, b), operand_(x2, b)
    if a.aval.ndim != 1 or c.aval.ndim != 1:
        raise ShapeError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={a.aval.ndim} x2.ndim={c.aval.ndim}")  # fmt: skip
    return ufuncs.multiply(a[:, None], c[None, :])


@export
@static_args("axis")
def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """``jax.numpy.linalg.cross`` of 3-vectors along `axis`."""
    b = context(x1, x2)
    a, c = operand_(x1, b), operand_(x2, b)
    for t in (a, c):
        if not -t.aval.ndim <= axis < t.aval.ndim:
            raise ShapeError(f"cross: axis {axis} is out of bounds for shape {t.aval[0]}")
    if a.aval[0][axis] != 3 or c.aval[0][axis] != 3:
        raise ShapeError("Both input arrays must be (arrays of) 3-dimensional vectors, "
                         f"but they have {a.aval[0][axis]} and {c.aval[0][axis]}")  # fmt: skip
    return contractions.cross(a, c, axis=axis)


@export
def multi_dot(arrays: Sequence[Any], *, precision: Any = None) -> Any:
    """``jax.numpy.linalg.multi_dot``: a chain of matrix products (operands promoted
    together first, as jax's einsum does)."""
    b = context(*arrays)
    arrs = [operand_(a, b) for a in arrays]
    if len(arrs) < 2:
        raise ShapeError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    nd = [a.aval.ndim for a in arrs]
    if not (nd[0] in (1, 2) and nd[-1] in (1, 2) and all(d == 2 for d in nd[1:-1])):
        raise ShapeError("multi_dot: input arrays must all be two-dimensional, except for the "
                         f"first and last array which may be 1 or 2 dimensional. Got array "
                         f"shapes {[a.aval[0] for a in arrs]}")  # fmt: skip
    if any(x.aval[0][-1] != y.aval[0][0] for x, y in itertools.pairwise(arrs)):
        raise ShapeError(
            "multi_dot: last dimension of each array must match first dimension "
            f"of following array. Got array shapes {[a.aval[0] for a in arrs]}"
        )
    arrs = promote(b, "multi_dot", arrs)
    out = arrs[0]
    for nxt in arrs[1:]:
        out = contractions.matmul(out, nxt, precision=precision)
    return out


@export
def tensorinv(a: Any, ind: int = 2) -> Any:
    """``jax.numpy.linalg.tensorinv``."""
    arr = operand_(a, context(a))
    ind = operator.index(ind)
    if ind <= 0:
        raise OperandValueError(f"ind must be a positive integer; got ind={ind}")
    head, tail = arr.aval[0][:ind], arr.aval[0][ind:]
    flat = (math.prod(head), math.prod(tail))
    if flat[0] != flat[1]:
        raise ShapeError(
            "tensorinv is only possible when the product of the first `ind` "
            f"dimensions equals that of the remaining ones; got {arr.aval[0]}"
        )
    return shapes.reshape(inv(shapes.reshape(arr, flat)), (*tail, *head))


@export
def tensorsolve(a: Any, b: Any, axes: tuple[int, ...] | None = None) -> Any:
    """``jax.numpy.linalg.tensorsolve``."""
    ctx = context(a, b)
    x, y = operand_(a, ctx), operand_(b, ctx)
    if axes is not None:
        nd = x.aval.ndim
        moved = [axis_arg(ax, nd, "tensorsolve") for ax in axes]
        rest = [d for d in range(nd) if d not in moved]
        x = shapes.transpose(x, (*rest, *moved))
    out_shape = x.aval[0][y.aval.ndim :]
    if x.aval[0][: y.aval.ndim] != y.aval[0]:
        raise ShapeError("After moving axes to end, leading shape of a must match shape of b. "
                         f"got a.shape={x.aval[0]}, b.shape={y.aval[0]}")  # fmt: skip
    if y.aval.size != math.prod(out_shape):
        raise ShapeError(
            "Input arrays must have prod(a.shape[:b.ndim]) == "
            f"prod(a.shape[b.ndim:]); got a.shape={x.aval[0]}, b.ndim={y.aval.ndim}."
        )
    x = shapes.reshape(x, (y.aval.size, math.prod(out_shape)))
    return shapes.reshape(solve(x, shapes.ravel(y)), out_shape)
