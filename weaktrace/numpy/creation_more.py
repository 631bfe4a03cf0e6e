"""More array creation: empty, eye, identity, tri, linspace, logspace, geomspace,
meshgrid, indices, fromfunction, diag, diagflat, diagonal, vander, ix_ and the
index-pair helpers (diag_indices, tril_indices, triu_indices, mask_indices)."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from weaktrace.core.mirror import keeps_commitment
from weaktrace.core.promotion import check_ranks
from weaktrace.errors import ConcretizationError, OperandTypeError, ShapeError
from weaktrace.numpy import indexed_update as U
from weaktrace.numpy._core import (
    BOOL,
    EXPORTS,
    Context,
    DType,
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
    shape_arg,
    shape_dims,
    static_args,
)
from weaktrace.numpy._lax import iota, select
from weaktrace.numpy._lax import tri as _tri
from weaktrace.numpy.creation import forgot_shape_tuple, key_like, like_dtype
from weaktrace.numpy.shapes import concatenate, expand_dims, reshape, stack


def _zeros(b: Context, shape: tuple[int, ...], dt: DType, weak: bool = False) -> Tracer:
    return broadcast_to(lit(b, 0, dt, weak), shape)


@export
def empty(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """``jax.numpy.empty``: zeros, as in jax."""
    forgot_shape_tuple("empty", shape, dtype)
    b = context()
    dt = b.policy.defaults["f"] if dtype is None else b.policy.user_dtype(dtype)
    if dt.kind == "K":  # a key dtype: key arrays of zero data, as jnp.zeros makes
        return key_like(b, lit(b, 0, b.policy.user_dtype("uint32")), dt, shape_arg(shape))
    return _zeros(b, shape_arg(shape), dt)


@export
def empty_like(prototype: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Any:
    """``jax.numpy.empty_like``: zeros_like, as in jax."""
    b = context(prototype)
    x = operand(prototype, b)
    dt = x.aval.dt if dtype is None else like_dtype(b, "empty_like", dtype)
    target = x.aval.shape if shape is None else shape_arg(shape)
    if dt.kind == "K":
        return key_like(b, lit(b, 0, b.policy.user_dtype("uint32")), dt, target)
    return _zeros(b, target, dt, dtype is None and x.aval.weak_type)


empty_like = keeps_commitment(EXPORTS, "empty_like", "device")  # noqa: F811


@export
def eye(N: Any, M: Any = None, k: Any = 0, dtype: Any = None, *, device: Any = None) -> Any:
    """``jax.numpy.eye``: ones on the k-th diagonal (k may be traced)."""
    b = context(k)
    dt = b.policy.user_dtype(float if dtype is None else dtype)
    if isinstance(k, int) and not isinstance(k, bool):
        k = int(np.clip(k, np.iinfo(np.int32).min, np.iinfo(np.int32).max))
    off = operand(k, b)
    if off.aval.shape != () or off.aval.dtype.kind not in "iu":
        raise ShapeError(f"k must be a scalar integer; got {k}")
    (n,) = shape_dims((N,), (N, M))
    (m,) = (n,) if M is None else shape_dims((M,), (N, M))
    if n < 0 or m < 0:
        raise ShapeError(f"negative dimensions are not allowed, got {N} and {M}")
    i = iota(b, off.aval.dt, (n, m), 0)
    j = iota(b, off.aval.dt, (n, m), 1)
    off = convert(b, off, off.aval.dt, False)
    hit = emit(P.eq_p, emit(P.add_p, i, broadcast_to(off, (n, m))), j)
    return convert(b, hit, dt, False)


@export
def identity(n: Any, dtype: Any = None) -> Any:
    """``jax.numpy.identity``: eye(n)."""
    return eye(n, dtype=dtype)


@export
def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """``jax.numpy.tri``: ones on and below the k-th diagonal (float32 by default)."""
    b = context()
    dt = b.policy.user_dtype(np.float32 if dtype is None else dtype)
    (n,) = shape_dims((N,), (N, M))
    (m,) = (n,) if M is None else shape_dims((M,), (N, M))
    return convert(b, _tri(b, n, m, k), dt, False)


def _inexact_dtypes(b: Context, ops: list[Tracer], dtype: Any) -> tuple[DType, DType]:
    dt = (
        b.policy.to_target(b.policy.result([o.aval for o in ops])[0], "inexact")
        if dtype is None
        else b.policy.user_dtype(dtype)
    )
    return dt, b.policy.to_target(dt, "inexact")


def _real(dt: DType) -> DType:
    from weaktrace.dtypes.registry import by_name

    return by_name({"complex64": "float32", "complex128": "float64"}.get(dt.name, dt.name))


@export
def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0, *, device: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.linspace``: ``start * (1 - t) + stop * t`` in the inexact dtype."""
    num = operator.index(num)
    if num < 0:
        raise ShapeError(f"Number of samples, {num}, must be non-negative.")
    b = context(start, stop)
    s, t = operands(b, (start, stop))
    dt, comp = _inexact_dtypes(b, [s, t], dtype)
    s, t = convert(b, s, comp, False), convert(b, t, comp, False)
    if num > 1 or (num == 1 and not endpoint):  # jax's stop - start: its rank check
        check_ranks("subtract", [t.aval.shape, s.aval.shape])
    bounds = list(result_shape("linspace", [s.aval.shape, t.aval.shape]))
    sb, tb = broadcast_to(s, tuple(bounds)), broadcast_to(t, tuple(bounds))
    axis = operator.index(axis)
    axis = len(bounds) + axis + 1 if axis < 0 else axis
    bshape = list(bounds)
    bshape.insert(axis, 1)
    div = num - 1 if endpoint else num
    if num > 1:
        delta = emit(P.div_p, emit(P.sub_p, tb, sb), lit(b, div, comp))
        real = _real(comp)
        ishape = [1] * len(bshape)
        ishape[axis] = div
        step = emit(P.div_p, reshape(iota(b, real, (div,), 0), tuple(ishape)), lit(b, div, real))
        step = convert(b, step, comp, False)
        wide = tuple(ishape[i] if i == axis else bshape[i] for i in range(len(bshape)))
        step = broadcast_to(step, wide)
        lo = broadcast_to(reshape(sb, tuple(bshape)), wide)
        hi = broadcast_to(reshape(tb, tuple(bshape)), wide)
        one = broadcast_to(lit(b, 1, comp), wide)
        out = emit(P.add_p, emit(P.mul_p, lo, emit(P.sub_p, one, step)), emit(P.mul_p, hi, step))
        if endpoint:
            out = concatenate([out, expand_dims(tb, axis)], axis)
    elif num == 1:
        delta = lit(b, np.nan, comp) if endpoint else emit(P.sub_p, tb, sb)
        out = reshape(sb, tuple(bshape))
    else:
        delta = lit(b, np.nan, comp)
        shape = list(bounds)
        shape.insert(axis, 0)
        out = _zeros(b, tuple(shape), dt)
    if dt.kind in "iu" and out.aval.dtype.kind not in "iu":
        out = emit(P.floor_p, out)
    result = convert(b, out, dt, False)
    return (result, delta) if retstep else result


