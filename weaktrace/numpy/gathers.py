"""Gathers and scatters by index: take, take_along_axis, put_along_axis, put, place,
choose, compress, extract, delete, insert, fill_diagonal, ravel_multi_index,
unravel_index, trim_zeros, apply_along_axis and apply_over_axes.

They are written as jax.numpy writes them, on weaktrace's gather and indexed-update
machinery (``weaktrace.numpy.indexed_update``); where jax needs a concrete argument
(``choose(mode="raise")``, ``delete`` without ``assume_unique_indices``,
``trim_zeros``), a traced one raises ConcretizationError, as jax does under jit.
"""

from __future__ import annotations

import operator
import string
from typing import Any

import jax
import numpy as np

from weaktrace.core.primitives import GatherDims
from weaktrace.core.primitives_scatter import gather_fill_p
from weaktrace.dtypes.registry import by_name
from weaktrace.errors import ConcretizationError, EmptyAxisGatherError, ShapeError
from weaktrace.numpy import indexed_update as U
from weaktrace.numpy._core import (
    Context,
    P,
    Tracer,
    axis_arg,
    broadcast_to,
    context,
    convert,
    emit,
    export,
    lit,
    operand,
    operands,
    result_shape,
    static_args,
    to_bool,
)
from weaktrace.numpy._core import N as _N
from weaktrace.numpy._lax import iota, select
from weaktrace.numpy.shapes import reshape, stack

_INT32, _INT64 = by_name("int32"), by_name("int64")


def _ravel(x: Tracer) -> Tracer:
    return reshape(x, (-1,))


def _concrete(x: Any, what: str, hint: str = "Compute it outside the traced function.") -> Any:
    if x.__class__ is Tracer:
        value = x.ctx.known(x)  # an eager value; under a trace none, as under jax.jit
        if value is None or isinstance(value, jax.core.Tracer):  # jax.jit of an eager call
            raise ConcretizationError(
                f"{what} needs a concrete value, got a tracer {x.aval}: its value is not "
                f"known while tracing. {hint}"
            )
        return np.asarray(value)
    return np.asarray(x)


def _index_dtype(x: Tracer) -> Any:
    return _INT64 if x.aval.dtype.itemsize == 8 and x.aval.dtype.kind in "iu" else _INT32


def _gather(b: Context, x: Tracer, idx: Tracer, dnums: GatherDims, sizes: tuple[int, ...],
            mode: str, fill_value: Any) -> Tracer:  # fmt: skip
    if mode == "fill" and fill_value is not None:
        if np.ndim(fill_value) != 0 or fill_value.__class__ is Tracer:
            raise ShapeError("fill_value must be a static scalar")
        fv = fill_value.item() if isinstance(fill_value, np.generic | np.ndarray) else fill_value
        params = {"dimension_numbers": dnums, "slice_sizes": sizes, "fill_value": fv}
        return b.emit(gather_fill_p, (x, idx), params)
    params = {"dimension_numbers": dnums, "slice_sizes": sizes, "mode": mode}
    return b.emit(P.gather_p, (x, idx), params)


