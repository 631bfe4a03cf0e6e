"""``method="inverted_cdf"`` quantiles and their ``weights=``, following the branch of
``jax._src.numpy.reductions._quantile`` that handles them: cumulative (clean) weights
along the sorted axis, the first index whose cumulative weight reaches ``q * total``,
and NaN wherever a weight is negative or NaN (or, without NaN-squashing, a value is)."""

from __future__ import annotations

from typing import Any

import numpy as np

from weaktrace.errors import InvalidInputError, ShapeError
from weaktrace.numpy._core import (
    Context,
    P,
    axis_arg,
    const_like,
    convert,
    emit,
    full_like_value,
    kind,
    lit,
    operand,
    promote,
)
from weaktrace.numpy.cumulative import cumsum
from weaktrace.numpy.gathers import take_along_axis
from weaktrace.numpy.math_arrays import slice_in_dim
from weaktrace.numpy.reductions import any as _any
from weaktrace.numpy.reductions import sum as _sum
from weaktrace.numpy.shapes import expand_dims, reshape, squeeze, transpose
from weaktrace.numpy.ufuncs import isnan, where


def weighted_operands(b: Context, name: str, x: Any, weights: Any, method: str,
                      axis: Any) -> tuple[Any, Any]:  # fmt: skip
    """(a, weights) promoted together to an inexact dtype, weights broadcast to a's
    shape; (a, None) without weights."""
    if weights is None:
        return promote(b, name, [x], "inexact")[0], None
    w = operand(weights, b)
    if kind(w) == "c":
        raise InvalidInputError("Weights cannot be complex types.")
    if method != "inverted_cdf":
        raise NotImplementedError(
            f"{method} doesn't support weights. Only method 'inverted_cdf' supports weights."
        )
    x, w = promote(b, name, [x, w], "inexact")
    shape = x.aval.shape
    if w.aval.shape != shape:
        if axis is None:
            raise ShapeError("Weights shape must match 'a' shape when axis is None.")
        axes = axis if isinstance(axis, tuple) else (axis,)
        axes = tuple(axis_arg(ax, len(shape), name) for ax in axes)
        want = tuple(shape[ax] for ax in axes)
        if w.aval.shape != want:
            raise ShapeError(f"Weights shape {w.aval.shape} must match reduction axes {want}")
        w = emit(P.broadcast_in_dim_p, w, shape=shape, broadcast_dimensions=axes)
    return x, w


def inverted_cdf(b: Context, x: Any, w: Any, qq: Any, axis: int, keepdims: bool,
                 squash_nans: bool) -> Any:  # fmt: skip
    """The inverted-CDF quantiles of `x` (sorted along `axis`, `w` sorted with it)."""
    q_shape = qq.aval.shape
    q_ndim = len(q_shape)
    qdt = qq.aval[1]
    int_ = b.policy.user_dtype(int)
    if w is None:
        w = full_like_value(x, 1.0)
    zeros = full_like_value(w, 0)
    bad = emit(P.or_p, emit(P.lt_p, w, zeros), isnan(w))
    nan_data = isnan(x)
    clean = emit(P.select_n_p, emit(P.or_p, bad, nan_data), w, zeros)
    cum = cumsum(clean, axis=axis)
    last = cum.aval.shape[axis] - 1
    total = slice_in_dim(cum, last, last + 1, axis)  # lax.index_in_dim
    if not keepdims:
        total = squeeze(total, (axis,))
    tw = expand_dims(total, tuple(range(q_ndim)))
    qf = reshape(qq, q_shape + (1,) * total.aval.ndim)
    target = emit(P.mul_p, qf, tw)
    if not keepdims:
        target = expand_dims(target, (axis + q_ndim,))
    cw = expand_dims(cum, tuple(range(q_ndim)))
    is_less = emit(P.lt_p, cw, target)
    idx = _sum(convert(b, is_less, int_, False), axis=axis + q_ndim, keepdims=keepdims)
    if squash_nans:
        valid = _sum(~nan_data, axis=axis, dtype=qdt, keepdims=keepdims)
    else:
        valid = full_like_value(total, x.aval.shape[axis], qdt)
    limit = emit(P.sub_p, valid, const_like(valid, 1))
    max_idx = expand_dims(convert(b, limit, int_, False), tuple(range(q_ndim)))
    max_idx = convert(b, max_idx, idx.aval[1], False)
    idx = emit(P.max_p, lit(b, 0, idx.aval[1]), emit(P.min_p, idx, max_idx))
    take = squeeze(idx, (q_ndim + axis,)) if keepdims else idx
    if q_ndim == 0:
        result = squeeze(take_along_axis(x, expand_dims(take, (axis,)), axis=axis), (axis,))
    else:
        perm = [*range(q_ndim, q_ndim + axis), *range(q_ndim),
                *range(q_ndim + axis, take.aval.ndim)]  # fmt: skip
        result = take_along_axis(x, transpose(take, perm), axis=axis)
        result = transpose(result, [perm.index(i) for i in range(len(perm))])
    if keepdims:
        result = expand_dims(result, (q_ndim + axis,))
    any_bad = _any(bad, axis=axis, keepdims=keepdims)
    if squash_nans:
        all_nan = emit(P.eq_p, valid, full_like_value(valid, 0))
        force = emit(P.or_p, any_bad, all_nan)
    else:
        force = emit(P.or_p, any_bad, _any(nan_data, axis=axis, keepdims=keepdims))
    force = expand_dims(force, tuple(range(q_ndim)))
    return where(force, full_like_value(result, np.nan), result)
