"""var, std, average and the NaN-ignoring reductions (nansum ... nanargmin), following
``jax._src.numpy.reductions`` and ``lax_numpy`` step by step."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from weaktrace.errors import InvalidInputError, OperandTypeError, ShapeError
from weaktrace.numpy import reductions as R
from weaktrace.numpy._core import (
    Context,
    DType,
    P,
    Tracer,
    axes_arg,
    broadcast_to,
    const_like,
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
from weaktrace.numpy.shapes import reshape, transpose
from weaktrace.numpy.ufuncs import greater, isnan, multiply, subtract, true_divide
from weaktrace.numpy.ufuncs import where as _where

# -- var / std / average ------------------------------------------------------------------


def _correction(ddof: Any, correction: Any) -> Any:
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise InvalidInputError("ddof and correction can't be provided simultaneously.")
    return correction


def _var_types(b: Context, a_dt: DType, dtype: Any) -> tuple[DType, DType]:
    """``_var_promote_types``: (computation dtype, result dtype)."""
    if dtype is not None:
        if dtype.kind != "c" and a_dt.kind == "c":
            raise InvalidInputError(
                "var does not support real dtype parameters when computing the variance of "
                "complex values (as in JAX: the semantics are unclear)."
            )
        compute, result = dtype, dtype
    elif a_dt.kind not in "fc":
        compute = result = b.policy.mean(a_dt)
    else:
        result, compute = P._real_dtype(a_dt), a_dt
    return R._upcast_f16(compute), result


def _squared(centered: Tracer) -> Tracer:
    if kind(centered) == "c":
        return emit(P.real_p, emit(P.mul_p, centered, emit(P.conj_p, centered)))
    return emit(P.square_p, centered)


@export
def var(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, mean: Any = None,
        correction: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.var``: mean squared deviation over ``N - correction`` elements."""
    correction = _correction(ddof, correction)
    if out is not None:
        raise NotImplementedError("The 'out' argument to var is not supported.")
    b = context(a, where, mean, correction)
    x = operand(a, b)
    w = R.check_where(b, "var", where)
    user = None if dtype is None else b.policy.user_dtype(dtype)
    compute, result = _var_types(b, x.aval[1], user)
    x = convert(b, x, compute, False)
    dims = axes_arg(axis, x.aval.ndim, "var")
    if mean is None:
        a_mean = R.mean(x, dims, dtype=compute, keepdims=True, where=w)
    else:
        a_mean = convert(b, operand(mean, b), compute, False)
    centered = _squared(emit(P.sub_p, x, a_mean))
    compute = centered.aval[1]
    normalizer = R.count(b, x, dims, keepdims, w, compute)
    normalizer = emit(P.sub_p, normalizer, convert(b, operand(correction, b), compute, False))
    total = R.sum(centered, dims, dtype=compute, keepdims=keepdims, where=w)
    out_ = convert(b, emit(P.div_p, total, normalizer), result, False)
    return _where(greater(normalizer, 0), out_, np.nan)


