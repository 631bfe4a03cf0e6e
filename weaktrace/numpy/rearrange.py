"""Index arithmetic and rearrangements by index: repeat, put, delete, insert,
fill_diagonal, ravel_multi_index, unravel_index, trim_zeros, apply_along_axis and
apply_over_axes.

Where jax needs a concrete argument under jit (``repeat`` without
``total_repeat_length``, ``delete`` without ``assume_unique_indices``, ``trim_zeros``,
``ravel_multi_index(mode="raise")``), a traced one raises ConcretizationError.
Traced positions (``insert``, ``delete(assume_unique_indices=True)``) are computed by
pairwise counts instead of jax's sorts; the values are the same.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from weaktrace.core.operands import to_jax
from weaktrace.dtypes.registry import by_name
from weaktrace.errors import ConcretizationError, ShapeError
from weaktrace.lax.control import scan
from weaktrace.numpy import indexed_update as U
from weaktrace.numpy._core import (
    BOOL,
    Context,
    P,
    Tracer,
    axis_arg,
    broadcast_to,
    context,
    convert,
    emit,
    export,
    index_tuple,
    lit,
    operand,
    operands,
    result_shape,
)
from weaktrace.numpy._lax import iota, select
from weaktrace.numpy.gathers import _concrete, _ravel, _tile_to_size, take
from weaktrace.numpy.manipulation import moveaxis
from weaktrace.numpy.shapes import concatenate, expand_dims, reshape

_INT32 = by_name("int32")


@export
def repeat(a: Any, repeats: Any, axis: int | None = None, *,
           total_repeat_length: int | None = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.repeat``: traced repeats need a static ``total_repeat_length``."""
    if out_sharding is not None:
        raise NotImplementedError("repeat(out_sharding=...) is not supported by weaktrace")
    b = context(a, repeats)
    x = operand(a, b)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    traced = repeats.__class__ is Tracer and not repeats.ctx.eager
    if total_repeat_length is None:
        if traced:
            raise ConcretizationError(
                "When jit-compiling jnp.repeat, the total number of repeats must be static. "
                "To fix this, either specify a static value for `repeats`, or pass a static "
                "value to `total_repeat_length`."
            )
        reps = np.asarray(repeats.concrete() if repeats.__class__ is Tracer else repeats)
        if reps.ndim == 0 and x.aval.ndim:
            n = operator.index(reps.item())
            ax = axis_arg(axis, x.aval.ndim, "repeat")
            aux = list(x.aval.shape)
            aux.insert(ax + 1, n)
            keep = tuple(i for i in range(len(aux)) if i != ax + 1)
            y = emit(P.broadcast_in_dim_p, x, shape=tuple(aux), broadcast_dimensions=keep)
            out = list(x.aval.shape)
            out[ax] *= n
            return reshape(y, tuple(out))
        reps = np.ravel(reps)
        if x.aval.ndim:
            reps = np.broadcast_to(reps, (x.aval.shape[axis_arg(axis, x.aval.ndim, "repeat")],))
        total = int(np.sum(reps))
        r = operand(np.asarray(reps), b)
    else:
        total = operator.index(total_repeat_length)
        r = reshape(operand(repeats, b), (-1,))
        if x.aval.ndim:
            r = broadcast_to(r, (x.aval.shape[axis_arg(axis, x.aval.ndim, "repeat")],))
    if x.aval.ndim == 0:
        if r.aval.shape != (1,):
            raise ShapeError("`repeat` with a scalar parameter `a` is only implemented for "
                             "scalar values of the parameter `repeats`.")  # fmt: skip
        return broadcast_to(x, (total,))
    ax = axis_arg(axis, x.aval.ndim, "repeat")
    if total == 0 or x.aval.shape[ax] == 0:
        shape = list(x.aval.shape)
        shape[ax] = 0 if total == 0 else shape[ax]
        return broadcast_to(lit(b, 0, x.aval.dt, x.aval.weak_type), tuple(shape))
    return _repeat_gather(b, x, r, total, ax)


