"""Contractions: matmul, dot, vdot, vecdot, matvec, vecmat, tensordot, inner, outer,
kron, trace and cross.

The dot family contracts with one ``dot_general`` whose output dtype is jax.numpy's:
``result_type(a, b)`` (weak when both operands are), or the requested
``preferred_element_type`` (strong), then converted to it as jax does.
``precision=`` is handed to jax's dot_general when the program lowers (a parameter of the
equation, printed only when given); ``out_sharding`` must be None.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

from weaktrace.core.promotion import check_loop_ranks
from weaktrace.errors import InvalidInputError, ShapeError
from weaktrace.numpy._core import (
    INT32,
    Context,
    DType,
    P,
    Tracer,
    axis_arg,
    broadcast_to,
    const_like,
    context,
    convert,
    emit,
    export,
    full_like_value,
    kind,
    lit,
    operand,
    operands,
    promote,
    result_shape,
    static_args,
)
from weaktrace.numpy._lax import iota
from weaktrace.numpy.reductions import sum as _sum
from weaktrace.numpy.shapes import concatenate, reshape, transpose
from weaktrace.numpy.ufuncs import add as U_add
from weaktrace.numpy.ufuncs import conjugate, multiply, subtract, where

Dims = tuple[tuple[int, ...], tuple[int, ...]]


def _out_type(b: Context, x: Tracer, y: Tracer, preferred: Any, name: str) -> tuple[DType, bool]:
    """(dtype, weak) of a contraction: result_type(x, y), or the user's preferred dtype."""
    if preferred is None:
        return b.policy.result([x.aval, y.aval])
    return b.policy.user_dtype(preferred), False


def _no_sharding(name: str, out_sharding: Any) -> None:
    if out_sharding is not None:
        raise NotImplementedError(f"{name}: out_sharding is not supported by weaktrace")


def jnp_precision(precision: Any) -> Any:
    """jax.numpy's `precision`: a static (hashable) argument of its jitted functions, so a
    list is refused there, with jax's ValueError, where jax.lax takes it."""
    if isinstance(precision, list):
        raise InvalidInputError(
            "Non-hashable static arguments are not supported: precision="
            f"{precision!r} is a list; pass a tuple, e.g. precision={tuple(precision)!r}."
        )
    return precision


def _contract(
    b: Context,
    x: Tracer,
    y: Tracer,
    dn: tuple[Dims, Dims],
    out: tuple[DType, bool],
    precision: Any = None,
) -> Any:
    r = emit(P.dot_general_p, x, y, dimension_numbers=dn, preferred_element_type=out[0],
             **P.precision_param(jnp_precision(precision)))  # fmt: skip
    return convert(b, r, out[0], out[1])


def _batched(
    b: Context, x: Tracer, y: Tracer, xcore: int, ycore: int, name: str
) -> tuple[Tracer, Tracer, int]:
    """Broadcast the leading (batch) dimensions of x and y against each other (as
    jnp.vectorize does), keeping `xcore` / `ycore` trailing core dimensions."""
    for v, core in ((x, xcore), (y, ycore)):
        if v.aval.ndim < core:
            raise ShapeError(f"{name}: an operand of shape {v.aval.shape} has fewer than "
                             f"{core} core dimensions")  # fmt: skip
    xs, ys = x.aval.shape, y.aval.shape
    batch = result_shape(name, [xs[: len(xs) - xcore], ys[: len(ys) - ycore]])
    x = broadcast_to(x, batch + xs[len(xs) - xcore :])
    y = broadcast_to(y, batch + ys[len(ys) - ycore :])
    return x, y, len(batch)


