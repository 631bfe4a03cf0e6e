"""``x.at[idx].get/set/add/...``: indexed reads and updates as one gather or scatter.

An index is checked and normalized by ``weaktrace.numpy.indexing`` (its ``_expand``),
then laid out as jax.numpy lays it out (``jax._src.numpy.indexing._index_to_gather``):
advanced indices broadcast into one block of batch dimensions, placed where the first
of them stands when they are adjacent (Ellipsis and None count as separators) and first
otherwise; scalar indices collapse their dimension; unit-step slices are windows; other
slices are iotas of indices with a batch dimension of their own. Updates follow
``jax._src.ops.scatter._scatter_update``: a Python int that fits an integer array
takes its dtype; x and the updates promote together, the scatter runs in the joined
dtype and the result is converted back to x's dtype and weak flag.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from weaktrace.core import primitives_scatter as S
from weaktrace.core.program import make_program
from weaktrace.core.source import find_user_stacklevel
from weaktrace.dtypes import registry
from weaktrace.errors import ConcretizationError
from weaktrace.ir.values import AbstractValue
from weaktrace.numpy._core import (
    Context,
    DType,
    P,
    Tracer,
    bind,
    broadcast_to,
    context,
    convert,
    lit,
    operand,
    promote,
    result_shape,
)
from weaktrace.numpy.creation import asarray
from weaktrace.numpy.indexing import _expand, _holds_tracer, _normalized

_asarray = getattr(asarray, "__wrapped__", asarray)
_INT32_MAX = 2**31 - 1
P_INT32 = registry.by_name("int32")
_MODE_NAMES = {
    "clip": "clip",
    "fill": "fill",
    "drop": "fill",
    "promise_in_bounds": "promise_in_bounds",
    "one_hot": "one_hot",
}
_ENUM_NAMES = {
    "CLIP": "clip",
    "FILL_OR_DROP": "fill",
    "PROMISE_IN_BOUNDS": "promise_in_bounds",
    "ONE_HOT": "one_hot",
}


def parse_mode(mode: Any) -> str | None:
    """``GatherScatterMode.from_any``, as a string (None: the operation's default)."""
    if mode is None:
        return None
    name = getattr(mode, "name", None)
    if name in _ENUM_NAMES and not isinstance(mode, str):
        return _ENUM_NAMES[name]
    if isinstance(mode, str) and mode in _MODE_NAMES:
        return _MODE_NAMES[mode]
    raise ValueError(f'Unknown gather mode "{mode}"')


class Plan(NamedTuple):
    """An index as a gather: jax's ``_GatherIndexer``."""

    slice_shape: tuple[int, ...]  # the shape of x[idx], None dimensions included
    newaxis_dims: tuple[int, ...]  # positions of the None dimensions in slice_shape
    slice_sizes: tuple[int, ...]  # the gather's slice sizes
    indices: Tracer  # (*batch, k) start indices
    dnums: Any  # GatherDims
    advanced: bool  # any integer-array index (indices may repeat or be unsorted)


def _separators(raw: tuple[Any, ...]) -> list[bool]:
    """Which entries of the raw index are integer indices (for adjacency), with a
    concrete boolean mask counting once per dimension it spans (as jax expands it)."""
    out: list[bool] = []
    for k in raw:
        if isinstance(k, np.ndarray) and k.dtype == bool:
            out += [True] * max(k.ndim, 1)
        elif k is None or k is Ellipsis or isinstance(k, slice):
            out.append(False)
        else:
            out.append(True)
    return out


def plan(b: Context, x: Tracer, key: Any, normalize: bool = True) -> Plan:
    """Lay out ``x[key]`` as a gather (jax's ``_index_to_gather``)."""
    raw = key if isinstance(key, tuple) else (key,)
    flags = _separators(raw)
    adv_pos = [i for i, f in enumerate(flags) if f]
    contiguous = bool(np.all(np.diff(adv_pos) == 1))
    items = _expand(b, x.aval.ndim, key)
    shape = x.aval.shape
    advanced = any(k.__class__ is Tracer and k.aval.ndim > 0 for k in items)
    index_dt = b.policy.defaults["i"] if max(shape, default=0) > _INT32_MAX else P_INT32
    # Normalize negative indices (per dimension of x; None consumes none).
    dims, dim = [], 0
    for k in items:
        dims.append(dim)
        if k is not None:
            dim += 1
    norm: list[Any] = []
    for k, d in zip(items, dims, strict=True):
        if k is None or isinstance(k, slice):
            norm.append(k)
            continue
        if isinstance(k, int):
            k = k + shape[d] if normalize and k < 0 else k
            norm.append(lit(b, k, index_dt))
            continue
        t = convert(b, k, index_dt, False) if k.aval[1] is not index_dt else k
        if k.aval[1].kind == "u" or not normalize:
            norm.append(t)  # unsigned indices are never negative
        else:
            norm.append(_normalized(b, t, shape[d]))
    adv_items = [i for i, k in enumerate(norm) if k is not None and not isinstance(k, slice)]
    if not advanced:
        adv_items = []
    first = adv_items[0] if adv_items else -1

    gather: list[tuple[Tracer, int]] = []
    gshape: list[int] = []
    offset, collapsed, start_map, slice_sizes = [], [], [], []
    slice_shape: list[int] = []
    newaxis: list[int] = []
    y_axis = collapsed_y = 0
    for pos, (k, d) in enumerate(zip(norm, dims, strict=True)):
        if adv_items and ((contiguous and pos == first) or (not contiguous and pos == 0)):
            arrs = [norm[i] for i in adv_items]
            batch = result_shape("indexing", [a.aval.shape for a in arrs])
            start = len(gshape)
            gather += [(broadcast_to(a, batch), start) for a in arrs]
            gshape += batch
            axes = [dims[i] for i in adv_items]
            start_map += axes
            collapsed += axes
            slice_shape += batch
            y_axis += len(batch)
            collapsed_y += len(batch)
        if pos in adv_items:
            slice_sizes.append(1)
            continue
        if k is None:
            slice_shape.append(1)
            newaxis.append(y_axis)
            y_axis += 1
        elif isinstance(k, slice):
            n = shape[d]
            lo, hi, step = k.indices(n)
            size = len(range(lo, hi, step))
            slice_shape.append(size)
            if step == 1:
                if size != n:
                    gather.append((lit(b, lo, index_dt), len(gshape)))
                    start_map.append(d)
                slice_sizes.append(size)
                offset.append(collapsed_y)
            else:
                values = np.asarray(lo + step * np.arange(size), dtype=index_dt.numpy)
                iota = b.const(values, AbstractValue.make(values.shape, index_dt, False))
                gather.append((iota, len(gshape)))
                start_map.append(d)
                gshape.append(size)
                collapsed.append(d)
                slice_sizes.append(1)
            collapsed_y += 1
            y_axis += 1
        else:  # a scalar index (static or traced) collapses its dimension
            if shape[d] == 0:
                raise IndexError(f"index is out of bounds for axis {d} with size 0")
            gather.append((k, len(gshape)))
            collapsed.append(d)
            slice_sizes.append(1)
            start_map.append(d)
    indices = _stack_indices(b, gather, tuple(gshape), index_dt)
    dnums = P.GatherDims(tuple(offset), tuple(sorted(collapsed)), tuple(start_map))
    return Plan(
        tuple(slice_shape), tuple(newaxis), tuple(slice_sizes), indices, dnums, bool(adv_items)
    )


def _stack_indices(
    b: Context, parts: list[tuple[Tracer, int]], gshape: tuple[int, ...], dt: DType
) -> Tracer:
    if not parts:
        zeros = np.zeros((0,), dtype=dt.numpy)
        return b.const(zeros, AbstractValue.make((0,), dt, False))
    if len(parts) == 1:
        g = parts[0][0]
        return bind(P.expand_dims_p, g, dimensions=(g.aval.ndim,))
    full = (*gshape, 1)
    cols = [
        bind(
            P.broadcast_in_dim_p,
            g,
            shape=full,
            broadcast_dimensions=tuple(range(i, i + g.aval.ndim)),
        )
        for g, i in parts
    ]
    return b.emit(P.concatenate_p, tuple(cols), {"dimension": len(gshape)})


def _squeeze_newaxis(y: Tracer, dims: tuple[int, ...]) -> Tracer:
    return bind(P.squeeze_p, y, dimensions=dims) if dims else y


def _scalar_bools(b: Context, x: Tracer, key: Any) -> tuple[Tracer, Any, tuple[int, ...]]:
    """A key with scalar booleans (``x.at[True]``, ``x.at[0, False]``) as jax lays it out:
    a unit axis inserted into x where each stands, indexed by ``arange(0 or 1)``; the
    dimensions inserted are returned (an update squeezes them out again)."""
    raw = key if isinstance(key, tuple) else (key,)
    if not any(_is_scalar_bool(k) for k in raw):
        return x, key, ()
    consumed = [0 if _is_scalar_bool(k) or k is None or k is Ellipsis else _rank(k) for k in raw]
    ellipsis = x.aval.ndim - sum(consumed)
    dims: list[int] = []
    new_key: list[Any] = []
    at = 0
    for k, n in zip(raw, consumed, strict=True):
        if _is_scalar_bool(k):
            dims.append(at)
            new_key.append(np.arange(int(bool(k))))
            at += 1
            continue
        new_key.append(k)
        at += max(ellipsis, 0) if k is Ellipsis else n
    return bind(P.expand_dims_p, x, dimensions=tuple(dims)), tuple(new_key), tuple(dims)


def _is_scalar_bool(k: Any) -> bool:
    return isinstance(k, bool | np.bool_) or (
        isinstance(k, np.ndarray) and k.dtype == bool and k.ndim == 0
    )


def _rank(k: Any) -> int:
    """How many dimensions of x an index entry consumes (a boolean mask: its rank)."""
    if isinstance(k, np.ndarray) and k.dtype == bool:
        return k.ndim
    if isinstance(k, list | tuple) and not _holds_tracer(k):
        a = np.asarray(k)
        return a.ndim if a.dtype == bool else 1
    return 1


def get(
    x: Any, key: Any, *, mode: Any = None, fill_value: Any = None, normalize: bool = True
) -> Tracer:
    """``x.at[key].get(...)``: one gather (jax's ``_gather``)."""
    b = context(x)
    x = operand(x, b)
    m = parse_mode(mode)
    if fill_value is not None:
        if fill_value.__class__ is Tracer and not fill_value.ctx.eager:
            raise ConcretizationError(
                "fill_value argument to indexed get() must be a concrete value, not a "
                f"tracer {fill_value.aval}"
            )
        if np.ndim(fill_value) != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        if isinstance(fill_value, np.ndarray | np.generic):
            fill_value = fill_value.item()
    x, key, _ = _scalar_bools(b, x, key)  # the inserted axes stay: they are the result's
    pl = plan(b, x, key, normalize)
    out_shape = tuple(s for i, s in enumerate(pl.slice_shape) if i not in pl.newaxis_dims)
    if math.prod(pl.slice_shape) == 0:
        return bind(
            P.broadcast_in_dim_p,
            lit(b, 0, x.aval[1], x.aval[2]),
            shape=pl.slice_shape,
            broadcast_dimensions=(),
        )
    y = x
    if pl.indices.aval.size:
        if m == "fill" and fill_value is not None:
            y = b.emit(
                S.gather_fill_p,
                (x, pl.indices),
                {
                    "dimension_numbers": pl.dnums,
                    "slice_sizes": pl.slice_sizes,
                    "fill_value": fill_value,
                },
            )
        else:
            if m == "one_hot":
                raise NotImplementedError("x.at[...].get(mode='one_hot') is not supported")
            y = b.emit(
                P.gather_p,
                (x, pl.indices),
                {
                    "dimension_numbers": pl.dnums,
                    "slice_sizes": pl.slice_sizes,
                    "mode": m or "promise_in_bounds",
                },
            )
    assert y.aval.shape == out_shape, (y.aval.shape, out_shape)
    if pl.newaxis_dims:
        y = bind(P.expand_dims_p, y, dimensions=pl.newaxis_dims)
    return y


def _updates(b: Context, x: Tracer, values: Any) -> Tracer:
    """jax's preprocessing of the updates: a Python int that fits an integer x takes
    x's dtype (strongly); anything else is ``asarray``'d (Python scalars stay weak)."""
    dt = x.aval[1]
    if isinstance(values, int) and dt.kind in "iu" and issubclass(dt.numpy.type, np.integer):
        info = np.iinfo(dt.numpy)
        if info.min <= values <= info.max:
            return lit(b, values, dt)
    return operand(_asarray(values), b) if values.__class__ is not Tracer else operand(values, b)


def _warn_unsafe(b: Context, y: Tracer, x: Tracer) -> None:
    """jax's FutureWarning when the updates do not cast safely to x's dtype."""
    if y.aval[1] is x.aval[1]:
        return
    target = AbstractValue.make((), x.aval[1], False)
    if b.policy.result([y.aval, target])[0] is not x.aval[1]:
        warnings.warn(
            f"scatter inputs have incompatible types: cannot safely cast value from "
            f"dtype={y.aval.dtype} to dtype={x.aval.dtype}. In future JAX releases this "
            "will result in an error.",
            FutureWarning,
            stacklevel=find_user_stacklevel(),
        )


def update(
    x: Any,
    key: Any,
    values: Any,
    op: str,
    *,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
    normalize: bool = True,
) -> Tracer:
    """``x.at[key].<op>(values)`` for op in set/add/subtract/multiply/min/max."""
    b = context(x, values)
    x = operand(x, b)
    y = _updates(b, x, values)
    m = parse_mode(mode)
    _warn_unsafe(b, y, x)
    x0 = x
    x, key, bools = _scalar_bools(b, x, key)
    pl = plan(b, x, key, normalize)
    if math.prod(pl.slice_shape) == 0:
        return x0
    xp, yp = promote(b, f"at[].{op}", [x, y])
    yp = _squeeze_newaxis(broadcast_to(yp, pl.slice_shape), pl.newaxis_dims)
    out = b.emit(
        S.SCATTERS[op],
        (xp, pl.indices, yp),
        _scatter_params(pl, m, indices_are_sorted, unique_indices),
    )
    return convert(b, _squeeze_newaxis(out, bools), x.aval[1], x.aval[2])


def _scatter_params(pl: Plan, m: str | None, sorted_: bool, unique: bool) -> dict[str, Any]:
    off, col, start = pl.dnums
    return {
        "dimension_numbers": S.ScatterDims(off, col, start),
        "indices_are_sorted": bool(sorted_ or not pl.advanced),
        "unique_indices": bool(unique or not pl.advanced),
        "mode": m,
    }


def apply(
    x: Any,
    key: Any,
    func: Callable[[Any], Any],
    *,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
    normalize: bool = True,
) -> Tracer:
    """``x.at[key].apply(func)``: func applied to each indexed element, as often as its
    index occurs (``lax.scatter_apply``)."""
    b = context(x)
    x = operand(x, b)
    m = parse_mode(mode)
    x0 = x
    x, key, bools = _scalar_bools(b, x, key)
    pl = plan(b, x, key, normalize)
    if math.prod(pl.slice_shape) == 0:
        return x0
    scalar = AbstractValue.make((), x.aval[1], x.aval[2])
    made = make_program(func, [scalar], b.policy, nested=True)
    if made.captures or len(made.out_avals) != 1:
        raise NotImplementedError(
            "x.at[...].apply(func): func must be a function of its one argument that "
            "returns one value; it cannot close over traced values (as in jax, whose "
            "scatter_apply computations cannot close over tracers)"
        )
    params = _scatter_params(pl, m, indices_are_sorted, unique_indices)
    update_shape = tuple(s for i, s in enumerate(pl.slice_shape) if i not in pl.newaxis_dims)
    params.update(update_shape=update_shape, program=made.program, policy=b.policy)
    out = b.emit(S.scatter_apply_p, (x, pl.indices), params)
    return convert(b, _squeeze_newaxis(out, bools), x.aval[1], x.aval[2])