def _repeat_gather(b: Any, x: Tracer, r: Tracer, total: int, ax: int) -> Tracer:
    """Output j takes element ``count(exclusive_cumsum(r) <= j) - 1`` (jax's scatter of
    block starts and cumsum, written as a comparison)."""
    from weaktrace.numpy.cumulative import cumsum
    from weaktrace.numpy.gathers import take
    from weaktrace.numpy.reductions import sum as _sum

    r = convert(b, r, _INT32, False) if r.aval.dt is not _INT32 else r
    incl = cumsum(r)
    excl = emit(P.sub_p, incl, r)
    j = b.emit(P.iota_p, (), {"dtype": _INT32, "shape": (total, 1), "dimension": 0})
    starts = emit(P.broadcast_in_dim_p, excl, shape=(total, r.aval.shape[0]),
                  broadcast_dimensions=(1,))  # fmt: skip
    count = _sum(emit(P.le_p, starts, broadcast_to(j, starts.aval.shape)), axis=1, dtype=_INT32)
    return take(x, emit(P.sub_p, count, lit(b, 1, _INT32)), axis=ax)


@export
def put(a: Any, ind: Any, v: Any, mode: str | None = None, *, inplace: bool = True) -> Any:
    """``jax.numpy.put`` (``inplace=False`` required): values at flat indices."""
    if inplace:
        raise ValueError(
            "jax.numpy.put cannot modify arrays in-place, because JAX arrays are immutable. "
            "Pass inplace=False to instead return an updated array."
        )
    b = context(a, ind, v)
    x, i, vals = operand(a, b), _ravel(operand(ind, b)), _ravel(operand(v, b))
    if not x.aval.size or not i.aval.size or not vals.aval.size:
        return x
    vals = _tile_to_size(vals, i.aval.shape[0])
    if mode is None:
        smode = "drop"
    elif mode == "clip":
        from weaktrace.numpy.ufuncs import clip

        i, smode = clip(i, 0, x.aval.size - 1), "promise_in_bounds"
    elif mode == "wrap":
        from weaktrace.numpy.ufuncs import remainder

        i, smode = remainder(i, x.aval.size), "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ShapeError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
    return U.update(x, tuple(unravel_index(i, x.aval.shape)), vals, "set", mode=smode)


def _stable_rank(b: Context, idx: Tracer) -> Tracer:
    """Each element's position in a stable sort of the 1-d idx (pairwise counts)."""
    k = idx.aval.shape[0]
    col = emit(P.broadcast_in_dim_p, idx, shape=(k, k), broadcast_dimensions=(0,))
    row = emit(P.broadcast_in_dim_p, idx, shape=(k, k), broadcast_dimensions=(1,))
    before = emit(P.lt_p, iota(b, _INT32, (k, k), 1), iota(b, _INT32, (k, k), 0))
    less = emit(P.lt_p, row, col)
    ties = emit(P.and_p, emit(P.eq_p, row, col), before)
    from weaktrace.numpy.reductions import sum as _sum

    return _sum(emit(P.or_p, less, ties), axis=1, dtype=idx.aval.dt)


