"""Reductions with jax.numpy's accumulation dtypes."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

from weaktrace.errors import ShapeError
from weaktrace.numpy._core import (
    BOOL,
    F32,
    DType,
    P,
    axes_arg,
    axis_arg,
    context,
    convert,
    emit,
    export,
    export_as,
    lit,
    operand,
)
from weaktrace.numpy.shapes import reshape


def _upcast_f16(dt: DType) -> DType:
    return F32 if dt.name in ("float16", "bfloat16") else dt


def _reduction(
    name: str,
    prim: Any,
    bool_prim: Any,
    *,
    promote_integers: bool = False,
    upcast: bool = False,
    preproc: str | None = None,
    has_identity: bool = True,
) -> Callable[..., Any]:
    def fn(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
           keepdims: bool = False, **kwargs: Any) -> Any:  # fmt: skip
        b = context(a)
        if kwargs:
            raise NotImplementedError(f"{name}: {sorted(kwargs)} are not supported yet")
        x = operand(a, b)
        if preproc == "bool":  # jax's _cast_to_bool: a convert (complex: real part != 0)
            x = convert(b, x, BOOL, False)
        elif preproc == "numeric" and x.aval.dt == BOOL:
            x = convert(b, x, b.policy.defaults["i"], False)
        dims = axes_arg(axis, x.aval.ndim, name)
        if not has_identity and builtins.any(x.aval.shape[d] == 0 for d in dims):
            raise ShapeError(f"zero-size array to reduction operation {name} which has no identity")
        if dtype is None:
            result = b.policy.accumulate(x.aval.dt) if promote_integers else x.aval.dt
        else:
            result = b.policy.user_dtype(dtype)
        compute = _upcast_f16(result) if upcast and P.kind(result) in "fc" else result
        x = convert(b, x, compute, False)
        p = bool_prim if compute == BOOL else prim
        r = emit(p, x, axes=dims)
        if keepdims:
            r = emit(P.expand_dims_p, r, dimensions=dims)
        return convert(b, r, result, False)

    return export_as(fn, name, f"``jax.numpy.{name}``, with jax's accumulation dtype.")


sum = _reduction("sum", P.reduce_sum_p, P.reduce_or_p, promote_integers=True, upcast=True,
                 preproc="numeric")  # fmt: skip
prod = _reduction("prod", P.reduce_prod_p, P.reduce_and_p, promote_integers=True, upcast=True,
                  preproc="numeric")  # fmt: skip
max = _reduction("max", P.reduce_max_p, P.reduce_or_p, has_identity=False)
min = _reduction("min", P.reduce_min_p, P.reduce_and_p, has_identity=False)
all = _reduction("all", P.reduce_and_p, P.reduce_and_p, preproc="bool")
any = _reduction("any", P.reduce_or_p, P.reduce_or_p, preproc="bool")


@export
def mean(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
         keepdims: bool = False) -> Any:  # fmt: skip
    """``jax.numpy.mean``: integers average in floating point."""
    b = context(a)
    x = operand(a, b)
    result = b.policy.mean(x.aval.dt) if dtype is None else b.policy.user_dtype(dtype)
    compute = _upcast_f16(result) if P.kind(result) in "fc" else result
    dims = axes_arg(axis, x.aval.ndim, "mean")
    count = math.prod(x.aval.shape[d] for d in dims)
    total = sum(x, axis=dims, dtype=compute, keepdims=keepdims)
    n = lit(b, count, compute)
    return convert(b, emit(P.div_p, total, n), result, False)


def _arg_reduction(name: str, prim: Any) -> Callable[..., Any]:
    def fn(a: Any, axis: int | None = None, out: None = None, keepdims: bool = False) -> Any:
        b = context(a)
        x = operand(a, b)
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
