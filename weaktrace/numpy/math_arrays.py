"""Array-level math: diff, ediff1d, gradient, convolve, correlate, interp, polyval,
tril and triu, each following its jax.numpy implementation (``lax_numpy``,
``polynomial``) with weaktrace's promotion."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from weaktrace.core.primitives_conv import conv_general_dilated_p
from weaktrace.dtypes.registry import by_name
from weaktrace.errors import InvalidInputError, OperandTypeError, OperandValueError, ShapeError
from weaktrace.numpy import ufuncs as U
from weaktrace.numpy._core import (
    BOOL,
    P,
    Tracer,
    axes_arg,
    axis_arg,
    broadcast_to,
    context,
    convert,
    emit,
    export,
    full_like_value,
    kind,
    lit,
    operand,
    operands,
    promote,
    result_shape,
    static_args,
)
from weaktrace.numpy._lax import select, tri
from weaktrace.numpy.contractions import jnp_precision
from weaktrace.numpy.shapes import concatenate, reshape
from weaktrace.numpy.sorting import _sort, binary_search

_INT32 = by_name("int32")


def slice_in_dim(x: Tracer, start: int | None, limit: int | None, axis: int) -> Tracer:
    """``x[..., start:limit, ...]`` along `axis`, with Python's slice bounds (negative
    ones count from the end; out-of-range ones clamp, so an empty axis stays empty)."""
    n = x.aval.shape[axis]
    lo, hi, _ = slice(start, limit).indices(n)
    hi = max(lo, hi)
    starts = [0] * x.aval.ndim
    limits = list(x.aval.shape)
    starts[axis], limits[axis] = lo, hi
    return emit(P.slice_p, x, start_indices=tuple(starts), limit_indices=tuple(limits),
                strides=None)  # fmt: skip


# -- differences -----------------------------------------------------------------------


@export
@static_args("axis")
def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """``jax.numpy.diff``: the n-th discrete difference along `axis` (bools: !=)."""
    b = context(a, prepend, append)
    arr = operand(a, b)
    n, axis = operator.index(n), operator.index(axis)
    if n == 0:
        return arr
    if n < 0:
        raise InvalidInputError(f"order must be non-negative but got {n}")
    if arr.aval.ndim == 0:
        raise ShapeError("diff requires input that is at least one dimensional")
    ax = axis_arg(axis, arr.aval.ndim, "diff")
    edge = list(arr.aval.shape)
    edge[ax] = 1

    def edge_or(extra: Any) -> Tracer:
        e = operand(extra, b)
        return broadcast_to(e, tuple(edge)) if e.aval.ndim == 0 else e

    combined = [edge_or(prepend)] if prepend is not None else []
    combined.append(arr)
    if append is not None:
        combined.append(edge_or(append))
    if len(combined) > 1:
        arr = concatenate(combined, ax)
    op = U.not_equal if arr.aval[1] is BOOL else U.subtract
    for _ in range(n):
        arr = op(slice_in_dim(arr, 1, None, ax), slice_in_dim(arr, None, -1, ax))
    return arr


@export
def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """``jax.numpy.ediff1d``: differences of the flattened array (lax.sub: no bools)."""
    b = context(ary, to_end, to_begin)
    arr = reshape(operand(ary, b), (-1,))
    result = emit(P.sub_p, slice_in_dim(arr, 1, None, 0), slice_in_dim(arr, None, -1, 0))
    if to_begin is not None:
        first = reshape(convert(b, operand(to_begin, b), arr.aval[1], False), (-1,))
        result = concatenate((first, result))
    if to_end is not None:
        last = reshape(convert(b, operand(to_end, b), arr.aval[1], False), (-1,))
        result = concatenate((result, last))
    return result


@export
@static_args("axis")
def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: Any = None) -> Any:
    """``jax.numpy.gradient``: central differences inside, one-sided at the edges."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to gradient is not supported.")
    b = context(f, *varargs)
    a, *spacing = promote(b, "gradient", operands(b, (f, *varargs)), "inexact")
    axes = axes_arg(axis, a.aval.ndim, "gradient")
    if not axes:
        return []
    if min(a.aval.shape[i] for i in axes) < 2:
        raise ShapeError("Shape of array too small to calculate a numerical gradient, at "
                         "least 2 elements are required.")  # fmt: skip
    if not spacing:
        dx: Sequence[Any] = [1.0] * len(axes)
    elif len(spacing) == 1:
        dx = spacing * len(axes)
    elif len(spacing) == len(axes):
        dx = spacing
    else:
        raise InvalidInputError(f"Invalid number of spacing arguments {len(spacing)} for "
                                f"axis={axis}")  # fmt: skip
    grads = [_gradient_along(a, h, ax) for ax, h in zip(axes, dx, strict=True)]
    return grads[0] if len(axes) == 1 else grads


