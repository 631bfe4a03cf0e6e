"""Shape manipulation: reshape, transpose, broadcasting, concatenation."""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any

from weaktrace.core.promotion import broadcast_to as _broadcast_to
from weaktrace.errors import InvalidInputError, ShapeError
from weaktrace.numpy._core import (
    Context,
    P,
    Tracer,
    axes_arg,
    axis_arg,
    context,
    convert,
    emit,
    export,
    index_tuple,
    operand,
    operands,
    promote,
    shape_dims,
)
from weaktrace.numpy._lax import moveaxis


@export
def reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None,
            copy: bool | None = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.reshape`` (one dimension may be -1)."""
    shape = newshape if shape is None else shape
    b = context(a)
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    if order not in ("C", "F"):
        raise InvalidInputError(f"Unexpected value for 'order' argument: {order}.")
    a = operand(a, b)
    dims = list(shape_dims(shape))
    if dims.count(-1) > 1:
        raise ShapeError(
            f"reshape: only one dimension can be -1, got {tuple(dims)}; give all but one size"
        )
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or a.aval.size % known:
            raise ShapeError(
                f"cannot reshape {a.aval.shape} into {tuple(dims)}: {a.aval.size} elements do "
                "not divide into that shape; pick sizes whose product matches"
            )
        dims[dims.index(-1)] = a.aval.size // known
    new = tuple(dims)
    if order == "F":  # column-major: reverse the axes, reshape in C order, reverse back
        rev = transpose(a, tuple(range(a.aval.ndim))[::-1])
        flat = emit(P.reshape_p, rev, new_sizes=new[::-1]) if new[::-1] != rev.aval.shape else rev
        return transpose(flat, tuple(range(len(new)))[::-1])
    return a if new == a.aval.shape else emit(P.reshape_p, a, new_sizes=new)


@export
def ravel(a: Any, order: str = "C", *, out_sharding: Any = None) -> Any:
    """``jax.numpy.ravel`` (order "C" or "F")."""
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    b = context(a)
    return reshape(operand(a, b), (-1,), order)


@export
def transpose(a: Any, axes: Sequence[int] | None = None) -> Any:
    """``jax.numpy.transpose``."""
    b = context(a)
    a = operand(a, b)
    nd = a.aval.ndim
    perm = (
        tuple(range(nd))[::-1]
        if axes is None
        else tuple(axis_arg(x, nd, "transpose") for x in axes)
    )
    if sorted(perm) != list(range(nd)):
        raise ShapeError(f"transpose: axes {axes} are not a permutation of {nd} dimensions")
    return a if perm == tuple(range(nd)) else emit(P.transpose_p, a, permutation=perm)


@export
def broadcast_to(array: Any, shape: Any) -> Any:
    """``jax.numpy.broadcast_to``."""
    b = context(array)
    shape = tuple(
        operator.index(d) for d in (shape if isinstance(shape, tuple | list) else (shape,))
    )
    return _broadcast_to(operand(array, b), shape)


@export
def expand_dims(a: Any, axis: int | Sequence[int]) -> Any:
    """``jax.numpy.expand_dims``."""
    b = context(a)
    a = operand(a, b)
    items = index_tuple(axis, "expand_dims")
    nd = a.aval.ndim + len(items)
    dims = tuple(sorted(axis_arg(x, nd, "expand_dims") for x in items))
    if len(set(dims)) != len(dims):
        raise ShapeError(f"expand_dims: repeated axis in {axis!r}; name each new axis once")
    return emit(P.expand_dims_p, a, dimensions=dims)


@export
def squeeze(a: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``jax.numpy.squeeze``."""
    b = context(a)
    a = operand(a, b)
    shape = a.aval.shape
    if axis is None:
        dims = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        dims = tuple(sorted(axes_arg(axis, len(shape), "squeeze")))
        bad = [d for d in dims if shape[d] != 1]
        if bad:
            raise ShapeError(f"squeeze: cannot select an axis to squeeze out which has size "
                             f"not equal to one (axis {bad[0]} of shape {shape})")  # fmt: skip
    return a if not dims else emit(P.squeeze_p, a, dimensions=dims)