@export
def take(a: Any, indices: Any, axis: int | None = None, out: None = None,
         mode: str | None = None, unique_indices: bool = False,
         indices_are_sorted: bool = False, fill_value: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.take``: out-of-bounds indices read NaN (or the fill) by default."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    b = context(a, indices)
    x, idx = operand(a, b), operand(indices, b)
    if axis is None:
        x, ax = _ravel(x), 0
    else:
        ax = axis_arg(operator.index(axis), x.aval.ndim, "take")
    n = x.aval.shape[ax]
    if mode is None or mode == "fill":
        gmode = "fill"
        if idx.aval.dtype.kind == "i":
            neg = emit(P.lt_p, idx, lit(b, 0, idx.aval.dt))
            idx = select(neg, emit(P.add_p, idx, lit(b, n, idx.aval.dt)), idx)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        from weaktrace.numpy.ufuncs import remainder

        idx, gmode = remainder(idx, lit(b, n, idx.aval.dt)), "promise_in_bounds"
    elif mode == "clip":
        gmode = "clip"
    else:
        raise ShapeError(f"Invalid mode '{mode}' for np.take")
    sizes = list(x.aval.shape)
    if n == 0:
        if idx.aval.size:
            raise EmptyAxisGatherError("Cannot do a non-empty jnp.take() from an empty axis.")
        return x
    k = idx.aval.ndim
    if idx.aval.size == 0:
        shape = (*sizes[:ax], *idx.aval.shape, *sizes[ax + 1 :])
        return broadcast_to(lit(b, 0, x.aval.dt, x.aval.weak_type), shape)
    sizes[ax] = 1
    offset = (*range(ax), *range(ax + k, x.aval.ndim + k - 1))
    dnums = GatherDims(offset, (ax,), (ax,))
    gi = emit(P.expand_dims_p, idx, dimensions=(k,))
    return _gather(b, x, gi, dnums, tuple(sizes), gmode, fill_value)


@export
@static_args("axis")
def take_along_axis(
    arr: Any,
    indices: Any,
    axis: int | None = -1,
    mode: Any = None,
    fill_value: Any = None,
    *,
    wrap_negative_indices: bool | None = None,
) -> Any:
    """``jax.numpy.take_along_axis``: one gather whose index array names every axis."""
    b = context(arr, indices)
    x, idx = operand(arr, b), operand(indices, b)
    if idx.aval.dtype.kind not in "iu":
        raise TypeError(f"take_along_axis indices must be of integer type, got {idx.aval.dtype}")
    if axis is None:
        if idx.aval.ndim != 1:
            raise ShapeError(
                f"take_along_axis indices must be 1D if axis=None, got shape {idx.aval.shape}"
            )
        x, axis = _ravel(x), 0
    rank = x.aval.ndim
    if rank != idx.aval.ndim:
        raise ShapeError(f"indices and arr must have the same number of dimensions; "
                         f"{idx.aval.ndim} vs. {rank}")  # fmt: skip
    ax = axis_arg(axis, rank, "take_along_axis")
    m = U.parse_mode(mode)
    n = x.aval.shape[ax]
    arr_shape = tuple(1 if i == ax else s for i, s in enumerate(x.aval.shape))
    out_shape = result_shape("take_along_axis", [idx.aval.shape, arr_shape])
    if n == 0:
        return broadcast_to(lit(b, 0, x.aval.dt, False), out_shape)
    wrap = m != "promise_in_bounds" if wrap_negative_indices is None else wrap_negative_indices
    dt = _index_dtype(idx)
    idx = convert(b, idx, dt, False)
    if wrap:
        neg = emit(P.lt_p, idx, lit(b, 0, dt))
        idx = select(neg, emit(P.add_p, idx, lit(b, n, dt)), idx)
    if m == "one_hot":
        return _take_one_hot(b, x, idx, ax, n)
    cols = []
    for i in range(rank):
        if i == ax:
            cols.append(broadcast_to(idx, out_shape))
        elif x.aval.shape[i] == 1:
            cols.append(broadcast_to(lit(b, 0, dt), out_shape))
        else:
            cols.append(iota(b, dt, out_shape, i))
    gi = stack(cols, axis=-1)
    dnums = GatherDims((), tuple(range(rank)), tuple(range(rank)))
    return _gather(b, x, gi, dnums, (1,) * rank, m or "fill", fill_value)


def _take_one_hot(b: Context, x: Tracer, idx: Tracer, ax: int, n: int) -> Tracer:
    """take_along_axis(mode="one_hot"), as jax computes it: a boolean one-hot of the
    indices (out-of-range ones all False) contracted with x in x's dtype."""
    shape = (*idx.aval.shape, n)
    wide = emit(P.broadcast_in_dim_p, idx, shape=shape,
                broadcast_dimensions=tuple(range(idx.aval.ndim)))  # fmt: skip
    hot = emit(P.eq_p, wide, iota(b, idx.aval[1], shape, len(shape) - 1))
    kw = {"precision": "highest", "preferred_element_type": x.aval.dtype}
    if x.aval.ndim == 1:
        return _N.einsum("...b,b->...", hot, x, **kw)
    labels = "".join(string.ascii_letters[i] for i in range(ax))
    if ax > len(string.ascii_letters) - 2:
        raise ShapeError("One Hot indexing is only supported for up to 50 leading dimensions.")
    return _N.einsum(f"{labels}y...z,{labels}z...->{labels}y...", hot, x, **kw)


def _sparse_indices(b: Context, shape: tuple[int, ...]) -> list[Tracer]:
    nd = len(shape)
    return [
        iota(b, _INT32, tuple(s if j == i else 1 for j in range(nd)), i)
        for i, s in enumerate(shape)
    ]


@export
@static_args("axis")
def put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None,
                   inplace: bool = True, *, mode: str | None = None) -> Any:  # fmt: skip
    """``jax.numpy.put_along_axis`` (``inplace=False`` required, as in jax)."""
    if inplace:
        raise ValueError(
            "jax.numpy.put_along_axis cannot modify arrays in-place, because JAX arrays "
            "are immutable. Pass inplace=False to instead return an updated array."
        )
    b = context(arr, indices, values)
    x, idx, v = operand(arr, b), operand(indices, b), operand(values, b)
    shape = x.aval.shape
    if axis is None:
        x, axis = _ravel(x), 0
    if x.aval.ndim != idx.aval.ndim:
        raise ShapeError(
            "put_along_axis arguments 'arr' and 'indices' must have same ndim. "
            f"Got arr.ndim={x.aval.ndim} and indices.ndim={idx.aval.ndim}."
        )
    v = broadcast_to(v, idx.aval.shape)
    ax = axis_arg(axis, x.aval.ndim, "put_along_axis")
    key = _sparse_indices(b, x.aval.shape)
    key[ax] = idx
    out = U.update(x, tuple(key), v, "set", mode=mode)
    return reshape(out, shape)