def _gradient_along(a: Tracer, h: Any, axis: int) -> Tracer:
    def sliced(start: int | None, limit: int | None) -> Tracer:
        return slice_in_dim(a, start, limit, axis)

    upper = U.subtract(sliced(1, 2), sliced(0, 1))
    lower = U.subtract(sliced(-1, None), sliced(-2, -1))
    if not isinstance(h, Tracer) or h.aval.ndim == 0:
        inner = U.true_divide(U.multiply(U.subtract(sliced(2, None), sliced(None, -2)), 0.5), h)
        lower, upper = U.true_divide(lower, h), U.true_divide(upper, h)
    elif h.aval.ndim == 1:
        if h.aval.shape[0] != a.aval.shape[axis]:
            raise ShapeError("Spacing arrays must have the same length as the dimension along "
                             "which the gradient is calculated.")  # fmt: skip
        shape = [1] * a.aval.ndim
        shape[axis] = h.aval.shape[0]
        h = reshape(h, tuple(shape))

        def hs(start: int | None, limit: int | None) -> Tracer:
            return slice_in_dim(h, start, limit, axis)

        upper = U.true_divide(upper, U.subtract(hs(1, 2), hs(0, 1)))
        lower = U.true_divide(lower, U.subtract(hs(-1, None), hs(-2, -1)))
        dx1, dx2 = U.subtract(hs(1, -1), hs(0, -2)), U.subtract(hs(2, None), hs(1, -1))
        c0 = U.true_divide(U.negative(dx2), U.multiply(dx1, U.add(dx1, dx2)))
        c1 = U.true_divide(U.subtract(dx2, dx1), U.multiply(dx1, dx2))
        c2 = U.true_divide(dx1, U.multiply(dx2, U.add(dx1, dx2)))
        inner = U.add(U.add(U.multiply(c0, sliced(0, -2)), U.multiply(c1, sliced(1, -1))),
                      U.multiply(c2, sliced(2, None)))  # fmt: skip
    else:
        raise ShapeError("Spacing arrays must be 1D arrays or scalars.")
    return concatenate((upper, inner, lower), axis=axis)


# -- convolutions ----------------------------------------------------------------------