@export
def delete(arr: Any, obj: Any, axis: int | None = None, *,
           assume_unique_indices: bool = False) -> Any:  # fmt: skip
    """``jax.numpy.delete``: traced indices need ``assume_unique_indices=True``."""
    b = context(arr, obj) if not isinstance(obj, slice) else context(arr)
    x = operand(arr, b)
    if axis is None:
        x, axis = _ravel(x), 0
    ax = axis_arg(axis, x.aval.ndim, "delete")
    n = x.aval.shape[ax]
    if obj.__class__ is not Tracer and not isinstance(obj, slice | np.ndarray | list | tuple):
        try:
            i = operator.index(obj)
        except TypeError:
            pass
        else:
            i = axis_arg(i, n, "delete")
            return concatenate([_cut(x, ax, 0, i), _cut(x, ax, i + 1, n)], axis=ax)
    if isinstance(obj, slice):
        obj, assume_unique_indices = np.arange(n)[obj], True
    o = operand(obj, b)
    pre = (slice(None),) * ax
    from weaktrace.numpy.indexing import getitem

    if o.aval.dtype.kind in "iu" and assume_unique_indices:
        o = _ravel(o)
        dt = o.aval.dt
        if dt.kind == "i":
            o = select(emit(P.lt_p, o, lit(b, 0, dt)), emit(P.add_p, o, lit(b, n, dt)), o)
        o = emit(P.clamp_p, lit(b, 0, dt), o, lit(b, n, dt))
        k = o.aval.shape[0]
        shifted = emit(P.sub_p, o, _stable_rank(b, o))
        left = builtins.max(n - k, 0)
        base = iota(b, dt, (left,), 0)
        hits = emit(P.ge_p, _bcast(base, (k, left), 1), _bcast(shifted, (k, left), 0))
        from weaktrace.numpy.reductions import sum as _sum

        keep = emit(P.add_p, base, _sum(hits, axis=0, dtype=dt))
        return getitem(x, (*pre, keep))
    ov = _concrete(obj, "jnp.delete's 'obj' (or pass assume_unique_indices=True)")
    if ov.dtype.kind in "iu":
        mask = np.ones(n, dtype=bool)
        mask[ov] = False
    elif ov.dtype == bool:
        if ov.shape != (n,):
            raise ShapeError("np.delete(arr, obj): for boolean indices, obj must be "
                             "one-dimensional with length matching specified axis.")  # fmt: skip
        mask = ~ov
    else:
        raise ShapeError(f"np.delete(arr, obj): got obj.dtype={ov.dtype}; must be integer or bool.")
    return take(x, np.flatnonzero(mask).astype(np.int32), axis=ax)


def _bcast(x: Tracer, shape: tuple[int, ...], dim: int) -> Tracer:
    return emit(P.broadcast_in_dim_p, x, shape=shape, broadcast_dimensions=(dim,))


def _cut(x: Tracer, ax: int, lo: int, hi: int) -> Tracer:
    starts = [0] * x.aval.ndim
    limits = list(x.aval.shape)
    starts[ax], limits[ax] = lo, hi
    return emit(
        P.slice_p, x, start_indices=tuple(starts), limit_indices=tuple(limits), strides=None
    )


@export
def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """``jax.numpy.insert`` (traced indices too: the positions are counts)."""
    b = context(arr, values) if isinstance(obj, slice) else context(arr, obj, values)
    x, v = operand(arr, b), operand(values, b)
    if axis is None:
        x, axis = _ravel(x), 0
    ax = axis_arg(axis, x.aval.ndim, "insert")
    n = x.aval.shape[ax]
    idx = operand(np.arange(*obj.indices(n)), b) if isinstance(obj, slice) else operand(obj, b)
    if idx.aval.ndim > 1:
        raise ShapeError("jnp.insert(): obj must be a slice, a one-dimensional array, or a "
                         f"scalar; got {obj}")  # fmt: skip
    if idx.aval.dtype.kind not in "iu":
        if idx.aval.size == 0 and obj.__class__ is not Tracer:
            idx = convert(b, idx, b.policy.defaults["i"], False)
        else:
            raise ShapeError(f"jnp.insert(): index array must be integer typed; got {obj}")
    v = convert(b, v, x.aval.dt, False)
    while v.aval.ndim < x.aval.ndim:
        v = expand_dims(v, 0)
    if idx.aval.size == 1:
        index = _ravel(idx)
        if idx.aval.ndim == 0:
            from weaktrace.numpy.manipulation import moveaxis

            v = moveaxis(v, 0, ax)
        idx = broadcast_to(emit(P.squeeze_p, index, dimensions=(0,)), (v.aval.shape[ax],))
    k = result_shape("insert", [idx.aval.shape, (v.aval.shape[ax],)])[0]
    idx = broadcast_to(idx, (k,))
    dt = idx.aval.dt
    out_shape = list(x.aval.shape)
    out_shape[ax] += k
    out = broadcast_to(lit(b, 0, x.aval.dt, x.aval.weak_type), tuple(out_shape))
    if dt.kind == "i":
        idx = select(emit(P.lt_p, idx, lit(b, 0, dt)), emit(P.add_p, idx, lit(b, n, dt)), idx)
    idx = emit(P.clamp_p, lit(b, 0, dt), idx, lit(b, n, dt))
    values_ind = emit(P.add_p, idx, _stable_rank(b, idx))
    j = iota(b, dt, (n,), 0)
    from weaktrace.numpy.reductions import sum as _sum

    before = emit(P.le_p, _bcast(idx, (k, n), 0), _bcast(j, (k, n), 1))
    arr_ind = emit(P.add_p, j, _sum(before, axis=0, dtype=dt))
    pre = (slice(None),) * ax
    out = U.update(out, (*pre, values_ind), v, "set")
    return U.update(out, (*pre, arr_ind), x, "set")