@export
def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Any:  # fmt: skip
    """``jax.numpy.logspace``: base ** linspace(start, stop)."""
    from weaktrace.numpy.ufuncs import power

    b = context(start, stop, base)
    s, t = operands(b, (start, stop))
    dt, comp = _inexact_dtypes(b, [s, t], dtype)
    s, t = convert(b, s, comp, False), convert(b, t, comp, False)
    lin = linspace(s, t, num, endpoint=endpoint, axis=axis)
    return convert(b, operand(power(base, lin), b), dt, False)


@export
def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Any:  # fmt: skip
    """``jax.numpy.geomspace``: sign(start) * logspace of the magnitudes."""
    from weaktrace.numpy.ufuncs import divide, log10, multiply, sign

    b = context(start, stop)
    s, t = operands(b, (start, stop))
    dt, comp = _inexact_dtypes(b, [s, t], dtype)
    s, t = convert(b, s, comp, False), convert(b, t, comp, False)
    sg = sign(s)
    lin = logspace(log10(divide(s, sg)), log10(divide(t, sg)), num, endpoint=endpoint,
                   base=10.0, dtype=comp, axis=0)  # fmt: skip
    res = multiply(sg, lin)
    ax = axis_arg(axis, res.aval.ndim, "geomspace")
    if ax:
        perm = (*range(1, ax + 1), 0, *range(ax + 1, res.aval.ndim))
        res = emit(P.transpose_p, res, permutation=perm)
    return convert(b, res, dt, False)