@export
def std(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, mean: Any = None,
        correction: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.std``: sqrt(var)."""
    correction = _correction(ddof, correction)
    if dtype is not None:
        dt = context(a).policy.user_dtype(dtype)
        if dt.kind not in "fc":
            raise OperandTypeError(f"dtype argument to std must be inexact; got {dt}")
    if out is not None:
        raise NotImplementedError("The 'out' argument to std is not supported.")
    R.check_where(context(a, where), "std", where)  # jax names std in the error
    v = var(a, axis=axis, dtype=dtype, correction=correction, keepdims=keepdims, where=where,
            mean=mean)  # fmt: skip
    return emit(P.sqrt_p, operand(v, context(v)))


@export
def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False,
            keepdims: bool = False) -> Any:  # fmt: skip
    """``jax.numpy.average``: the (weighted) mean, and the sum of weights if `returned`."""
    b = context(a, weights)
    x = operand(a, b)
    axes = axes_arg(axis, x.aval.ndim, "average")
    if weights is None:
        (x,) = promote(b, "average", [x], "inexact")
        avg = R.mean(x, axis=axes, keepdims=keepdims)
        count = int(np.prod([x.aval.shape[d] for d in axes]))
        weights_sum = lit(b, count, avg.aval[1])
    else:
        x, w = promote(b, "average", [x, operand(weights, b)], "inexact")
        if x.aval.shape != w.aval.shape:
            if axis is None:
                raise ShapeError("Axis must be specified when shapes of a and weights differ.")
            if w.aval.shape != tuple(x.aval.shape[d] for d in axes):
                raise ShapeError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")  # fmt: skip
            w = transpose(w, tuple(int(i) for i in np.argsort(axes)))
            w = reshape(w, tuple(s if i in axes else 1 for i, s in enumerate(x.aval.shape)))
        weights_sum = R.sum(w, axis=axes, keepdims=keepdims)
        avg = true_divide(R.sum(multiply(x, w), axis=axes, keepdims=keepdims), weights_sum)
    if returned:
        if avg.aval.shape != weights_sum.aval.shape:
            weights_sum = broadcast_to(weights_sum, avg.aval.shape)
        return avg, weights_sum
    return avg


# -- NaN-ignoring reductions ------------------------------------------------------------


def _nan_reduction(name: str, reduction: Any, identity: float, nan_if_all_nan: bool, a: Any,
                   axis: Any, keepdims: bool, where: Any, **kwargs: Any) -> Any:  # fmt: skip
    """``reductions._nan_reduction``: NaNs replaced by the identity first."""
    b = context(a, where)
    x = operand(a, b)
    w = R.check_where(b, name, where)
    if kind(x) not in "fc":
        return reduction(x, axis=axis, keepdims=keepdims, where=w, **kwargs)
    nan = isnan(x)
    filled = _where(nan, lit(b, R.init_value(x.aval[1], identity), x.aval[1]), x)
    out = reduction(filled, axis=axis, keepdims=keepdims, where=w, **kwargs)
    if nan_if_all_nan:
        return _where(R.all(nan, axis=axis, keepdims=keepdims), const_like(x, np.nan), out)
    return out


@export
@static_args("axis")
def nanmin(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.nanmin``: NaN only where every element is NaN."""
    return _nan_reduction("nanmin", R.min, np.inf, initial is None, a, axis, keepdims, where,
                          out=out, initial=initial)  # fmt: skip


@export
@static_args("axis")
def nanmax(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.nanmax``: NaN only where every element is NaN."""
    return _nan_reduction("nanmax", R.max, -np.inf, initial is None, a, axis, keepdims, where,
                          out=out, initial=initial)  # fmt: skip


@export
@static_args("axis")
def nansum(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.nansum``: NaNs count as 0."""
    if dtype is not None:
        dtype = context(a).policy.user_dtype(dtype)
    return _nan_reduction("nansum", R.sum, 0, False, a, axis, keepdims, where, dtype=dtype,
                          out=out, initial=initial)  # fmt: skip


@export
@static_args("axis")
def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.nanprod``: NaNs count as 1."""
    if dtype is not None:
        dtype = context(a).policy.user_dtype(dtype)
    return _nan_reduction("nanprod", R.prod, 1, False, a, axis, keepdims, where, dtype=dtype,
                          out=out, initial=initial)  # fmt: skip


@export
@static_args("axis")
def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.nanmean``: the mean of the non-NaN elements."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to nanmean is not supported.")
    b = context(a, where)
    x = operand(a, b)
    w = R.check_where(b, "nanmean", where)
    if kind(x) in "biu":
        return R.mean(x, axis, dtype, out, keepdims, where=w)
    dt = (b.policy.mean(x.aval[1]) if dtype is None
          else b.policy.mean_dtype(b.policy.user_dtype(dtype)))  # fmt: skip
    not_nan = emit(P.not_p, isnan(x))
    normalizer = R.sum(not_nan, axis=axis, dtype=dt, keepdims=keepdims, where=w)
    total = nansum(x, axis, dtype=dt, keepdims=keepdims, where=w)
    return emit(P.div_p, total, normalizer)


@export
@static_args("axis")
def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None, mean: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.nanvar``: the variance of the non-NaN elements."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to nanvar is not supported.")
    b = context(a, where, mean, ddof)
    x = operand(a, b)
    w = R.check_where(b, "nanvar", where)
    user = None if dtype is None else b.policy.user_dtype(dtype)
    compute, result = _var_types(b, x.aval[1], user)
    x = convert(b, x, compute, False)
    if mean is None:
        a_mean = nanmean(x, axis, dtype=compute, keepdims=True, where=w)
    else:
        a_mean = convert(b, operand(mean, b), compute, False)
    nan = isnan(x)
    centered = _squared(_where(nan, 0, emit(P.sub_p, x, a_mean)))
    normalizer = subtract(R.sum(emit(P.not_p, nan), axis=axis, keepdims=keepdims, where=w), ddof)
    empty = emit(P.le_p, normalizer, lit(b, 0, normalizer.aval[1], normalizer.aval[2]))
    total = _where(empty, np.nan, R.sum(centered, axis, keepdims=keepdims, where=w))
    divisor = _where(empty, 1, normalizer)
    out_ = emit(P.div_p, total, convert(b, divisor, total.aval[1], False))
    return convert(b, out_, result, False)


@export
@static_args("axis")
def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None, mean: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.nanstd``: sqrt(nanvar)."""
    R.check_where(context(a, where), "nanstd", where)  # jax names nanstd in the error
    v = nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, where=where,
               mean=mean)  # fmt: skip
    return emit(P.sqrt_p, operand(v, context(v)))


def _nan_arg(name: str, arg: Any, fill: float, a: Any, axis: Any, out: Any,
             keepdims: Any) -> Any:  # fmt: skip
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to {name} is not supported.")
    b = context(a)
    x = operand(a, b)
    axis = None if axis is None else operator.index(axis)
    keep = bool(keepdims)
    if kind(x) not in "fc":
        return arg(x, axis=axis, keepdims=keep)
    nan = isnan(x)
    res = arg(_where(nan, fill, x), axis=axis, keepdims=keep)
    all_nan = R.all(nan, axis=axis, keepdims=keep)
    return _where(all_nan, -1, res)


@export
def nanargmax(a: Any, axis: Any = None, out: None = None, keepdims: Any = None) -> Any:
    """``jax.numpy.nanargmax``: argmax ignoring NaNs (-1 where all are NaN)."""
    return _nan_arg("nanargmax", R.argmax, -np.inf, a, axis, out, keepdims)


@export
def nanargmin(a: Any, axis: Any = None, out: None = None, keepdims: Any = None) -> Any:
    """``jax.numpy.nanargmin``: argmin ignoring NaNs (-1 where all are NaN)."""
    return _nan_arg("nanargmin", R.argmin, np.inf, a, axis, out, keepdims)
