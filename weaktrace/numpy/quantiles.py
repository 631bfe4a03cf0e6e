"""Order statistics: quantile, percentile, median and their NaN-ignoring forms,
following ``jax._src.numpy.reductions._quantile`` step by step (sort along the
axis, gather the two neighbours of ``q * (n - 1)``, combine them by `method`, then
convert back to the input's inexact dtype)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from weaktrace.errors import InvalidInputError, OperandTypeError, ShapeError
from weaktrace.numpy._core import (
    Context,
    P,
    axis_arg,
    context,
    convert,
    emit,
    export,
    kind,
    lit,
    operand,
    promote,
    static_args,
)
from weaktrace.numpy.quantiles_cdf import inverted_cdf, weighted_operands
from weaktrace.numpy.reductions import any as _any
from weaktrace.numpy.reductions import sum as _sum
from weaktrace.numpy.shapes import expand_dims, reshape, transpose
from weaktrace.numpy.sorting import _iota, _sort
from weaktrace.numpy.ufuncs import ceil, floor, isnan, maximum, minimum, where

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _op(x: Any, b: Context) -> Any:
    return operand(x, b)


def _prepare(a: Any, w: Any, axis: Any, keepdims: bool) -> tuple[Any, Any, int, list[int]]:
    """Flatten the reduced axes into one (jax's reshape with a permutation); the
    weights, if any, alike."""
    keepdim: list[int] = []
    if axis is None:
        if keepdims:
            keepdim = [1] * a.aval.ndim
        return reshape(a, (-1,)), None if w is None else reshape(w, (-1,)), 0, keepdim
    if isinstance(axis, tuple):
        nd = a.aval.ndim
        axes = tuple(axis_arg(ax, nd, "quantile") for ax in axis)
        if len(set(axes)) != len(axes):
            raise ShapeError("repeated axis")
        keepdim = list(a.aval.shape)
        for ax in axes:
            keepdim[ax] = 1
        keep = sorted(set(range(nd)) - set(axes))
        dims = list(range(nd))
        for i, s in enumerate(keep):
            dims[i], dims[s] = dims[s], dims[i]
        shape = a.aval.shape
        kept = tuple(shape[i] for i in range(nd) if i not in axes)
        touched = math.prod(shape[i] for i in range(nd) if i in axes)
        a = reshape(transpose(a, dims), (*kept, touched))
        if w is not None:
            w = reshape(transpose(w, dims), (*kept, touched))
        return a, w, a.aval.ndim - 1, keepdim
    return a, w, axis_arg(axis, a.aval.ndim, "quantile"), keepdim


def _quantile(name: str, a: Any, q: Any, axis: Any, method: str, keepdims: bool,
              squash_nans: bool, weights: Any) -> Any:  # fmt: skip
    if method not in _METHODS:
        raise InvalidInputError(
            "method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or "
            "'inverted_cdf'"
        )
    b = context(a, q, weights)
    x, qq = _op(a, b), _op(q, b)
    x, w = weighted_operands(b, name, x, weights, method, axis)
    if kind(x) == "c":
        raise InvalidInputError(
            "quantile does not support complex input, as the operation is poorly defined."
        )
    if kind(qq) != "f":  # lax.floor / lax.mul reject the others
        raise OperandTypeError(f"{name}: q must be a real floating array, got {qq.aval[1]}")
    x, w, axis, keepdim = _prepare(x, w, axis, keepdims)
    q_shape = qq.aval.shape
    q_ndim = len(q_shape)
    if q_ndim > 1:
        raise ShapeError(f"q must be have rank <= 1, got shape {q_shape}")
    a_shape = x.aval.shape
    qdt, int_ = qq.aval[1], b.policy.user_dtype(int)
    if squash_nans:
        x = where(isnan(x), np.nan, x)
        x, w = _sort_with(b, x, w, axis)
        counts = _sum(~isnan(x), axis=axis, dtype=qdt, keepdims=keepdims)
        red_shape = counts.aval.shape
        qe = reshape(qq, q_shape + (1,) * len(red_shape))
        counts = reshape(counts, (1,) * q_ndim + red_shape)
        qe = qe * (counts - lit(b, 1, qdt))
        low, high = floor(qe), ceil(qe)
        high_weight = qe - low
        low_weight = lit(b, 1, high_weight.aval[1]) - high_weight
        low = maximum(lit(b, 0, low.aval[1]), minimum(low, counts - 1))
        high = maximum(lit(b, 0, high.aval[1]), minimum(high, counts - 1))
        low = convert(b, low, int_, False)
        high = convert(b, high, int_, False)
        out_shape = q_shape + red_shape
        index = [_iota(b, int_, out_shape, d + q_ndim) for d in range(len(red_shape))]
        if keepdims:
            index[axis] = low
        else:
            index.insert(axis, low)
        low_value = x[tuple(index)]
        index[axis] = high
        high_value = x[tuple(index)]
    else:
        x = where(_any(isnan(x), axis=axis, keepdims=True), np.nan, x)
        x, w = _sort_with(b, x, w, axis)
        n: Any = lit(b, a_shape[axis], qdt)
        qe = qq * (n - 1)
        low, high = floor(qe), ceil(qe)
        high_weight = qe - low
        low_weight = lit(b, 1, high_weight.aval[1]) - high_weight
        low = emit(P.clamp_p, lit(b, 0, low.aval[1]), low, n - 1)
        high = emit(P.clamp_p, lit(b, 0, high.aval[1]), high, n - 1)
        low = convert(b, low, int_, False)
        high = convert(b, high, int_, False)
        low_value, high_value = _take(x, low, axis, keepdims), _take(x, high, axis, keepdims)
        if q_ndim == 1:
            low_weight, high_weight = (
                emit(P.broadcast_in_dim_p, w, shape=low_value.aval.shape, broadcast_dimensions=(0,))
                for w in (low_weight, high_weight)
            )
    if method == "inverted_cdf":
        result = inverted_cdf(b, x, w, qq, axis, keepdims, squash_nans)
    else:
        result = _combine(b, method, low_value, high_value, low_weight, high_weight, qdt)
    if keepdims and keepdim:
        if q_ndim > 0:
            keepdim = [q_shape[0], *keepdim]
        result = reshape(result, tuple(keepdim))
    return convert(b, result, x.aval[1], False)


def _sort_with(b: Context, x: Any, w: Any, axis: int) -> tuple[Any, Any]:
    """``lax.sort`` of x, or ``lax.sort_key_val(x, w)`` with weights."""
    if w is None:
        return _sort(b, [x], axis, True, 1)[0], None
    x, w = _sort(b, [x, w], axis, True, 1)
    return x, w


def _take(x: Any, idx: Any, axis: int, keepdims: bool) -> Any:
    """x at `idx` (shape q_shape) along `axis`: q_shape + the other dims."""
    nd = x.aval.ndim
    moved = transpose(x, [axis, *(i for i in range(nd) if i != axis)])
    v = moved[idx]
    if keepdims:
        v = expand_dims(v, idx.aval.ndim + axis)
    return v


def _combine(b: Context, method: str, lo: Any, hi: Any, lo_w: Any, hi_w: Any, qdt: Any) -> Any:
    if method == "linear":
        return convert(b, lo, qdt, False) * lo_w + convert(b, hi, qdt, False) * hi_w
    if method == "lower":
        return lo
    if method == "higher":
        return hi
    if method == "nearest":
        from weaktrace.numpy.ufuncs import select

        return select(b, hi_w <= lit(b, 0.5, hi_w.aval[1]), lo, hi)
    return (lo + hi) * lit(b, 0.5, lo.aval[1])  # midpoint


def _check(name: str, out: Any, overwrite_input: bool) -> None:
    if overwrite_input or out is not None:
        raise InvalidInputError(
            f"jax.numpy.{name} does not support overwrite_input=True or out != None"
        )


@export
@static_args("axis")
def quantile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *,
             weights: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.quantile``: the q-th quantiles along `axis`."""
    _check("quantile", out, overwrite_input)
    return _quantile("quantile", a, q, axis, method, keepdims, False, weights)


@export
@static_args("axis")
def nanquantile(a: Any, q: Any, axis: Any = None, out: None = None,
                overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
                *, weights: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.nanquantile``: quantiles ignoring NaNs."""
    _check("nanquantile", out, overwrite_input)
    return _quantile("nanquantile", a, q, axis, method, keepdims, True, weights)


def _percent(name: str, q: Any, a: Any) -> Any:
    b = context(a, q)
    qq: Any = promote(b, name, [_op(q, b)], "inexact")[0]
    return qq / 100


@export
@static_args("axis")
def percentile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: Any = None,
               out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.percentile``: quantile of q / 100."""
    qq = _percent("percentile", q, a)
    return quantile(a, qq, axis=axis, out=out, overwrite_input=overwrite_input, method=method,
                    keepdims=keepdims, weights=weights)  # fmt: skip


@export
@static_args("axis")
def nanpercentile(a: Any, q: Any, axis: Any = None, out: None = None,
                  overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
                  *, weights: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.nanpercentile``: nanquantile of q / 100."""
    qq = _percent("nanpercentile", q, a)
    return nanquantile(a, qq, axis=axis, out=out, overwrite_input=overwrite_input,
                       method=method, weights=weights, keepdims=keepdims)  # fmt: skip


@export
@static_args("axis")
def median(a: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:  # fmt: skip
    """``jax.numpy.median``: the midpoint quantile 0.5."""
    return quantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                    keepdims=keepdims, method="midpoint")  # fmt: skip


@export
@static_args("axis")
def nanmedian(a: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:  # fmt: skip
    """``jax.numpy.nanmedian``: the midpoint nanquantile 0.5."""
    return nanquantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                       keepdims=keepdims, method="midpoint")  # fmt: skip
