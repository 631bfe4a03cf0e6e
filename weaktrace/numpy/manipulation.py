"""Array manipulation: atleast_*, axis moves, flips and rotations, roll, tile,
repeat, the split and stack families, block, resize, and the shape queries."""

from __future__ import annotations

import builtins
import itertools
import math
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core import primitives_lax as L
from weaktrace.dtypes.registry import by_name
from weaktrace.errors import ConcretizationError, ShapeError
from weaktrace.numpy._core import (
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
    static_args,
)
from weaktrace.numpy.math_arrays import slice_in_dim
from weaktrace.numpy.shapes import concatenate, reshape, transpose

_INT32 = by_name("int32")


def _index_tuple(v: Any) -> tuple[int, ...]:
    if isinstance(v, np.ndarray) and v.ndim == 1:  # a shape as an array: np.array([0, 1])
        v = v.tolist()
    items = v if isinstance(v, tuple | list) else (v,)
    return tuple(operator.index(a) for a in items)


# atleast_{n}d of an array of ndim d: the new axes
_NEW_AXES: dict[int, dict[int, tuple[int, ...]]] = {
    1: {0: (0,)},
    2: {0: (0, 1), 1: (0,)},
    3: {0: (0, 1, 2), 1: (0, 2), 2: (2,)},
}


def _atleast(n: int, arys: tuple[Any, ...]) -> Any:
    b = context(*arys)
    out = []
    for a in arys:
        x = operand(a, b)
        nd = x.aval.ndim
        if nd < n:
            x = emit(P.expand_dims_p, x, dimensions=_NEW_AXES[n][nd])
        out.append(x)
    return out[0] if len(out) == 1 else out


@export
def atleast_1d(*arys: Any) -> Any:
    """``jax.numpy.atleast_1d`` (one array, or a list for several)."""
    return _atleast(1, arys)


@export
def atleast_2d(*arys: Any) -> Any:
    """``jax.numpy.atleast_2d``: 0-d becomes (1, 1), 1-d gets a leading axis."""
    return _atleast(2, arys)


@export
def atleast_3d(*arys: Any) -> Any:
    """``jax.numpy.atleast_3d``: (n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)."""
    return _atleast(3, arys)


@export
def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """``jax.numpy.broadcast_shapes``: the broadcast of shapes (tuples of ints)."""
    if not shapes:
        return ()
    return result_shape("broadcast_shapes", [_index_tuple(s) for s in shapes])


@export
def broadcast_arrays(*args: Any) -> list[Any]:
    """``jax.numpy.broadcast_arrays``: every operand broadcast to their common shape."""
    b = context(*args)
    ops = operands(b, args)
    shape = result_shape("broadcast_arrays", [o.aval.shape for o in ops])
    return [broadcast_to(o, shape) for o in ops]


def _perm_move(nd: int, source: Any, destination: Any, fn: str) -> tuple[int, ...]:
    src = tuple(axis_arg(a, nd, fn) for a in index_tuple(source, fn))
    dst = tuple(axis_arg(a, nd, fn) for a in index_tuple(destination, fn))
    if len(src) != len(dst):
        raise ShapeError(f"Inconsistent number of elements: {len(src)} vs {len(dst)}")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ShapeError(f"{fn}: repeated axis in {source!r} or {destination!r}")
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        perm.insert(d, s)
    return tuple(perm)


def _permute(x: Tracer, perm: tuple[int, ...]) -> Tracer:
    return x if perm == tuple(range(len(perm))) else emit(P.transpose_p, x, permutation=perm)


