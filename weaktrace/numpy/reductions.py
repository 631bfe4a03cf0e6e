"""Reductions with jax.numpy's accumulation dtypes: sum, prod, max, min, all, any,
mean (with ``where=``, ``initial=``, ``promote_integers=``), amax, amin, ptp,
count_nonzero, argmax and argmin.

``jax._src.numpy.reductions._reduction`` step by step: the operand is converted
(strongly) to the computation dtype; masked elements become the monoid's identity;
``initial`` joins after the reduction; the result is converted to the result dtype.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from weaktrace.core import primitives_window as W
from weaktrace.errors import InvalidInputError, OperandTypeError, ShapeError
from weaktrace.numpy._core import (
    BOOL,
    F32,
    Context,
    DType,
    P,
    Tracer,
    axes_arg,
    axis_arg,
    broadcast_to,
    const_like,
    context,
    convert,
    emit,
    export,
    export_as,
    lit,
    operand,
    promote,
    static_args,
)
from weaktrace.numpy.shapes import reshape
from weaktrace.numpy.ufuncs import where as _where


def _upcast_f16(dt: DType) -> DType:
    return F32 if dt.name in ("float16", "bfloat16") else dt


def init_value(dt: DType, value: float) -> Any:
    """``_reduction_init_val``: the identity `value` (0, 1, +-inf, True...) in `dt`;
    infinities clip to the finite extremes of dtypes without them."""
    if dt is BOOL:
        return np.bool_(value > 0)
    if dt.kind in "iu":
        if np.isinf(value):
            ints = ml_dtypes.iinfo(dt.numpy)
            return ints.min if value < 0 else ints.max
        return int(value)
    if dt.kind == "f" and np.isinf(value):
        info = ml_dtypes.finfo(dt.numpy)
        if not np.isinf(np.asarray(value).astype(dt.numpy)):
            return info.min if value < 0 else info.max
    return value


def check_where(b: Context, name: str, where: Any) -> Tracer | None:
    """``check_where``: None, or a boolean array."""
    if where is None:
        return None
    w = operand(where, b)
    if w.aval[1] is not BOOL:
        raise InvalidInputError(
            f"jnp.{name}: where must be None or a boolean array; got dtype={w.aval[1]}"
        )
    return w


def masked(x: Tracer, where: Tracer | None, fill: Any) -> Tracer:
    """``_where(where, x, fill)`` with `fill` a strong constant of x's dtype."""
    if where is None:
        return x
    return _where(where, x, lit(x.ctx, fill, x.aval[1]))


_BINARY = {
    P.reduce_sum_p: P.add_p, P.reduce_prod_p: P.mul_p, P.reduce_max_p: P.max_p,
    P.reduce_min_p: P.min_p, P.reduce_and_p: P.and_p, P.reduce_or_p: P.or_p,
    W.reduce_xor_p: P.xor_p,
}  # fmt: skip


def _reduce(
    name: str, a: Any, prim: Any, bool_prim: Any, identity: float, *, axis: Any, dtype: Any,
    out: Any, keepdims: bool, initial: Any, where: Any, has_identity: bool = True,
    preproc: str | None = None, upcast: bool = False, promote_integers: bool = False,
) -> Any:  # fmt: skip
    """``jax._src.numpy.reductions._reduction``."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to {name} is not supported.")
    b = context(a, initial, where)
    x = operand(a, b)
    w = check_where(b, name, where)
    if initial is None and not has_identity and w is not None:
        raise InvalidInputError(f"reduction operation {name} does not have an identity, so to "
                                "use a where mask one has to specify 'initial'")  # fmt: skip
    if preproc == "bool":  # jax's _cast_to_bool: a convert (complex: real part != 0)
        x = convert(b, x, BOOL, False)
    elif preproc == "numeric":
        (x,) = promote(b, name, [x], "numeric")
    dims = axes_arg(axis, x.aval.ndim, name)
    if initial is None and not has_identity and builtins.any(x.aval.shape[d] == 0 for d in dims):
        raise ShapeError(f"zero-size array to reduction operation {name} which has no identity")
    if dtype is None:
        result = b.policy.accumulate(x.aval[1]) if promote_integers else x.aval[1]
    else:
        result = b.policy.user_dtype(dtype)
    compute = _upcast_f16(result) if upcast and result.kind in "fc" else result
    x = convert(b, x, compute, False)
    p = bool_prim if compute is BOOL else prim
    x = masked(x, w, init_value(compute, identity))
    r = emit(p, x, axes=dims)
    if initial is not None:
        first = convert(b, operand(initial, b), compute, False)
        if first.aval.ndim:
            raise ShapeError(f"initial value must be a scalar. Got array of shape "
                             f"{first.aval.shape}")  # fmt: skip
        r = emit(_BINARY[p], first, r)
    if keepdims:
        r = emit(P.expand_dims_p, r, dimensions=dims)
    return convert(b, r, result, False)


@export
def sum(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:  # fmt: skip
    """``jax.numpy.sum``: small integers and bools accumulate in the default int."""
    return _reduce("sum", a, P.reduce_sum_p, P.reduce_or_p, 0, axis=axis, dtype=dtype, out=out,
                   keepdims=keepdims, initial=initial, where=where, preproc="numeric",
                   upcast=dtype is None, promote_integers=promote_integers)  # fmt: skip


@export
def prod(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:  # fmt: skip
    """``jax.numpy.prod``: small integers and bools accumulate in the default int."""
    return _reduce("prod", a, P.reduce_prod_p, P.reduce_and_p, 1, axis=axis, dtype=dtype,
                   out=out, keepdims=keepdims, initial=initial, where=where, preproc="numeric",
                   upcast=dtype is None, promote_integers=promote_integers)  # fmt: skip


@export
def max(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.max`` (``where=`` needs ``initial=``: max has no identity)."""
    return _reduce("max", a, P.reduce_max_p, P.reduce_or_p, -np.inf, axis=axis, dtype=None,
                   out=out, keepdims=keepdims, initial=initial, where=where,
                   has_identity=False)  # fmt: skip