@export
def concatenate(arrays: Sequence[Any], axis: int | None = 0, dtype: Any = None) -> Any:
    """``jax.numpy.concatenate`` (operands are promoted together)."""
    b = context(*arrays) if isinstance(arrays, list | tuple) else context(arrays)
    if not isinstance(arrays, list | tuple):  # one array: its slices along axis 0
        return _concatenate_array(b, arrays, axis, dtype)
    if not arrays:
        raise InvalidInputError(
            "Need at least one array to concatenate. Got an empty sequence: pass one or more "
            "arrays."
        )
    ops = operands(b, arrays)
    # Promoted before axis=None flattens them: a Python int constant then meets its
    # dtype as the constant it is (2**64 next to a float array), as numpy converts it.
    if dtype is not None:
        dt = b.policy.user_dtype(dtype)
        ops = [convert(b, o, dt, False) for o in ops]
    else:
        ops = promote(b, "concatenate", ops)
    if axis is None:
        ops = [reshape(o, (-1,)) for o in ops]
        axis = 0
    if builtins.any(o.aval.ndim == 0 for o in ops):
        raise ShapeError("Zero-dimensional arrays cannot be concatenated.")
    ax = axis_arg(axis, ops[0].aval.ndim, "concatenate")
    if len(ops) == 1:
        return ops[0]
    return b.emit(P.concatenate_p, tuple(ops), {"dimension": ax})


def _unstackable(b: Context, arrays: Any, fn: str) -> Tracer:
    """An array passed where a sequence of arrays goes: its slices along axis 0 are the
    sequence (numpy and jax iterate it)."""
    if arrays.__class__ is not Tracer and not hasattr(arrays, "shape"):
        raise InvalidInputError(
            f"{fn} needs a sequence of arrays (a list, a tuple or one array whose slices "
            f"along axis 0 are the arrays), got {type(arrays).__name__}"
        )
    x = operand(arrays, b)
    if x.aval.ndim == 0 or x.aval.shape[0] == 0:
        raise InvalidInputError(
            f"Need at least one array to {fn}. Got an array with no slices along axis 0."
        )
    return x


def _concatenate_array(b: Context, arrays: Any, axis: int | None, dtype: Any) -> Tracer:
    """concatenate(x) of one array x: its slices joined, without splitting it (jax's
    _concatenate_array): axis 0 moves next to `axis`, and the two merge."""
    x = _unstackable(b, arrays, "concatenate")
    if dtype is not None:
        x = convert(b, x, b.policy.user_dtype(dtype), False)
    shape = x.aval.shape
    if axis is None:
        return reshape(x, (-1,))
    if len(shape) == 1:
        raise ShapeError("Zero-dimensional arrays cannot be concatenated.")
    ax = axis_arg(axis, len(shape) - 1, "concatenate")
    x = moveaxis(x, 0, ax)
    rest = shape[1:]
    return reshape(x, (*rest[:ax], shape[0] * rest[ax], *rest[ax + 1 :]))


@export
def stack(arrays: Sequence[Any], axis: int = 0, out: None = None, dtype: Any = None) -> Any:
    """``jax.numpy.stack`` (numpy's signature: ``out`` is accepted, and must be None)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    b = context(*arrays) if isinstance(arrays, list | tuple) else context(arrays)
    if not isinstance(arrays, list | tuple):  # one array: its slices along axis 0
        x = _unstackable(b, arrays, "stack")
        ax = axis_arg(axis, x.aval.ndim, "stack")
        x = moveaxis(x, 0, ax)
        return x if dtype is None else convert(b, x, b.policy.user_dtype(dtype), False)
    if not arrays:
        raise InvalidInputError(
            "Need at least one array to stack. Got an empty sequence: pass one or more arrays."
        )
    ops = operands(b, arrays)
    shapes = {o.aval.shape for o in ops}
    if len(shapes) != 1:
        raise ShapeError(f"stack: all input arrays must have the same shape, got {sorted(shapes)}")
    ax = axis_arg(axis, ops[0].aval.ndim + 1, "stack")
    return concatenate([expand_dims(o, ax) for o in ops], axis=ax, dtype=dtype)