@export
def moveaxis(a: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Any:
    """``jax.numpy.moveaxis``."""
    b = context(a)
    x = operand(a, b)
    return _permute(x, _perm_move(x.aval.ndim, source, destination, "moveaxis"))


@export
@static_args("axis1", "axis2")
def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    """``jax.numpy.swapaxes``."""
    b = context(a)
    x = operand(a, b)
    nd = x.aval.ndim
    perm = list(range(nd))
    i, j = axis_arg(axis1, nd, "swapaxes"), axis_arg(axis2, nd, "swapaxes")
    perm[i], perm[j] = perm[j], perm[i]
    return _permute(x, tuple(perm))


@export
def matrix_transpose(x: Any, /) -> Any:
    """``jax.numpy.matrix_transpose``: the last two axes swapped."""
    b = context(x)
    v = operand(x, b)
    nd = v.aval.ndim
    if nd < 2:
        raise ShapeError(f"x must be at least two-dimensional for matrix_transpose; got {nd=}")
    return emit(P.transpose_p, v, permutation=(*range(nd - 2), nd - 1, nd - 2))


@export
def permute_dims(a: Any, /, axes: tuple[int, ...]) -> Any:
    """``jax.numpy.permute_dims`` (the array API's transpose)."""
    return transpose(a, axes)


@export
@static_args("axis", "start")
def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """``jax.numpy.rollaxis``: `axis` moved to just before `start`."""
    b = context(a)
    x = operand(a, b)
    nd = x.aval.ndim
    ax = axis_arg(axis, nd, "rollaxis")
    start = operator.index(start)
    if not -nd <= start <= nd:
        raise ShapeError(f"{start=} must satisfy {-nd}<=start<={nd}")
    start = start + nd if start < 0 else start
    start = start - 1 if start > ax else start
    return _permute(x, _perm_move(nd, ax, start, "rollaxis"))


def _flip(x: Tracer, axes: tuple[int, ...]) -> Tracer:
    return emit(P.rev_p, x, dimensions=axes) if axes else x


@export
def flip(m: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``jax.numpy.flip`` (all axes by default)."""
    b = context(m)
    x = operand(m, b)
    nd = x.aval.ndim
    if axis is None:
        return emit(P.rev_p, x, dimensions=tuple(range(nd)))
    return emit(
        P.rev_p, x, dimensions=tuple(axis_arg(a, nd, "flip") for a in index_tuple(axis, "flip"))
    )


@export
def fliplr(m: Any) -> Any:
    """``jax.numpy.fliplr``: axis 1 reversed."""
    return flip(m, 1)


@export
def flipud(m: Any) -> Any:
    """``jax.numpy.flipud``: axis 0 reversed."""
    return flip(m, 0)


@export
@static_args("axes")
def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """``jax.numpy.rot90``: k quarter turns from axes[0] towards axes[1]."""
    b = context(m)
    x = operand(m, b)
    nd = x.aval.ndim
    if nd < 2:
        raise ShapeError(
            "rot90 requires its first argument to have ndim at least two, but got first "
            f"argument of shape {x.aval.shape}, which has ndim {nd}"
        )
    ax1, ax2 = (axis_arg(a, nd, "rot90") for a in axes)
    if ax1 == ax2:
        raise ShapeError("Axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return x
    if k == 2:
        return _flip(_flip(x, (ax1,)), (ax2,))
    perm = list(range(nd))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return emit(P.transpose_p, _flip(x, (ax2,)), permutation=tuple(perm))
    return _flip(emit(P.transpose_p, x, permutation=tuple(perm)), (ax2,))


@export
def roll(a: Any, shift: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``jax.numpy.roll``: static shifts slice and concatenate; a traced shift
    concatenates the axis with itself and takes a dynamic slice."""
    b = context(a, shift)
    x = operand(a, b)
    if axis is None:
        return reshape(roll(reshape(x, (-1,)), shift, 0), x.aval.shape)
    axes = tuple(axis_arg(ax, x.aval.ndim, "roll") for ax in index_tuple(axis, "roll"))
    try:
        shifts = _index_tuple(shift)
    except TypeError:
        return _roll_dynamic(b, x, operand(shift, b), axes)
    for ax, s in zip(*np.broadcast_arrays(np.asarray(axes), np.asarray(shifts)), strict=True):
        n = x.aval.shape[ax]
        if n == 0:
            continue
        i = int(-s) % n
        x = concatenate([slice_in_dim(x, i, n, int(ax)), slice_in_dim(x, 0, i, int(ax))], int(ax))
    return x


def _roll_dynamic(b: Any, x: Tracer, shift: Tracer, axes: tuple[int, ...]) -> Tracer:
    from weaktrace.numpy.ufuncs import remainder

    shape = result_shape("roll", [shift.aval.shape, np.shape(axes)])
    if len(shape) != 1:
        raise ShapeError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    # any numeric shift: jax converts it to int32 (floats truncate, as NumPy's roll)
    shifts = broadcast_to(shift, shape)
    for k, ax in enumerate(np.broadcast_to(np.asarray(axes), shape)):
        ax = int(ax)
        n = x.aval.shape[ax]
        s = emit(P.squeeze_p, slice_in_dim(shifts, k, k + 1, 0), dimensions=(0,))
        s = remainder(convert(b, s, _INT32, False), lit(b, builtins.max(n, 1), _INT32))
        start = emit(P.sub_p, lit(b, n, _INT32), s)
        both = concatenate([x, x], ax)
        starts = [lit(b, 0, _INT32)] * x.aval.ndim
        starts[ax] = start
        x = b.emit(P.dynamic_slice_p, (both, *starts), {"slice_sizes": x.aval.shape})
    return x


@export
def tile(A: Any, reps: Any) -> Any:
    """``jax.numpy.tile``."""
    b = context(A)
    x = operand(A, b)
    r = _index_tuple(reps)
    r = (1,) * (x.aval.ndim - len(r)) + r
    if len(r) > x.aval.ndim:
        x = emit(P.expand_dims_p, x, dimensions=tuple(range(len(r) - x.aval.ndim)))
    shape = x.aval.shape
    pairs = tuple(d for s in shape for d in (1, s))
    wide = tuple(d for rs in zip(r, shape, strict=True) for d in rs)
    y = broadcast_to(reshape(x, pairs), wide)
    return reshape(y, tuple(s * k for s, k in zip(shape, r, strict=True)))


def _abstract_jax_tracer(v: Any) -> bool:
    """A jax tracer with no concrete value (jax.jit's; jax.jvp's of a constant has one)."""
    return isinstance(v, jax.core.Tracer) and v.to_concrete_value() is None


def _split(op: str, ary: Any, indices_or_sections: Any, axis: int) -> list[Any]:
    b = context(ary)
    x = operand(ary, b)
    ax = axis_arg(axis, x.aval.ndim, op)
    size = x.aval.shape[ax]
    ios = indices_or_sections
    parts = ios if isinstance(ios, tuple | list) else [ios]
    if builtins.any(_abstract_jax_tracer(i) for i in parts):  # jax.jit of an eager call
        raise ConcretizationError(
            "Abstract tracer value encountered where concrete value is expected: "
            f"{op}'s indices_or_sections must be concrete (known while tracing)."
        )
    if isinstance(ios, jax.core.Tracer):  # concrete (jax.jvp of a constant): its value
        ios = ios.to_concrete_value()
    elif isinstance(ios, tuple | list):
        ios = [i.to_concrete_value() if isinstance(i, jax.core.Tracer) else i for i in ios]
    if isinstance(ios, tuple | list) or (np.ndim(ios) > 0 and ios.__class__ is not Tracer):
        bounds = [0, *(operator.index(i) for i in np.asarray(ios).tolist()), size]
        sizes = [hi - lo for lo, hi in itertools.pairwise(bounds)]
        if builtins.any(s < 0 for s in sizes):
            raise ShapeError(f"{op}: split indices {list(ios)} must be increasing and "
                             f"within the axis of size {size}")  # fmt: skip
    else:
        if ios.__class__ is Tracer and not ios.ctx.eager:
            raise ConcretizationError(f"{op}: the number of sections must be concrete")
        # int(), as jax reads the count: a float 2.0 is 2 sections
        n = int(np.asarray(ios.concrete() if ios.__class__ is Tracer else ios).item())
        if n <= 0:
            raise ShapeError(f"{op}: number of sections must be larger than 0")
        part, r = divmod(size, n)
        if r and op != "array_split":
            raise ShapeError(f"array split does not result in an equal division: rest is {r}")
        sizes = [part + 1] * r + [part] * (n - r)
    out, lo = [], 0
    for s in sizes:
        out.append(slice_in_dim(x, lo, lo + s, ax))
        lo += s
    return out


@export
def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """``jax.numpy.split``: equal sections, or split points."""
    return _split("split", ary, indices_or_sections, axis)


@export
def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """``jax.numpy.array_split``: like split, sections may differ by one."""
    return _split("array_split", ary, indices_or_sections, axis)


@export
def hsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """``jax.numpy.hsplit``: along axis 1 (axis 0 of a 1-d array)."""
    b = context(ary)
    x = operand(ary, b)
    return _split("hsplit", x, indices_or_sections, 0 if x.aval.ndim == 1 else 1)


@export
def vsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """``jax.numpy.vsplit``: along axis 0 of an array of at least 2 dimensions."""
    return _split("vsplit", ary, indices_or_sections, 0)


@export
def dsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """``jax.numpy.dsplit``: along axis 2 of an array of at least 3 dimensions."""
    return _split("dsplit", ary, indices_or_sections, 2)


@export
@static_args("axis")
def unstack(x: Any, /, *, axis: int = 0) -> tuple[Any, ...]:
    """``jax.numpy.unstack``: the slices along `axis`, as a tuple."""
    b = context(x)
    v = operand(x, b)
    if v.aval.ndim == 0:
        raise ShapeError("Unstack requires arrays with rank > 0, however a scalar array was given.")
    ax = axis_arg(axis, v.aval.ndim, "unstack")
    return tuple(
        emit(P.squeeze_p, slice_in_dim(v, i, i + 1, ax), dimensions=(ax,))
        for i in range(v.aval.shape[ax])
    )


def _items(b: Any, tup: Any) -> list[Tracer]:
    """A sequence of arrays, or an array read as the sequence of its rows."""
    if isinstance(tup, list | tuple):
        return operands(b, tup)
    x = operand(tup, b)
    if x.aval.ndim == 0:
        raise ShapeError("a stack needs a sequence of arrays, got a 0-d array")
    return list(unstack(x))


@export
def hstack(tup: Any, dtype: Any = None) -> Any:
    """``jax.numpy.hstack``."""
    b = context(*tup) if isinstance(tup, list | tuple) else context(tup)
    arrs = [atleast_1d(t) for t in _items(b, tup)]
    axis = 0 if not arrs or arrs[0].aval.ndim == 1 else 1  # none: concatenate refuses
    return concatenate(arrs, axis=axis, dtype=dtype)


@export
def vstack(tup: Any, dtype: Any = None) -> Any:
    """``jax.numpy.vstack``."""
    b = context(*tup) if isinstance(tup, list | tuple) else context(tup)
    return concatenate([atleast_2d(t) for t in _items(b, tup)], axis=0, dtype=dtype)


@export
def dstack(tup: Any, dtype: Any = None) -> Any:
    """``jax.numpy.dstack``."""
    b = context(*tup) if isinstance(tup, list | tuple) else context(tup)
    return concatenate([atleast_3d(t) for t in _items(b, tup)], axis=2, dtype=dtype)


@export
def column_stack(tup: Any) -> Any:
    """``jax.numpy.column_stack``: 1-d (and 0-d) operands become columns."""
    b = context(*tup) if isinstance(tup, list | tuple) else context(tup)
    arrs = [transpose(atleast_2d(t)) if t.aval.ndim < 2 else t for t in _items(b, tup)]
    return concatenate(arrs, axis=1)


@export
def concat(arrays: Sequence[Any], /, *, axis: int | None = 0) -> Any:
    """``jax.numpy.concat`` (the array API's concatenate)."""
    return concatenate(arrays, axis=axis)


@export
@static_args("axis")
def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """``jax.numpy.append``: flattened unless an axis is given."""
    b = context(arr, values)
    x, v = operand(arr, b), operand(values, b)
    if axis is None:
        return concatenate([reshape(x, (-1,)), reshape(v, (-1,))], 0)
    return concatenate([x, v], axis=axis)


def _block(b: Any, xs: Any) -> tuple[Tracer, int]:
    if isinstance(xs, tuple):
        raise ShapeError(f"jax.numpy.block does not allow tuples, got {xs}")
    if not isinstance(xs, list):
        return operand(xs, b), 1
    if not xs:
        raise ShapeError("jax.numpy.block does not allow empty list arguments")
    parts = [_block(b, x) for x in xs]
    depth = parts[0][1]
    if builtins.any(d != depth for _, d in parts[1:]):
        raise ShapeError("Mismatched list depths in jax.numpy.block")
    rank = builtins.max(depth, *(p.aval.ndim for p, _ in parts))
    arrs = [_at_least_rank(p, rank) for p, _ in parts]
    return concatenate(arrs, axis=-depth), depth + 1


def _at_least_rank(x: Tracer, rank: int) -> Tracer:
    k = rank - x.aval.ndim
    return x if k <= 0 else emit(P.expand_dims_p, x, dimensions=tuple(range(k)))


@export
def block(arrays: Any) -> Any:
    """``jax.numpy.block``: nested lists of blocks joined along the last axes."""
    b = context(*arrays) if isinstance(arrays, list | tuple) else context(arrays)
    return _block(b, arrays)[0]


@export
def resize(a: Any, new_shape: Any) -> Any:
    """``jax.numpy.resize``: the flattened array repeated (or cut) to fill new_shape."""
    b = context(a)
    x = reshape(operand(a, b), (-1,))
    shape = _index_tuple(new_shape)
    if builtins.any(d < 0 for d in shape):
        raise ShapeError("all elements of `new_shape` must be non-negative")
    n = math.prod(shape)
    if x.aval.size == 0 or n == 0:
        return broadcast_to(lit(b, 0, x.aval.dt, x.aval.weak_type), shape)
    x = tile(x, -(-n // x.aval.size))
    return reshape(slice_in_dim(x, 0, n, 0), shape)


def _shape_of(a: Any, fn: str) -> tuple[int, ...]:
    if a.__class__ is Tracer:
        return tuple(a.aval.shape)
    if isinstance(a, list | tuple):  # jax deprecates these (numpy takes them)
        warnings.warn(
            f"{fn} requires ndarray or scalar arguments, got {type(a)} at position 0. In a "
            "future JAX release this will be an error; convert with asarray first.",
            DeprecationWarning,
            stacklevel=3,
        )
    return tuple(np.shape(a))


@export
def ndim(a: Any) -> int:
    """``jax.numpy.ndim`` (a Python int)."""
    return len(_shape_of(a, "ndim"))


@export
def shape(a: Any) -> tuple[int, ...]:
    """``jax.numpy.shape`` (a tuple of Python ints)."""
    return _shape_of(a, "shape")


@export
def size(a: Any, axis: int | Sequence[int] | None = None) -> int:
    """``jax.numpy.size`` (a Python int): all elements, or those along `axis`."""
    s = _shape_of(a, "size")
    if axis is None:
        return math.prod(s)
    axes = [axis_arg(ax, len(s), "size") for ax in index_tuple(axis, "size")]
    if len(set(axes)) != len(axes):
        raise ShapeError(f"repeated axis: {axis}")
    return math.prod(s[ax] for ax in axes)


@export
def copy(a: Any, order: str | None = None) -> Any:
    """``jax.numpy.copy``: an array operand goes through jax's ``copy`` primitive (a new
    buffer: an identity would alias the input's under jax.jit)."""
    b = context(a)
    x = operand(a, b)
    if a.__class__ is Tracer or isinstance(a, jax.Array | jax.core.Tracer):
        return emit(L.copy_p, x)
    return x


@export
def iterable(y: Any) -> bool:
    """``jax.numpy.iterable`` (numpy's: does ``iter(y)`` work?)."""
    if y.__class__ is Tracer:
        return bool(y.aval.ndim)
    return bool(np.iterable(y))