@export
def min(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.min`` (``where=`` needs ``initial=``: min has no identity)."""
    return _reduce("min", a, P.reduce_min_p, P.reduce_and_p, np.inf, axis=axis, dtype=None,
                   out=out, keepdims=keepdims, initial=initial, where=where,
                   has_identity=False)  # fmt: skip


@export
def all(a: Any, axis: Any = None, out: None = None, keepdims: bool = False, *,
        where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.all`` (bool; the policy may keep the input's dtype: torch's uint8)."""
    b = context(a, where)
    x = operand(a, b)
    r = _reduce("all", x, P.reduce_and_p, P.reduce_and_p, True, axis=axis, dtype=None,
                out=out, keepdims=keepdims, initial=None, where=where,
                preproc="bool")  # fmt: skip
    return convert(b, r, b.policy.logical_reduction(x.aval[1]), False)


@export
def any(a: Any, axis: Any = None, out: None = None, keepdims: bool = False, *,
        where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.any`` (bool; the policy may keep the input's dtype: torch's uint8)."""
    b = context(a, where)
    x = operand(a, b)
    r = _reduce("any", x, P.reduce_or_p, P.reduce_or_p, False, axis=axis, dtype=None,
                out=out, keepdims=keepdims, initial=None, where=where,
                preproc="bool")  # fmt: skip
    return convert(b, r, b.policy.logical_reduction(x.aval[1]), False)


@export
def amax(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
         initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.amax`` (max)."""
    return max(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


@export
def amin(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
         initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.amin`` (min)."""
    return min(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


def count(b: Context, x: Tracer, dims: tuple[int, ...], keepdims: bool, where: Tracer | None,
          dt: DType) -> Tracer:  # fmt: skip
    """``reductions._count``: the number of elements reduced (of `where`'s Trues)."""
    if where is None:
        return lit(b, math.prod(x.aval.shape[d] for d in dims), dt)
    return sum(broadcast_to(where, x.aval.shape), dims, dtype=dt, keepdims=keepdims)


@export
def mean(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         *, where: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.mean``: integers average in floating point; f16/bf16 accumulate in f32."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to mean is not supported.")
    b = context(a, where)
    x = operand(a, b)
    w = check_where(b, "mean", where)
    result = (b.policy.mean(x.aval[1]) if dtype is None
              else b.policy.mean_dtype(b.policy.user_dtype(dtype)))  # fmt: skip
    compute = _upcast_f16(result) if dtype is None and result.kind in "fc" else result
    dims = axes_arg(axis, x.aval.ndim, "mean")
    normalizer = count(b, x, dims, keepdims, w, compute)
    total = sum(x, dims, dtype=compute, keepdims=keepdims, where=w)
    return convert(b, emit(P.div_p, total, normalizer), result, False)


@export
def ptp(a: Any, axis: Any = None, out: None = None, keepdims: bool = False) -> Any:
    """``jax.numpy.ptp``: max - min (lax.sub: no bools)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to ptp is not supported.")
    x = operand(a, context(a))
    axis = axes_arg(axis, x.aval.ndim, "ptp")  # once: `axis` may be a one-shot iterator
    return emit(P.sub_p, max(x, axis, keepdims=keepdims), min(x, axis, keepdims=keepdims))


@export
@static_args("axis")
def count_nonzero(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``jax.numpy.count_nonzero``: in the default int dtype."""
    b = context(a)
    x = operand(a, b)
    nonzero = emit(P.ne_p, x, const_like(x, 0))
    return sum(nonzero, axis=axis, dtype=b.policy.defaults["i"], keepdims=keepdims)


def _arg_reduction(name: str, prim: Any) -> Callable[..., Any]:
    def fn(a: Any, axis: int | None = None, out: None = None, keepdims: bool | None = None) -> Any:
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to {name} is not supported.")
        b = context(a)
        x = operand(a, b)
        if x.aval[1].kind == "c":  # jax's lowering rejects it (its comparator is lax.gt/lt)
            raise OperandTypeError(f"{name} does not accept complex values ({x.aval[1]}); "
                                   "compare real parts or absolute values instead")  # fmt: skip
        if axis is None:
            x, ax = reshape(x, (-1,)), 0
        else:
            ax = axis_arg(axis, x.aval.ndim, name)
        if x.aval.shape[ax] == 0:
            raise ShapeError(f"attempt to get {name} of an empty sequence")
        r = emit(prim, x, axes=(ax,), index_dtype=b.policy.defaults["i"])
        if keepdims:
            dims = tuple(range(operand(a, b).aval.ndim)) if axis is None else (ax,)
            r = emit(P.expand_dims_p, r, dimensions=dims)
        return r

    return export_as(fn, name, f"``jax.numpy.{name}``: indices in the default int dtype.")


argmax = _arg_reduction("argmax", P.argmax_p)
argmin = _arg_reduction("argmin", P.argmin_p)