def _tile_to_size(x: Tracer, n: int) -> Tracer:
    from weaktrace.numpy.manipulation import tile

    k = x.aval.shape[0]
    if k != n:
        x = tile(x, -(-n // k)) if k < n else x
        x = emit(P.slice_p, x, start_indices=(0,), limit_indices=(n,), strides=None)
    return x


@export
def place(arr: Any, mask: Any, vals: Any, *, inplace: bool = True) -> Any:
    """``jax.numpy.place`` (``inplace=False`` required): the masked positions take
    vals in order, repeated as needed."""
    b = context(arr, mask, vals)
    data, msk, v = operand(arr, b), operand(mask, b), _ravel(operand(vals, b))
    if inplace:
        raise ValueError(
            "jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
            "immutable. Pass inplace=False to instead return an updated array."
        )
    if data.aval.size != msk.aval.size:
        raise ShapeError("place: arr and mask must be the same size")
    if not v.aval.size:
        raise ShapeError("Cannot place values from an empty array")
    if not data.aval.size:
        return data
    from weaktrace.numpy.cumulative import cumsum

    n = msk.aval.size
    m = to_bool(_ravel(msk))
    rank = emit(P.sub_p, cumsum(convert(b, m, _INT32, False)), lit(b, 1, _INT32))
    rank = emit(P.max_p, rank, lit(b, 0, _INT32))
    picked = take(_tile_to_size(v, n), rank, mode="clip")
    pos = select(m, iota(b, _INT32, (n,), 0), broadcast_to(lit(b, n, _INT32), (n,)))
    out = U.update(_ravel(data), (pos,), picked, "set", mode="drop")
    return reshape(out, data.aval.shape)


@export
def choose(a: Any, choices: Any, out: None = None, mode: str = "raise") -> Any:
    """``jax.numpy.choose``: mode="raise" needs a concrete `a`."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    seq = list(choices) if isinstance(choices, list | tuple) else choices
    b = context(a, *seq) if isinstance(seq, list) else context(a, seq)
    x = operand(a, b)
    chs = operands(b, seq) if isinstance(seq, list) else list(_unstack0(operand(seq, b)))
    if x.aval.dtype.kind not in "iu":
        raise ShapeError("`a` array must be integer typed")
    n = len(chs)
    if mode == "raise":
        vals = _concrete(
            x,
            "jnp.choose with mode='raise'",
            "The error occurred because jnp.choose was jit-compiled with mode='raise'. Use "
            "mode='wrap' or mode='clip' instead.",
        )
        if np.any((vals < 0) | (vals >= n)):
            raise ShapeError("invalid entry in choice array")
    elif mode == "wrap":
        from weaktrace.numpy.ufuncs import remainder

        x = remainder(x, n)
    elif mode == "clip":
        from weaktrace.numpy.ufuncs import clip

        x = clip(x, 0, n - 1)
    else:
        raise ShapeError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    from weaktrace.numpy.creation import array
    from weaktrace.numpy.indexing import getitem
    from weaktrace.numpy.manipulation import broadcast_arrays

    x, *chs = broadcast_arrays(x, *chs)
    stacked = array(chs)
    stacked = convert(b, stacked, stacked.aval.dt, False)  # jnp.array of arrays is strong
    return getitem(stacked, (x, *_sparse_indices(b, x.aval.shape)))


def _unstack0(x: Tracer) -> list[Tracer]:
    from weaktrace.numpy.manipulation import unstack

    return list(unstack(x))


@export
def compress(condition: Any, a: Any, axis: int | None = None, *, size: int | None = None,
             fill_value: Any = 0, out: None = None) -> Any:  # fmt: skip
    """``jax.numpy.compress``: a traced condition needs ``size=``."""
    b = context(condition, a, fill_value)
    cond, x, fill = operand(condition, b), operand(a, b), operand(fill_value, b)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    cond = (
        to_bool(cond)
        if cond.aval.dtype.kind != "c"
        else emit(P.ne_p, cond, lit(b, 0, cond.aval.dt))
    )
    whole = cond
    if cond.aval.ndim != 1:
        raise ShapeError("condition must be a 1D array")
    from weaktrace.numpy.manipulation import moveaxis

    if axis is None:
        x, axis = _ravel(x), 0
    else:
        x = moveaxis(x, axis, 0)
    n, k = x.aval.shape[0], cond.aval.shape[0]
    cond = emit(P.slice_p, cond, start_indices=(0,), limit_indices=(min(n, k),), strides=None)
    x = emit(P.slice_p, x, start_indices=(0,) * x.aval.ndim,
             limit_indices=(min(n, k), *x.aval.shape[1:]), strides=None)  # fmt: skip
    if size is None:
        raw = _concrete(whole, "compress without size=").astype(bool)
        if np.any(raw[n:]):
            raise ShapeError("condition contains entries that are out of bounds")
        result = take(x, np.flatnonzero(raw[:n]).astype(np.int32), axis=0)
    else:
        size = operator.index(size)
        if not 0 <= size <= x.aval.shape[0]:
            raise ShapeError("size must be positive and not greater than the size of the array "
                             f"axis; got {size=} for a.shape[axis]={x.aval.shape[0]}")  # fmt: skip
        result = _compress_sized(b, cond, x, fill, size)
    return moveaxis(result, 0, axis)


def _compress_sized(b: Context, cond: Tracer, x: Tracer, fill: Tracer, size: int) -> Tracer:
    """The selected rows in order, then rows of the fill: a scatter of each selected
    row to its rank (the others dropped) into rows of the fill."""
    from weaktrace.numpy.cumulative import cumsum

    n = cond.aval.shape[0]
    fill = broadcast_to(convert(b, fill, x.aval.dt, False), (size, *x.aval.shape[1:]))
    fill = convert(b, fill, x.aval.dt, x.aval.weak_type) if x.aval.weak_type else fill
    rank = emit(P.sub_p, cumsum(convert(b, cond, _INT32, False)), lit(b, 1, _INT32))
    pos = select(cond, rank, broadcast_to(lit(b, size, _INT32), (n,)))
    if n == 0:
        return fill
    return U.update(fill, (pos,), x, "set", mode="drop")


@export
def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Any:
    """``jax.numpy.extract``: compress of the flattened operands."""
    b = context(condition, arr, fill_value)
    cond = _ravel(operand(condition, b))
    return compress(cond, _ravel(operand(arr, b)), size=size, fill_value=fill_value)