@export
def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list[Any]:
    """``jax.numpy.meshgrid``: 1-d coordinate vectors broadcast to a grid."""
    b = context(*xi)
    args = operands(b, xi)
    if not copy:
        raise ShapeError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ShapeError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if builtins.any(a.aval.ndim != 1 for a in args):
        raise ShapeError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[a.aval.shape for a in args]}")  # fmt: skip
    swap = indexing == "xy" and len(args) >= 2
    if swap:
        args[0], args[1] = args[1], args[0]
    shape = [1 if sparse else a.aval.shape[0] for a in args]
    out = []
    for i, a in enumerate(args):
        s = [*shape[:i], a.aval.shape[0], *shape[i + 1 :]] if sparse else shape
        out.append(emit(P.broadcast_in_dim_p, a, shape=tuple(s), broadcast_dimensions=(i,)))
    if swap:
        out[0], out[1] = out[1], out[0]
    return out


@export
def indices(dimensions: Any, dtype: Any = None, sparse: bool = False) -> Any:
    """``jax.numpy.indices``: the index grid of a shape (default int dtype)."""
    b = context()
    dt = b.policy.user_dtype(int if dtype is None else dtype)
    dims = tuple(operator.index(d) for d in dimensions)
    n = len(dims)
    out = []
    for i, d in enumerate(dims):
        s = (*(1,) * i, d, *(1,) * (n - i - 1)) if sparse else dims
        out.append(emit(P.broadcast_in_dim_p, iota(b, dt, (d,), 0), shape=s,
                        broadcast_dimensions=(i,)))  # fmt: skip
    if sparse:
        return tuple(out)
    return stack(out, 0) if out else _zeros(b, (0,), dt)


@export
def fromfunction(function: Callable[..., Any], shape: Any, *, dtype: Any = float,
                 **kwargs: Any) -> Any:  # fmt: skip
    """``jax.numpy.fromfunction``: `function` called once on the index grids (jax
    vmaps it; for elementwise functions the result is the same)."""
    b = context()
    dims = shape_arg(shape)
    dt = b.policy.user_dtype(dtype)
    grids = [
        emit(P.broadcast_in_dim_p, iota(b, dt, (d,), 0), shape=dims, broadcast_dimensions=(i,))
        for i, d in enumerate(dims)
    ]
    out = function(*grids, **kwargs)
    if out.__class__ is Tracer and out.aval.shape != dims:
        out = broadcast_to(out, dims)
    return out


@export
@static_args("axis1", "axis2")
def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """``jax.numpy.diagonal``: the diagonal as the last axis."""
    from weaktrace.numpy.indexing import getitem
    from weaktrace.numpy.manipulation import moveaxis

    b = context(a)
    x = operand(a, b)
    if x.aval.ndim < 2:
        raise ShapeError("diagonal requires an array of at least two dimensions.")
    offset = operator.index(offset)
    shape = x.aval.shape
    a1, a2 = axis_arg(axis1, len(shape), "diagonal"), axis_arg(axis2, len(shape), "diagonal")
    x = moveaxis(x, (a1, a2), (-2, -1))
    size = builtins.max(0, builtins.min(shape[a1] + builtins.min(offset, 0),
                                        shape[a2] - builtins.max(offset, 0)))  # fmt: skip
    i = np.arange(size, dtype=np.int32)
    j = np.arange(abs(offset), abs(offset) + size, dtype=np.int32)
    return getitem(x, (Ellipsis, i, j) if offset >= 0 else (Ellipsis, j, i))