@export
def fill_diagonal(a: Any, val: Any, wrap: bool = False, *, inplace: bool = True) -> Any:
    """``jax.numpy.fill_diagonal`` (``inplace=False`` required, no wrap)."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    b = context(a, val)
    x, v = operand(a, b), operand(val, b)
    if x.aval.ndim < 2:
        raise ShapeError("array must be at least 2-d")
    shape = x.aval.shape
    if x.aval.ndim > 2 and not all(s == shape[0] for s in shape[1:]):
        raise ShapeError("All dimensions of input must be of equal length")
    n = builtins.min(shape)
    i = iota(b, b.policy.defaults["i"], (n,), 0)
    if v.aval.ndim:
        v = _tile_to_size(_ravel(v), n)
    return U.update(x, (i,) * x.aval.ndim, v, "set")


@export
def ravel_multi_index(multi_index: Sequence[Any], dims: Sequence[int], mode: str = "raise",
                      order: str = "C", *, dtype: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.ravel_multi_index``: mode="raise" needs concrete indices."""
    if len(multi_index) != len(dims):
        raise ShapeError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(operator.index(d) for d in dims)
    b = context(*multi_index)
    idx = operands(b, multi_index)
    if dtype is None:
        dt = b.policy.result([operand(0, b).aval, *(i.aval for i in idx)])[0]
    else:
        dt = b.policy.user_dtype(dtype)
    if dt.kind not in "iu":
        raise ShapeError(f"dtype={dt} is not an integer type.")
    if math.prod(dims) - 1 > np.iinfo(dt.numpy).max:
        raise ShapeError(f"jnp.ravel_multi_index: dtype={dt} not large enough to hold "
                         f"flattened index for dims={dims}.")  # fmt: skip
    for i in idx:
        if mode == "raise":
            _concrete(
                i,
                "ravel_multi_index with mode='raise'",
                "The error occurred because ravel_multi_index was jit-compiled with "
                "mode='raise'. Use mode='wrap' or mode='clip' instead.",
            )
        if i.aval.dtype.kind not in "iu":
            raise TypeError("only int indices permitted")
    from weaktrace.numpy.ufuncs import add, clip, multiply, remainder

    if mode == "raise":
        for i, d in zip(idx, dims, strict=True):
            c = _concrete(i, "ravel_multi_index")
            if np.any((c < 0) | (c >= d)):
                raise ShapeError("invalid entry in coordinates array")
    elif mode == "clip":
        idx = [clip(i, 0, d - 1) for i, d in zip(idx, dims, strict=True)]
    elif mode == "wrap":
        idx = [remainder(i, d) for i, d in zip(idx, dims, strict=True)]
    elif mode != "ignore":
        raise ShapeError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order == "F":
        strides = np.cumprod((1, *dims[:-1]))
    elif order == "C":
        strides = np.cumprod((1, *dims[1:][::-1]))[::-1]
    else:
        raise ShapeError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result: Any = lit(b, 0, dt)
    for i, s in zip(idx, strides, strict=True):
        result = add(result, multiply(convert(b, i, dt, False), int(s)))
    return result