@export
def matmul(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None,
           out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.matmul``: batch dimensions broadcast, 1-d operands promoted to
    matrices and their unit dimension dropped."""
    ctx = context(a, b)
    _no_sharding("matmul", out_sharding)
    x, y = operands(ctx, (a, b))
    for i, v in enumerate((x, y)):
        if v.aval.ndim == 0:
            raise ShapeError(f"matmul input operand {i} must have ndim at least 1, but it has "
                             "ndim 0; use multiply for scalars")  # fmt: skip
    out = _out_type(ctx, x, y, preferred_element_type, "matmul")
    x_vec, y_vec = x.aval.ndim == 1, y.aval.ndim == 1
    if x_vec:
        x = emit(P.expand_dims_p, x, dimensions=(0,))
    if y_vec:
        y = emit(P.expand_dims_p, y, dimensions=(1,))
    if x.aval.shape[-1] != y.aval.shape[-2]:
        raise ShapeError(
            f"matmul: contracting dimensions differ: {x.aval.shape[-1]} and {y.aval.shape[-2]} "
            f"(shapes {x.aval.shape} and {y.aval.shape})"
        )
    x, y, nb = _batched(ctx, x, y, 2, 2, "matmul")
    batch = tuple(range(nb))
    r = _contract(ctx, x, y, (((nb + 1,), (nb,)), (batch, batch)), out, precision)
    squeeze_dims = ((nb,) if x_vec else ()) + ((r.aval.ndim - 1,) if y_vec else ())
    return emit(P.squeeze_p, r, dimensions=squeeze_dims) if squeeze_dims else r


@export
def dot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None,
        out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.dot``: a's last axis against b's second-to-last (or only) axis; with a
    scalar operand it is a product."""
    ctx = context(a, b)
    _no_sharding("dot", out_sharding)
    x, y = operands(ctx, (a, b))
    out = _out_type(ctx, x, y, preferred_element_type, "dot")
    if x.aval.ndim == 0 or y.aval.ndim == 0:
        contract: Dims = ((), ())
    else:
        yc = 0 if y.aval.ndim == 1 else y.aval.ndim - 2
        if x.aval.shape[-1] != y.aval.shape[yc]:
            raise ShapeError(f"dot: shapes {x.aval.shape} and {y.aval.shape} are not aligned")
        contract = ((x.aval.ndim - 1,), (yc,))
    return _contract(ctx, x, y, (contract, ((), ())), out, precision)


@export
def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """``jax.numpy.vdot``: dot of the flattened operands, the first conjugated."""
    ctx = context(a, b)
    x, y = operands(ctx, (a, b))
    x = conjugate(x) if kind(x) == "c" else x
    return dot(reshape(x, (-1,)), reshape(y, (-1,)), precision=precision,
               preferred_element_type=preferred_element_type)  # fmt: skip


def _last(x: Tracer, axis: int) -> Tracer:
    """moveaxis(x, axis, -1)."""
    nd = x.aval.ndim
    ax = axis_arg(axis, nd, "moveaxis")
    perm = (*tuple(i for i in range(nd) if i != ax), ax)
    return transpose(x, perm)


@export
def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.vecdot``: vdot along `axis`, batch dimensions broadcast."""
    b = context(x1, x2)
    x, y = operands(b, (x1, x2))
    if x.aval.ndim == 0 or y.aval.ndim == 0:
        raise ShapeError("vecdot: operands must be at least 1-dimensional")
    nx, ny = x.aval.shape[axis_arg(axis, x.aval.ndim, "vecdot")], y.aval.shape[
        axis_arg(axis, y.aval.ndim, "vecdot")]  # fmt: skip
    if nx != ny:
        raise ShapeError(f"axes must match; got shapes {x.aval.shape} and {y.aval.shape} "
                         f"with axis={axis}")  # fmt: skip
    x, y = _last(x, axis), _last(y, axis)
    check_loop_ranks("(n),(n)->()", [x.aval.shape, y.aval.shape], [1, 1])
    x = conjugate(x) if kind(x) == "c" else x
    out = _out_type(b, x, y, preferred_element_type, "vecdot")
    x, y, nb = _batched(b, x, y, 1, 1, "vecdot")
    batch = tuple(range(nb))
    return _contract(b, x, y, (((nb,), (nb,)), (batch, batch)), out, precision)


def _matvec(b: Context, m: Tracer, v: Tracer, vec_first: bool, name: str) -> Any:
    out = _out_type(b, m, v, None, name) if not vec_first else _out_type(b, v, m, None, name)
    if vec_first:
        check_loop_ranks("(n),(n,m)->(m)", [v.aval.shape, m.aval.shape], [1, 2])
    else:
        check_loop_ranks("(n,m),(m)->(n)", [m.aval.shape, v.aval.shape], [2, 1])
    m, v, nb = _batched(b, m, v, 2, 1, name)
    k = m.aval.shape[-1] if not vec_first else m.aval.shape[-2]
    if v.aval.shape[-1] != k:
        raise ShapeError(f"{name}: core dimensions of {m.aval.shape} and {v.aval.shape} differ")
    batch = tuple(range(nb))
    if vec_first:  # (n),(n,m)->(m)
        return _contract(b, v, m, (((nb,), (nb,)), (batch, batch)), out)
    return _contract(b, m, v, (((nb + 1,), (nb,)), (batch, batch)), out)


@export
def matvec(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.matvec``: (..., n, m) @ (..., m) -> (..., n)."""
    b = context(x1, x2)
    m, v = operands(b, (x1, x2))
    return _matvec(b, m, v, False, "matvec")


@export
def vecmat(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.vecmat``: conj(..., n) @ (..., n, m) -> (..., m)."""
    b = context(x1, x2)
    v, m = operands(b, (x1, x2))
    return _matvec(b, m, conjugate(v) if kind(v) == "c" else v, True, "vecmat")


def _axis(a: Any, nd: int) -> int:
    if not -nd <= a < nd:
        raise ShapeError(f"tensordot: axis {a} is out of bounds for array of dimension {nd}")
    return a % nd


@export
def tensordot(a: Any, b: Any, axes: Any = 2, *, precision: Any = None,
              preferred_element_type: Any = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.tensordot``: `axes` an int (the last axes of a against the first of
    b), a pair of ints, or a pair of sequences."""
    ctx = context(a, b)
    _no_sharding("tensordot", out_sharding)
    x, y = operands(ctx, (a, b))
    xn, yn = x.aval.ndim, y.aval.ndim
    out = _out_type(ctx, x, y, preferred_element_type, "tensordot")
    if type(axes) is int:
        if axes > builtins.min(xn, yn):
            raise InvalidInputError(f"Number of tensordot axes (axes {axes}) exceeds input "
                                    f"ranks ({x.aval.shape} and {y.aval.shape})")  # fmt: skip
        dims: Dims = tuple(range(xn - axes, xn)), tuple(range(axes))
    elif isinstance(axes, tuple | list) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int) and isinstance(ax2, int):
            dims = (_axis(ax1, xn),), (_axis(ax2, yn),)
        elif isinstance(ax1, tuple | list) and isinstance(ax2, tuple | list):
            if len(ax1) != len(ax2):
                raise InvalidInputError(f"tensordot requires axes lists to have equal length, "
                                        f"got {ax1} and {ax2}.")  # fmt: skip
            dims = tuple(_axis(i, xn) for i in ax1), tuple(_axis(i, yn) for i in ax2)
        else:
            raise InvalidInputError("tensordot requires both axes lists to be either ints, "
                                    f"tuples or lists, got {ax1} and {ax2}")  # fmt: skip
    else:
        raise InvalidInputError("tensordot axes argument must be an int, a pair of ints, or "
                                "a pair of lists/tuples of ints.")  # fmt: skip
    if [x.aval.shape[i] for i in dims[0]] != [y.aval.shape[i] for i in dims[1]]:
        raise ShapeError(f"tensordot: contracting dimensions of {x.aval.shape} and "
                         f"{y.aval.shape} along {dims} differ")  # fmt: skip
    if isinstance(precision, list):  # jnp.tensordot is not jitted: jax takes a list here
        precision = tuple(precision)
    return _contract(ctx, x, y, (dims, ((), ())), out, precision)


@export
def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """``jax.numpy.inner``: contraction over the last axes (a product for scalars)."""
    ctx = context(a, b)
    x, y = operands(ctx, (a, b))
    if x.aval.ndim == 0 or y.aval.ndim == 0:
        if preferred_element_type is not None:
            dt = ctx.policy.user_dtype(preferred_element_type)
            x, y = convert(ctx, x, dt, False), convert(ctx, y, dt, False)
        return multiply(x, y)
    return tensordot(x, y, (-1, -1), precision=jnp_precision(precision),
                     preferred_element_type=preferred_element_type)  # fmt: skip


@export
def outer(a: Any, b: Any, out: None = None) -> Any:
    """``jax.numpy.outer``: a.ravel()[:, None] * b.ravel()[None, :] in the promoted dtype."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to outer is not supported.")
    ctx = context(a, b)
    x, y = promote(ctx, "outer", operands(ctx, (a, b)))
    x = emit(P.expand_dims_p, reshape(x, (-1,)), dimensions=(1,))
    y = emit(P.expand_dims_p, reshape(y, (-1,)), dimensions=(0,))
    return multiply(x, y)


@export
def kron(a: Any, b: Any) -> Any:
    """``jax.numpy.kron``: the Kronecker product, in the promoted dtype."""
    ctx = context(a, b)
    x, y = promote(ctx, "kron", operands(ctx, (a, b)))
    nd = builtins.max(x.aval.ndim, y.aval.ndim)
    x = (
        emit(P.expand_dims_p, x, dimensions=tuple(range(nd - x.aval.ndim)))
        if x.aval.ndim < nd
        else x
    )
    y = (
        emit(P.expand_dims_p, y, dimensions=tuple(range(nd - y.aval.ndim)))
        if y.aval.ndim < nd
        else y
    )
    out_shape = tuple(p * q for p, q in zip(x.aval.shape, y.aval.shape, strict=True))
    xr = emit(P.expand_dims_p, x, dimensions=tuple(range(1, 2 * nd, 2)))
    yr = emit(P.expand_dims_p, y, dimensions=tuple(range(0, 2 * nd, 2)))
    return reshape(emit(P.mul_p, xr, yr), out_shape)


def _eye_mask(b: Context, n: int, m: int, offset: Any, batch: tuple[int, ...]) -> Tracer:
    """``eye(n, m, k=offset, dtype=bool)`` broadcast over leading `batch` dimensions."""
    shape = (*batch, n, m)
    rows = iota(b, INT32, shape, len(batch))
    cols = iota(b, INT32, shape, len(batch) + 1)
    if offset.__class__ is Tracer:  # a traced offset: iota in its integer dtype
        if offset.aval.ndim or kind(offset) not in "iu":
            raise InvalidInputError(f"k must be a scalar integer; got {offset.aval}")
        rows, cols = (convert(b, v, offset.aval[1], False) for v in (rows, cols))
        k = offset
    else:
        k = lit(b, operator.index(offset), INT32)
    return emit(P.eq_p, U_add(rows, k), cols)


@export
@static_args("axis1", "axis2")
def trace(a: Any, offset: Any = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: None = None) -> Any:  # fmt: skip
    """``jax.numpy.trace``: the sum of a diagonal (of axes axis1, axis2), with sum's dtype."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to trace is not supported.")
    b = context(a, offset)
    x = operand(a, b)
    nd = x.aval.ndim
    if nd < 2:
        raise ShapeError(f"trace: the array must be at least 2-d, got shape {x.aval.shape}")
    i, j = axis_arg(axis1, nd, "trace"), axis_arg(axis2, nd, "trace")
    if i == j:
        raise ShapeError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    rest = tuple(d for d in range(nd) if d not in (i, j))
    x = transpose(x, (*rest, i, j))
    n, m = x.aval.shape[-2:]
    mask = _eye_mask(b, n, m, offset if offset.__class__ is not Tracer else operand(offset, b),
                     ())  # fmt: skip
    x = where(mask, x, full_like_value(x, 0))
    return _sum(x, axis=(-2, -1), dtype=dtype)


def _moveaxis_first(x: Tracer, dest: int) -> Tracer:
    """moveaxis(x, 0, dest)."""
    nd = x.aval.ndim
    d = axis_arg(dest, nd, "cross")
    perm = list(range(1, nd))
    perm.insert(d, 0)
    return transpose(x, tuple(perm))


@export
@static_args("axisa", "axisb", "axisc", "axis")
def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Any:  # fmt: skip
    """``jax.numpy.cross``: the cross product of 2- or 3-vectors along the given axes."""
    ctx = context(a, b)
    x, y = operands(ctx, (a, b))
    if axis is not None:
        axisa = axisb = axisc = axis
    if x.aval.ndim == 0 or y.aval.ndim == 0:
        raise ShapeError("cross: operands must be at least 1-dimensional")
    x, y = _last(x, axisa), _last(y, axisb)
    if x.aval.shape[-1] not in (2, 3) or y.aval.shape[-1] not in (2, 3):
        raise ShapeError("Dimension must be either 2 or 3 for cross product")

    def comp(v: Tracer, i: int) -> Tracer:
        return emit(P.squeeze_p, _take_last(v, i), dimensions=(v.aval.ndim - 1,))

    if x.aval.shape[-1] == 2 and y.aval.shape[-1] == 2:
        return subtract(multiply(comp(x, 0), comp(y, 1)), multiply(comp(x, 1), comp(y, 0)))
    a0, a1, b0, b1 = comp(x, 0), comp(x, 1), comp(y, 0), comp(y, 1)
    a2 = comp(x, 2) if x.aval.shape[-1] == 3 else broadcast_to(const_like(a0, 0), a0.aval.shape)
    b2 = comp(y, 2) if y.aval.shape[-1] == 3 else broadcast_to(const_like(b0, 0), b0.aval.shape)
    parts = [subtract(multiply(a1, b2), multiply(a2, b1)),
             subtract(multiply(a2, b0), multiply(a0, b2)),
             subtract(multiply(a0, b1), multiply(a1, b0))]  # fmt: skip
    shape = result_shape("cross", [p.aval.shape for p in parts])
    parts = promote(ctx, "cross", [broadcast_to(p, shape) for p in parts])
    stacked = concatenate([emit(P.expand_dims_p, p, dimensions=(0,)) for p in parts], axis=0)
    c = convert(ctx, stacked, stacked.aval[1], False)  # jnp.array of a list is strong
    return _moveaxis_first(c, axisc)


def _take_last(v: Tracer, i: int) -> Tracer:
    shape = v.aval.shape
    start = (0,) * (len(shape) - 1) + (i,)
    limit = (*shape[:-1], i + 1)
    return emit(P.slice_p, v, start_indices=start, limit_indices=limit, strides=None)