@export
def diag(v: Any, k: int = 0) -> Any:
    """``jax.numpy.diag``: a 1-d array's diagonal matrix, or a 2-d array's diagonal."""
    b = context(v)
    x = operand(v, b)
    k = operator.index(k)
    if x.aval.ndim == 2:
        return diagonal(x, offset=k)
    if x.aval.ndim != 1:
        raise ShapeError("diag input must be 1d or 2d")
    n = x.aval.shape[0] + abs(k)
    zero = lit(b, 0, x.aval.dt, x.aval.weak_type)
    parts = [
        broadcast_to(zero, (builtins.max(0, -k),)),
        x,
        broadcast_to(zero, (builtins.max(0, k),)),
    ]
    vp = concatenate([p for p in parts if p.aval.shape[0]] or [x], 0)
    mask = emit(P.eq_p, emit(P.add_p, iota(b, _int32(), (n, n), 0), lit(b, k, _int32())),
                iota(b, _int32(), (n, n), 1))  # fmt: skip
    col = emit(P.broadcast_in_dim_p, vp, shape=(n, n), broadcast_dimensions=(0,))
    return select(mask, col, broadcast_to(zero, (n, n)))


def _int32() -> DType:
    from weaktrace.dtypes.registry import by_name

    return by_name("int32")


@export
def diagflat(v: Any, k: int = 0) -> Any:
    """``jax.numpy.diagflat``: the flattened input on the k-th diagonal."""
    b = context(v)
    x = reshape(operand(v, b), (-1,))
    k = operator.index(k)
    n = x.aval.shape[0]
    adj = n + abs(k)
    i = np.arange(0, adj - abs(k))
    fi = i + k + i * adj if k >= 0 else i + (i - k) * adj
    res = _zeros(b, (adj * adj,), x.aval.dt)
    res = U.update(res, (fi.astype(np.int32),), x, "set")
    return reshape(res, (adj, adj))


@export
def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:
    """``jax.numpy.vander``: powers of x (decreasing by default)."""
    from weaktrace.numpy.ufuncs import power

    b = context(x)
    v = operand(x, b)
    if v.aval.ndim != 1:
        raise ShapeError("x must be a one-dimensional array")
    n = v.aval.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ShapeError("N must be nonnegative")
    if v.aval.dt is BOOL:
        raise OperandTypeError("vander: iota does not accept dtype bool")
    e = iota(b, v.aval.dt, (n,), 0)
    if not increasing:
        e = emit(P.sub_p, lit(b, n - 1, v.aval.dt), e)
    return power(
        emit(P.expand_dims_p, v, dimensions=(1,)), emit(P.expand_dims_p, e, dimensions=(0,))
    )


@export
def ix_(*args: Any) -> tuple[Any, ...]:
    """``jax.numpy.ix_``: open-mesh index arrays from 1-d sequences."""
    b = context(*args)
    ops = operands(b, args)
    n = len(ops)
    out = []
    for i, a in enumerate(ops):
        if a.aval.ndim != 1:
            raise ShapeError(
                f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {a.aval.shape}"
            )
        if a.aval.dt is BOOL:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = tuple(a.aval.shape[0] if j == i else 1 for j in range(n))
        if a.aval.size == 0:
            out.append(_zeros(b, shape, b.policy.canonicalize(_int64())))
        else:
            out.append(emit(P.broadcast_in_dim_p, a, shape=shape, broadcast_dimensions=(i,)))
    return tuple(out)


def _int64() -> DType:
    from weaktrace.dtypes.registry import by_name

    return by_name("int64")