@export
def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    """``jax.numpy.unravel_index``: out-of-range indices clip to the first/last."""
    from weaktrace.numpy.math import divmod as _divmod
    from weaktrace.numpy.ufuncs import greater, less, where

    b = context(indices)
    x = operand(indices, b)
    dims = list(shape) if isinstance(shape, tuple | list) else [shape]
    if builtins.any(np.ndim(s) != 0 for s in dims):
        raise ShapeError("unravel_index: shape should be a scalar or 1D sequence.")
    outs: list[Any] = [0] * len(dims)
    for i in reversed(range(len(dims))):
        x, outs[i] = _divmod(x, dims[i])
    oob_pos = greater(x, 0)
    oob_neg = lit(b, False, BOOL) if x.aval.dtype.kind == "u" else less(x, -1)
    return tuple(
        where(oob_pos, s - 1, where(oob_neg, 0, i)) for s, i in zip(dims, outs, strict=True)
    )


@export
def trim_zeros(filt: Any, trim: str = "fb", axis: int | Sequence[int] | None = None) -> Any:
    """``jax.numpy.trim_zeros``: its shape depends on the values, so they must be concrete."""
    b = context(filt)
    x = operand(filt, b)
    v = _concrete(x, "jnp.trim_zeros (its result shape depends on the values)")
    axes = (
        tuple(range(v.ndim))
        if axis is None
        else tuple(axis_arg(a, v.ndim, "trim_zeros") for a in index_tuple(axis, "trim_zeros"))
    )
    if "f" not in trim.lower() and "b" not in trim.lower():
        return x
    nz = v != 0
    out = x
    for ax in axes:
        other = tuple(i for i in range(v.ndim) if i != ax)
        hit = np.flatnonzero(np.any(nz, axis=other) if other else nz)
        lo, hi, t = 0, v.shape[ax], trim.lower()
        if hit.size == 0:
            lo = hi = 0
        else:
            lo = int(hit[0]) if "f" in t else 0
            hi = int(hit[-1]) + 1 if "b" in t else hi
        out = _cut(out, ax, lo, builtins.max(lo, hi))
    return out


@export
def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any,
                     **kwargs: Any) -> Any:  # fmt: skip
    """``jax.numpy.apply_along_axis``: func1d on every 1-d slice along `axis`, traced once
    (the body of a scan over the slices), its result axes taking `axis`'s place."""

    b = context(arr)
    x = operand(arr, b)
    ax = axis_arg(axis, x.aval.ndim, "apply_along_axis")
    rest = x.aval.shape[:ax] + x.aval.shape[ax + 1 :]
    rows = reshape(moveaxis(x, ax, -1), (math.prod(rest), x.aval.shape[ax]))
    if not rows.aval.shape[0]:
        # No slices (a zero-size axis elsewhere): jax's vmap still knows func1d's result
        # type; func1d on one zero slice gives it here, broadcast to no rows.
        zero = broadcast_to(lit(b, 0, x.aval[1], bool(x.aval[2])), rows.aval.shape[1:])
        one = operand(func1d(zero, *args, **kwargs), b)
        y = broadcast_to(one, (0, *one.aval.shape))
    else:
        # func1d is traced once, as a scan's body over the rows (jax: once, under vmap)
        def body(carry: Any, row: Any) -> tuple[Any, Any]:
            return carry, to_jax(func1d(row, *args, **kwargs))

        y = operand(scan(body, (), to_jax(rows) if b.eager else rows)[1], b)
    fshape = y.aval.shape[1:]
    y = reshape(y, (*rest, *fshape))
    nf = len(fshape)
    perm = (*range(ax), *range(len(rest), len(rest) + nf), *range(ax, len(rest)))
    return y if perm == tuple(range(len(perm))) else emit(P.transpose_p, y, permutation=perm)


@export
def apply_over_axes(func: Callable[[Any, int], Any], a: Any, axes: Sequence[int]) -> Any:
    """``jax.numpy.apply_over_axes``: func(a, axis) for each axis, keeping the rank."""
    b = context(a)
    x = operand(a, b)
    for axis in axes:
        y = operand(func(x, axis), b)
        if y.aval.ndim == x.aval.ndim - 1:
            y = expand_dims(y, axis)
        elif y.aval.ndim != x.aval.ndim:
            raise ShapeError("function is not returning an array of the correct shape")
        x = y
    return x