def _conv(a: Any, v: Any, mode: str, op: str, preferred: Any, precision: Any = None) -> Any:
    """``lax_numpy._conv``: a 1-d conv_general_dilated (y flipped for convolve)."""
    b = context(a, v)
    x, y = operands(b, (a, v))
    if x.aval.ndim != 1 or y.aval.ndim != 1:
        raise ShapeError(f"{op}() only support 1-dimensional inputs.")
    pet = None
    if preferred is None:
        x, y = promote(b, op, [x, y], "inexact")
    else:
        x, y = promote(b, op, [x, y])
        pet = b.policy.user_dtype(preferred)
    if x.aval.shape[0] == 0 or y.aval.shape[0] == 0:
        raise ShapeError(f"{op}: inputs cannot be empty, got shapes {x.aval.shape} and "
                         f"{y.aval.shape}.")  # fmt: skip
    reverse = False
    if op == "correlate":
        y = U.conjugate(y)
        if x.aval.shape[0] < y.aval.shape[0]:
            x, y, reverse = y, x, True
    else:
        if x.aval.shape[0] < y.aval.shape[0]:
            x, y = y, x
        y = emit(P.rev_p, y, dimensions=(0,))
    k = y.aval.shape[0]
    pads = {"valid": (0, 0), "same": (k // 2, k - k // 2 - 1), "full": (k - 1, k - 1)}
    if mode not in pads:
        raise InvalidInputError("mode must be one of ['full', 'same', 'valid']")
    lhs = emit(P.expand_dims_p, x, dimensions=(0, 1))
    rhs = emit(P.expand_dims_p, y, dimensions=(0, 1))
    r = emit(conv_general_dilated_p, lhs, rhs, window_strides=(1,), padding=(pads[mode],),
             lhs_dilation=(1,), rhs_dilation=(1,), preferred_element_type=pet,
             **P.precision_param(jnp_precision(precision)))  # fmt: skip
    r = emit(P.squeeze_p, r, dimensions=(0, 1))
    return emit(P.rev_p, r, dimensions=(0,)) if reverse else r


@export
def convolve(a: Any, v: Any, mode: str = "full", *, precision: Any = None,
             preferred_element_type: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.convolve`` of two 1-d arrays (mode 'full', 'same' or 'valid')."""
    return _conv(a, v, mode, "convolve", preferred_element_type, precision)


@export
def correlate(a: Any, v: Any, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.correlate`` of two 1-d arrays (v conjugated)."""
    return _conv(a, v, mode, "correlate", preferred_element_type, precision)


# -- interpolation and polynomials -------------------------------------------------------


@export
def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.interp``: one-dimensional piecewise linear interpolation."""
    b = context(x, xp, fp, *(v for v in (left, right, period) if not isinstance(v, str)))
    x, xp, fp = operands(b, (x, xp, fp))
    if xp.aval.shape != fp.aval.shape or xp.aval.ndim != 1:
        raise ShapeError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = promote(b, "interp", [x, xp], "inexact")
    (fp,) = promote(b, "interp", [fp], "inexact")
    extrapolate = []
    for side, value in (("left", left), ("right", right)):
        if isinstance(value, str) and value != "extrapolate":
            raise InvalidInputError(f"the only valid string value of `{side}` is "
                                    f"'extrapolate', but got: {value!r}")  # fmt: skip
        extrapolate.append(isinstance(value, str))
    if kind(x) == "c":
        raise OperandValueError("jnp.interp: complex x values not supported.")
    if period is not None:  # x and xp wrapped into one period, xp sorted and padded
        p = operand(period, b)
        if p.aval.ndim:
            raise ShapeError(f"period must be a scalar; got {period}")
        p = U.absolute(p)
        x, xp = U.remainder(x, p), U.remainder(xp, p)
        xp, fp = _sort(b, [xp, fp], 0, True, 1)
        xp = concatenate([U.subtract(xp[-1:], p), xp, U.add(xp[:1], p)])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    n = xp.aval.shape[0]
    i = U.clip(binary_search(b, xp, x, "right", _INT32), 1, n - 1)  # jax's default 'scan'
    im1 = U.subtract(i, 1)
    fp_lo, xp_lo = fp[im1], xp[im1]
    df = U.subtract(fp[i], fp_lo)
    dx = U.subtract(xp[i], xp_lo)
    delta = U.subtract(x, xp_lo)
    try:  # jax asks numpy's finfo, which knows no ml_dtypes floats (bfloat16, float8_*)
        eps = np.spacing(np.finfo(xp.aval[1].numpy).eps)
    except ValueError:
        raise OperandTypeError(
            f"interp of {xp.aval[1]} values raises in jax.numpy (numpy.finfo does not know "
            "the type); convert xp to float32 first."
        ) from None
    epsilon = lit(b, eps, xp.aval[1])
    dx0 = U.less_equal(emit(P.abs_p, dx), epsilon)
    f = U.where(dx0, fp_lo, U.add(fp_lo, U.multiply(U.true_divide(delta, U.where(dx0, 1, dx)), df)))
    if not extrapolate[0] and period is None:
        f = U.where(U.less(x, xp[0]), fp[0] if left is None else left, f)
    if not extrapolate[1] and period is None:
        f = U.where(U.greater(x, xp[-1]), fp[-1] if right is None else right, f)
    return f


@export
def polyval(p: Any, x: Any, *, unroll: int = 16) -> Any:
    """``jax.numpy.polyval``: Horner's scheme over p's rows (jax scans; this unrolls
    the same steps)."""
    b = context(p, x)
    p_arr, x_arr = promote(b, "polyval", operands(b, (p, x)))
    if p_arr.aval.ndim == 0:
        raise ShapeError("polyval: p must be at least 1-dimensional (jax scans over its rows)")
    shape = result_shape("polyval", [p_arr.aval.shape[1:], x_arr.aval.shape])
    y = broadcast_to(lit(b, 0, x_arr.aval[1]), shape)
    for k in range(p_arr.aval.shape[0]):
        row = emit(P.squeeze_p, slice_in_dim(p_arr, k, k + 1, 0), dimensions=(0,))
        y = U.add(U.multiply(y, x_arr), row)
    return y


# -- triangles ---------------------------------------------------------------------------


def _triangle(name: str, m: Any, k: Any, lower: bool) -> Any:
    b = context(m)
    x = operand(m, b)
    k = operator.index(k)
    if x.aval.ndim < 2:
        raise ShapeError(f"Argument to jax.numpy.{name} must be at least 2D")
    n, mm = x.aval.shape[-2:]
    mask = tri(b, n, mm, k if lower else k - 1)
    which = emit(P.broadcast_in_dim_p, mask, shape=x.aval.shape,
                 broadcast_dimensions=(x.aval.ndim - 2, x.aval.ndim - 1))  # fmt: skip
    zeros = full_like_value(x, 0)
    return select(which, x, zeros) if lower else select(which, zeros, x)


@export
def tril(m: Any, k: int = 0) -> Any:
    """``jax.numpy.tril``: zeros above the k-th diagonal (of the last two axes)."""
    return _triangle("tril", m, k, lower=True)


@export
def triu(m: Any, k: int = 0) -> Any:
    """``jax.numpy.triu``: zeros below the k-th diagonal (of the last two axes)."""
    return _triangle("triu", m, k, lower=False)