@export
def diag_indices(n: int, ndim: int = 2) -> tuple[Any, ...]:
    """``jax.numpy.diag_indices``: ndim copies of arange(n)."""
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ShapeError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ShapeError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    b = context()
    return (iota(b, b.policy.defaults["i"], (n,), 0),) * ndim


@export
def diag_indices_from(arr: Any) -> tuple[Any, ...]:
    """``jax.numpy.diag_indices_from``: diag_indices of a square array."""
    s = _shape(arr)
    if len(s) < 2:
        raise ShapeError("input array must be at least 2-d")
    if len(set(s)) != 1:
        raise ShapeError("All dimensions of input must be of equal length")
    return diag_indices(s[0], ndim=len(s))


def _shape(arr: Any) -> tuple[int, ...]:
    return tuple(arr.aval.shape) if arr.__class__ is Tracer else tuple(np.shape(arr))


def _pair(np_fn: Callable[..., Any], n: Any, k: Any, m: Any) -> tuple[Any, Any]:
    b = context()
    dt = b.policy.defaults["i"]
    i, j = np_fn(operator.index(n), operator.index(k), None if m is None else operator.index(m))
    return operand(i.astype(dt.numpy), b), operand(j.astype(dt.numpy), b)


@export
def tril_indices(n: Any, k: Any = 0, m: Any = None) -> tuple[Any, Any]:
    """``jax.numpy.tril_indices`` (static sizes: constant index arrays)."""
    return _pair(np.tril_indices, n, k, m)


@export
def triu_indices(n: Any, k: Any = 0, m: Any = None) -> tuple[Any, Any]:
    """``jax.numpy.triu_indices`` (static sizes: constant index arrays)."""
    return _pair(np.triu_indices, n, k, m)


def _from(arr: Any) -> tuple[int, int]:
    s = _shape(arr)
    if len(s) != 2:
        raise ShapeError("Only 2-D inputs are accepted")
    return s[0], s[1]


@export
def tril_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """``jax.numpy.tril_indices_from``."""
    n, m = _from(arr)
    return tril_indices(n, k=k, m=m)


@export
def triu_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """``jax.numpy.triu_indices_from``."""
    n, m = _from(arr)
    return triu_indices(n, k=k, m=m)


@export
def mask_indices(n: int, mask_func: Callable[[Any, int], Any], k: int = 0, *,
                 size: int | None = None) -> tuple[Any, Any]:  # fmt: skip
    """``jax.numpy.mask_indices``: the nonzero positions of ``mask_func(ones((n, n)), k)``
    (a traced mask needs ``size=``)."""
    from weaktrace.numpy.cumulative import cumsum

    b = context()
    n = operator.index(n)
    ones = broadcast_to(lit(b, 1, b.policy.defaults["f"]), (n, n))
    mask = operand(mask_func(ones, k), b)
    dt = b.policy.defaults["i"]
    if size is None:
        if not mask.ctx.eager:
            raise ConcretizationError(
                "mask_indices: the number of indices depends on the mask's values; pass size="
            )
        i, j = np.nonzero(np.asarray(mask.concrete()))
        return operand(i.astype(dt.numpy), b), operand(j.astype(dt.numpy), b)
    size = operator.index(size)
    flat = emit(P.ne_p, reshape(mask, (-1,)), lit(b, 0, mask.aval.dt))
    rank = emit(P.sub_p, cumsum(convert(b, flat, dt, False)), lit(b, 1, dt))
    pos = select(flat, rank, broadcast_to(lit(b, size, dt), (n * n,)))
    where = U.update(_zeros(b, (size,), dt), (pos,), iota(b, dt, (n * n,), 0), "set", mode="drop")
    nn = lit(b, n, dt)
    row = emit(P.div_p, where, broadcast_to(nn, (size,)))
    return row, emit(P.sub_p, where, emit(P.mul_p, row, broadcast_to(nn, (size,))))
