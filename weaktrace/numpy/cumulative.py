"""Cumulative reductions: cumsum, cumprod, nancumsum, nancumprod, cumulative_sum and
cumulative_prod (``reductions._cumulative_reduction`` onto the cumsum/cumprod
primitives of ``weaktrace.core.primitives_cumulative``)."""

from __future__ import annotations

from typing import Any

from weaktrace.core import primitives_cumulative as C
from weaktrace.errors import ShapeError
from weaktrace.numpy._core import (
    BOOL,
    Tracer,
    axis_arg,
    bind,
    broadcast_to,
    const_like,
    context,
    convert,
    export,
    lit,
    operand,
    static_args,
)
from weaktrace.numpy.shapes import concatenate, reshape
from weaktrace.numpy.ufuncs import isnan, not_equal, where


def _cumulative(name: str, prim: Any, a: Any, axis: Any, dtype: Any, out: Any,
                fill_nan: bool = False, fill_value: Any = 0,
                promote_integers: bool = False) -> Tracer:  # fmt: skip
    """``jax._src.numpy.reductions._cumulative_reduction``."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to {name} is not supported")
    b = context(a)
    x = operand(a, b)
    if axis is None or (x.aval.ndim == 0 and x.aval[2]):  # jnp's _isscalar: a weak 0-d value
        x = reshape(x, (-1,))
    ax = axis_arg(0 if axis is None else axis, x.aval.ndim, name)
    if fill_nan:
        x = where(isnan(x), const_like(x, fill_value), x)
    if dtype is None:
        dt = x.aval[1]
        wide = promote_integers or dt is BOOL or b.policy.cumulative_promotes_integers
        result = b.policy.accumulate(dt) if wide else dt
        compute = result
    else:
        result = b.policy.user_dtype(dtype)
        compute = result
        if result is BOOL:
            if x.aval[1] is not BOOL:
                x = not_equal(x, 0)
            compute = b.policy.accumulate(BOOL)
    x = convert(b, x, compute, False)
    return convert(b, bind(prim, x, axis=ax, reverse=False), result, False)


@export
@static_args("axis")
def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """``jax.numpy.cumsum`` (bools count in the default int)."""
    return _cumulative("cumsum", C.cumsum_p, a, axis, dtype, out)


@export
@static_args("axis")
def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """``jax.numpy.cumprod`` (bools multiply in the default int)."""
    return _cumulative("cumprod", C.cumprod_p, a, axis, dtype, out)


@export
@static_args("axis")
def nancumsum(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """``jax.numpy.nancumsum``: NaNs count as 0."""
    return _cumulative("nancumsum", C.cumsum_p, a, axis, dtype, out, fill_nan=True, fill_value=0)


@export
@static_args("axis")
def nancumprod(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """``jax.numpy.nancumprod``: NaNs count as 1."""
    return _cumulative("nancumprod", C.cumprod_p, a, axis, dtype, out, fill_nan=True,
                       fill_value=1)  # fmt: skip


def _array_api(name: str, prim: Any, identity: int, x: Any, axis: Any, dtype: Any,
               include_initial: bool, promote_integers: bool) -> Any:  # fmt: skip
    b = context(x)
    x = operand(x, b)
    if x.aval.ndim == 0:
        raise ShapeError(f"The input must be non-scalar to take a {name}, however a scalar "
                         "value or scalar array was given.")  # fmt: skip
    if axis is None:
        if x.aval.ndim > 1:
            raise ShapeError(f"The input array has rank {x.aval.ndim}, however axis was not set "
                             "to an explicit value. The axis argument is only optional for "
                             "one-dimensional arrays.")  # fmt: skip
        axis = 0
    ax = axis_arg(axis, x.aval.ndim, name)
    dt = None if dtype is None else b.policy.user_dtype(dtype)
    out = _cumulative(name, prim, x, ax, dt, None, promote_integers=promote_integers)
    if not include_initial:
        return out
    shape = list(x.aval.shape)
    shape[ax] = 1
    first = broadcast_to(lit(b, identity, out.aval[1]), tuple(shape))
    return concatenate([first, out], axis=ax)


@export
def cumulative_sum(x: Any, /, *, axis: Any = None, dtype: Any = None,
                   include_initial: bool = False) -> Any:  # fmt: skip
    """``jax.numpy.cumulative_sum`` (array API): small integers accumulate in the
    default int; `include_initial` prepends a 0."""
    return _array_api("cumulative sum", C.cumsum_p, 0, x, axis, dtype, include_initial, True)


@export
def cumulative_prod(x: Any, /, *, axis: Any = None, dtype: Any = None,
                    include_initial: bool = False) -> Any:  # fmt: skip
    """``jax.numpy.cumulative_prod`` (array API); `include_initial` prepends a 1."""
    return _array_api("cumulative product", C.cumprod_p, 1, x, axis, dtype, include_initial,
                      False)  # fmt: skip
