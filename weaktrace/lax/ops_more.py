"""More of jax.lax: cumulative reductions, gather and the scatter family, the special
functions beyond the core set, reduce_xor, optimization_barrier and the structural
conveniences (split, stack, unstack, tile, collapse, index_take, ...). No promotion:
operands share one dtype, exactly where jax.lax raises. jax's dimension-number
records and enums are re-exported as they are (plain data, ``DATA``)."""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np
from jax import lax as _jlax

from weaktrace.core import primitives as P
from weaktrace.core import primitives_cumulative as C
from weaktrace.core import primitives_scatter as S
from weaktrace.core import primitives_window as W
from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context, operand
from weaktrace.core.primitives_bitcast import bitcast_convert_type_p
from weaktrace.core.program import eager_program, make_program
from weaktrace.core.promotion import bind, convert, lit
from weaktrace.core.trace import Tracer
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue
from weaktrace.lax import dimchecks, ops
from weaktrace.lax.ops import _named, _ops

EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.lax")

# jax.lax's records, enums and type aliases: plain data, the same objects.
DATA: dict[str, Any] = {
    n: getattr(_jlax, n)
    for n in (
        "AccuracyMode",
        "ConvDimensionNumbers",
        "ConvGeneralDilatedDimensionNumbers",
        "DotAlgorithm",
        "DotAlgorithmPreset",
        "DotDimensionNumbers",
        "FftType",
        "GatherDimensionNumbers",
        "GatherScatterMode",
        "Precision",
        "PrecisionLike",
        "RaggedDotDimensionNumbers",
        "RandomAlgorithm",
        "RoundingMethod",
        "ScatterDimensionNumbers",
        "Tolerance",
    )
}


def _register(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    out = _named(fn, name)
    EXPORTS[name] = out
    return out


def _unary_c(name: str, prim: Any) -> Callable[..., Any]:
    def fn(operand_: Any, axis: int = 0, reverse: bool = False) -> Any:
        _, (x,) = _ops(operand_)
        if name == "cumlogsumexp" and x.aval[1].kind in "iu":
            raise OperandTypeError(
                f"cumlogsumexp needs an inexact dtype, got {x.aval[1]} (jax's lowering fails "
                "on integers with OverflowError: its -inf identity is no integer)"
            )
        return bind(prim, x, axis=operator.index(axis), reverse=bool(reverse))

    return _register(fn, name)


cumsum = _unary_c("cumsum", C.cumsum_p)
cumprod = _unary_c("cumprod", C.cumprod_p)
cummax = _unary_c("cummax", C.cummax_p)
cummin = _unary_c("cummin", C.cummin_p)
cumlogsumexp = _unary_c("cumlogsumexp", C.cumlogsumexp_p)


def _nary_fn(name: str, prim: Any, arity: int) -> Callable[..., Any]:
    def fn(*args: Any) -> Any:
        if len(args) != arity:
            raise TypeError(f"{name} takes {arity} arguments, got {len(args)}")
        _, xs = _ops(*args)
        return bind(prim, *xs)

    return _register(fn, name)


zeta = _nary_fn("zeta", W.zeta_p, 2)
polygamma = _nary_fn("polygamma", W.polygamma_p, 2)
betainc = _nary_fn("betainc", W.betainc_p, 3)
igamma_grad_a = _nary_fn("igamma_grad_a", W.igamma_grad_a_p, 2)


@export
def random_gamma_grad(a: Any, x: Any) -> Any:
    """``jax.lax.random_gamma_grad``: float16/bfloat16 ``a`` computes in float32 (both
    operands converted), the result converted back to a's dtype."""
    ctx, (ta, tx) = _ops(a, x)
    shape = broadcast_shapes(ta.aval[0], tx.aval[0])
    ta, tx = (ops.broadcast_in_dim(t, shape, tuple(range(t.aval.ndim))) for t in (ta, tx))
    dt = ta.aval[1]
    if dt.name in ("float16", "bfloat16"):
        f32 = ctx.policy.user_dtype(np.float32)
        out = bind(W.random_gamma_grad_p, *(convert(ctx, t, f32, False) for t in (ta, tx)))
        return convert(ctx, out, dt, False)
    return bind(W.random_gamma_grad_p, ta, tx)


mulhi = _nary_fn("mulhi", W.mulhi_p, 2)


@export
def reduce_xor(operand_: Any, axes: Sequence[int]) -> Any:
    """``jax.lax.reduce_xor``."""
    _, (x,) = _ops(operand_)
    return bind(W.reduce_xor_p, x, axes=tuple(int(a) % builtins.max(x.aval.ndim, 1) for a in axes))


@export
def optimization_barrier(operand_: Any) -> Any:
    """``jax.lax.optimization_barrier`` of a pytree of arrays."""
    leaves, tree = jax.tree_util.tree_flatten(operand_)
    ctx, xs = _ops(*leaves)
    outs = ctx.emit_n(W.optimization_barrier_p, tuple(xs), {}) if xs else []
    return jax.tree_util.tree_unflatten(tree, outs)


@export
def bitcast_convert_type(operand_: Any, new_dtype: Any) -> Any:
    """``jax.lax.bitcast_convert_type``."""
    ctx, (x,) = _ops(operand_)
    return bind(bitcast_convert_type_p, x, new_dtype=ctx.policy.user_dtype(new_dtype))


def dtype(x: Any) -> np.dtype:
    """``jax.lax.dtype``: the (canonical) dtype a value has as an operand, or that a
    dtype-like (``np.float32``, ``"int8"``, ``float``) means, as jax's does."""
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, (type, str, np.dtype)):  # a dtype-like, not a value
        return np.dtype(context().policy.user_dtype(x).numpy)
    ctx = context(x)
    dt = operand(x, ctx).aval[1].numpy
    assert dt is not None
    return np.dtype(dt)


EXPORTS["dtype"] = dtype


@export
def empty(shape: Any, dtype: Any, *, out_sharding: Any = None) -> Any:
    """``jax.lax.empty``: an array whose values are unspecified (zeros here)."""
    ctx = context()
    return ops.full(shape, lit(ctx, 0, ctx.policy.user_dtype(dtype)), dtype)


@export
def split(operand_: Any, sizes: Sequence[int], axis: int = 0) -> Any:
    """``jax.lax.split``: pieces of the given sizes along axis."""
    _, (x,) = _ops(operand_)
    axis = _axis(axis, x.aval.ndim)
    sizes = [operator.index(s) for s in sizes]
    if any(s < 0 for s in sizes):  # jax's _split_shape_rule, its words
        raise ValueError(f"Sizes passed to split must be nonnegative, got {sizes}")
    if builtins.sum(sizes) != x.aval[0][axis]:
        raise ValueError(
            f"Sum of sizes {builtins.sum(sizes)} must be equal to dimension {axis} of the "
            f"operand shape {list(x.aval[0])}"
        )
    out, start = [], 0
    for s in sizes:
        out.append(ops.slice_in_dim(x, start, start + s, 1, axis))
        start += s
    return out


def _axis(axis: Any, ndim: int) -> int:
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise ValueError(f"axis {a} is out of bounds for array of dimension {ndim}")
    return a % ndim


@export
def stack(operands: Sequence[Any], axis: int = 0) -> Any:
    """``jax.lax.stack``: operands (one shape, one dtype) joined along a new axis."""
    _, xs = _ops(*operands)
    if any(x.aval[0] != xs[0].aval[0] for x in xs):
        raise TypeError(f"stack operands must share one shape, got {[x.aval for x in xs]}")
    axis = _axis(axis, xs[0].aval.ndim + 1)
    return ops.concatenate([ops.expand_dims(x, (axis,)) for x in xs], axis)


@export
def unstack(x: Any, axis: int = 0) -> Any:
    """``jax.lax.unstack``: the slices along axis, as a tuple."""
    _, (t,) = _ops(x)
    axis = _axis(axis, t.aval.ndim)
    return tuple(ops.index_in_dim(t, i, axis, False) for i in range(t.aval[0][axis]))


@export
def tile(operand_: Any, reps: Sequence[int]) -> Any:
    """``jax.lax.tile``: one repeat count per dimension."""
    _, (x,) = _ops(operand_)
    reps = tuple(operator.index(r) for r in reps)
    shape = x.aval[0]
    if len(reps) != len(shape) or any(r < 0 for r in reps):
        raise TypeError(
            f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} and "
            f"x.ndim={len(shape)}"
        )
    big = tuple(v for r, n in zip(reps, shape, strict=True) for v in (r, n))
    b = ops.broadcast_in_dim(x, big, tuple(range(1, 2 * len(shape), 2)))
    return ops.reshape(b, tuple(r * n for r, n in zip(reps, shape, strict=True)))


@export
def collapse(operand_: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """``jax.lax.collapse``: dimensions [start, stop) merged into one."""
    _, (x,) = _ops(operand_)
    shape = x.aval[0]
    lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}")
    return ops.reshape(x, (*shape[:lo], math.prod(shape[lo:hi]), *shape[hi:]))


@export
def broadcast_to_rank(x: Any, rank: int) -> Any:
    """``jax.lax.broadcast_to_rank``: leading dimensions of size 1 up to rank."""
    _, (t,) = _ops(x)
    n = t.aval.ndim
    return t if n == rank else ops.broadcast(t, (1,) * (rank - n))


@export
def broadcast_like(arr: Any, like_arr: Any) -> Any:
    """``jax.lax.broadcast_like``: arr broadcast (numpy-style) to like_arr's shape."""
    _, (x, like) = _ops(arr, like_arr)
    shape, n = like.aval[0], like.aval.ndim
    if x.aval.ndim > n:
        raise ValueError(f"cannot broadcast {x.aval} to {like.aval}")
    return ops.broadcast_in_dim(x, shape, tuple(range(n - x.aval.ndim, n)))


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """``jax.lax.broadcast_shapes``: numpy's broadcasting of static shapes."""
    if not shapes:
        return ()
    dims = [_static_shape(s) for s in shapes]
    n = builtins.max(len(s) for s in dims)
    padded = [(1,) * (n - len(s)) + s for s in dims]
    out = []
    for sizes in zip(*padded, strict=True):
        big = {s for s in sizes if s != 1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
        out.append(big.pop() if big else 1)
    return tuple(out)


EXPORTS["broadcast_shapes"] = broadcast_shapes


def _static_shape(shape: Any) -> tuple[int, ...]:
    """jax's _validate_shapes: concrete integers (else canonicalize_shape's TypeError),
    none negative."""
    dims = ops._sizes((shape,) if isinstance(shape, int) else shape)
    if any(d < 0 for d in dims):
        raise ShapeError(
            "Only non-negative indices are allowed when broadcasting static shapes, but got "
            f"shape {shape!r}."
        )
    return dims


@export
def batch_matmul(lhs: Any, rhs: Any, precision: Any = None) -> Any:
    """``jax.lax.batch_matmul``: matrix products batched over the leading dimensions."""
    _, (x, y) = _ops(lhs, rhs)
    n = x.aval.ndim
    if n < 2 or y.aval.ndim != n or x.aval[0][:-2] != y.aval[0][:-2]:
        raise ValueError(f"batch_matmul needs equal batch dims and rank >= 2: {x.aval}, {y.aval}")
    batch = tuple(range(n - 2))
    return ops.dot_general(x, y, (((n - 1,), (n - 2,)), (batch, batch)), precision)


@export
def dynamic_update_slice_in_dim(
    operand_: Any, update: Any, start_index: Any, axis: int, *, allow_negative_indices: bool = True
) -> Any:
    """``jax.lax.dynamic_update_slice_in_dim``."""
    ctx, (x,) = _ops(operand_)
    axis = _axis(axis, x.aval.ndim)
    s = operand(start_index, ctx)
    starts = [s if d == axis else lit(ctx, 0, s.aval[1]) for d in range(x.aval.ndim)]
    return ops.dynamic_update_slice(
        x, update, starts, allow_negative_indices=allow_negative_indices
    )


@export
def dynamic_update_index_in_dim(
    operand_: Any, update: Any, index: Any, axis: int, *, allow_negative_indices: bool = True
) -> Any:
    """``jax.lax.dynamic_update_index_in_dim``: update may lack the axis."""
    _, (x, u) = _ops(operand_, update)
    axis = _axis(axis, x.aval.ndim)
    if u.aval.ndim == x.aval.ndim - 1:
        u = ops.expand_dims(u, (axis,))
    return dynamic_update_slice_in_dim(
        x, u, index, axis, allow_negative_indices=allow_negative_indices
    )


_MODE_NAMES = {
    _jlax.GatherScatterMode.CLIP: "clip",
    _jlax.GatherScatterMode.FILL_OR_DROP: "fill",
    _jlax.GatherScatterMode.PROMISE_IN_BOUNDS: "promise_in_bounds",
    _jlax.GatherScatterMode.ONE_HOT: "one_hot",
}


def _mode(mode: Any) -> str:
    return _MODE_NAMES[_jlax.GatherScatterMode.from_any(mode)]


def _batched_indices(x: Tracer, idx: Tracer, operand_dims: Sequence[int],
                     index_dims: Sequence[int], what: str) -> Tracer:  # fmt: skip
    """Batching dims as XLA expands them: each operand batching dim b (paired with the
    indices' batch dim s) becomes one more start-index component, the iota along s,
    so that b is indexed (and collapsed) at the position of the index batch."""
    ob, ib = tuple(map(int, operand_dims)), tuple(map(int, index_dims))
    if len(ob) != len(ib):
        raise TypeError(
            f"{what}: operand_batching_dims and the indices' batching dims must have the same "
            f"length, got {ob} and {ib}"
        )
    shape = idx.aval[0]
    for b, i in zip(ob, ib, strict=True):
        if not 0 <= i < len(shape) - 1 or not 0 <= b < x.aval.ndim:
            raise TypeError(f"{what}: batching dims {ob}, {ib} are out of range")
        if x.aval[0][b] != shape[i]:
            raise TypeError(
                f"{what}: operand batching dim {b} of size {x.aval[0][b]} does not match the "
                f"indices' batching dim {i} of size {shape[i]}"
            )
    if not ob:
        return idx
    dt, out = idx.aval[1], [idx]
    ones = (*shape[:-1], 1)
    for i in ib:
        out.append(operand(ops.broadcasted_iota(dt.numpy, ones, i), x.ctx))
    return ops.concatenate(out, len(shape) - 1)


@export
def gather(
    operand_: Any,
    start_indices: Any,
    dimension_numbers: Any,
    slice_sizes: Sequence[int],
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: Any = None,
    fill_value: Any = None,
) -> Any:
    """``jax.lax.gather``; batching dims become iota start indices (as XLA expands
    them)."""
    ctx, (x, idx) = _ops(operand_, start_indices)
    sizes = tuple(operator.index(s) for s in slice_sizes)
    dimchecks.check_gather(x.aval[0], idx.aval[0], dimension_numbers, sizes)
    ob = tuple(map(int, dimension_numbers.operand_batching_dims))
    idx = _batched_indices(x, idx, ob, dimension_numbers.start_indices_batching_dims, "gather")
    dn = P.GatherDims(
        tuple(dimension_numbers.offset_dims),
        tuple(sorted((*dimension_numbers.collapsed_slice_dims, *ob))),
        (*dimension_numbers.start_index_map, *ob),
    )
    m = "promise_in_bounds" if mode is None else _mode(mode)  # jax's gather default
    if m == "one_hot":
        raise NotImplementedError("weaktrace.lax.gather: mode ONE_HOT is not supported yet")
    if m == "fill" and fill_value is not None:
        return ctx.emit(
            S.gather_fill_p,
            (x, idx),
            {"dimension_numbers": dn, "slice_sizes": sizes, "fill_value": fill_value},
        )
    return ctx.emit(
        P.gather_p, (x, idx), {"dimension_numbers": dn, "slice_sizes": sizes, "mode": m}
    )


def _sdims(dn: Any, x: Tracer, idx: Tracer) -> tuple[S.ScatterDims, Tracer]:
    """Scatter dimension numbers and indices, batching dims expanded as gather's."""
    ob = tuple(map(int, dn.operand_batching_dims))
    idx = _batched_indices(x, idx, ob, dn.scatter_indices_batching_dims, "scatter")
    dims = S.ScatterDims(
        tuple(dn.update_window_dims),
        tuple(sorted((*dn.inserted_window_dims, *ob))),
        (*dn.scatter_dims_to_operand_dims, *ob),
    )
    return dims, idx


def _scatter(name: str, prim: Any) -> Callable[..., Any]:
    def fn(
        operand_: Any,
        scatter_indices: Any,
        updates: Any,
        dimension_numbers: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
    ) -> Any:
        ctx, (x, idx, u) = _ops(operand_, scatter_indices, updates)
        dimchecks.check_scatter(x.aval[0], idx.aval[0], u.aval[0], dimension_numbers)
        dims, idx = _sdims(dimension_numbers, x, idx)
        params = {
            "dimension_numbers": dims,
            "indices_are_sorted": bool(indices_are_sorted),
            "unique_indices": bool(unique_indices),
            "mode": _mode(mode),
        }
        return ctx.emit(prim, (x, idx, u), params)

    return _register(fn, name)


scatter = _scatter("scatter", S.scatter_p)
scatter_add = _scatter("scatter_add", S.scatter_add_p)
scatter_sub = _scatter("scatter_sub", S.scatter_sub_p)
scatter_mul = _scatter("scatter_mul", S.scatter_mul_p)
scatter_min = _scatter("scatter_min", S.scatter_min_p)
scatter_max = _scatter("scatter_max", S.scatter_max_p)


@export
def scatter_apply(
    operand_: Any,
    scatter_indices: Any,
    func: Callable[[Any], Any],
    dimension_numbers: Any,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
) -> Any:
    """``jax.lax.scatter_apply``: func applied to each indexed element."""
    ctx, (x, idx) = _ops(operand_, scatter_indices)
    shape = tuple(map(operator.index, update_shape))
    dimchecks.check_scatter(x.aval[0], idx.aval[0], shape, dimension_numbers)
    dims, idx = _sdims(dimension_numbers, x, idx)
    scalar = AbstractValue.make((), x.aval[1], x.aval[2])

    def make() -> Any:
        return make_program(func, [scalar], ctx.policy, nested=not ctx.eager)

    made = eager_program(func, (scalar, ctx.policy), make) if ctx.eager else make()
    if made.captures or len(made.out_avals) != 1:
        raise NotImplementedError(
            "scatter_apply: func must be a function of its one argument returning one value "
            "(it cannot close over traced values)"
        )
    params = {
        "dimension_numbers": dims,
        "update_shape": shape,
        "program": made.program,
        "policy": ctx.policy,
        "indices_are_sorted": bool(indices_are_sorted),
        "unique_indices": bool(unique_indices),
        "mode": _mode(mode),
    }
    return ctx.emit(S.scatter_apply_p, (x, idx), params)


@export
def index_take(src: Any, idxs: Sequence[Any], axes: Sequence[int]) -> Any:
    """``jax.lax.index_take``: src at the given index arrays (one per axis, wrapped)."""
    ctx, (x, *ix) = _ops(src, *idxs)
    axes = tuple(operator.index(a) for a in axes)
    indices = ops.concatenate([ops.expand_dims(i, (1,)) for i in ix], 1)
    bounds = [x.aval[0][a] for a in axes]
    dt = indices.aval[1]
    mx = ops.broadcast_in_dim(
        ops.concatenate([ops.broadcast(lit(ctx, b, dt), (1,)) for b in bounds], 0),
        indices.aval[0],
        (1,),
    )
    rem, add = ops.EXPORTS["rem"], ops.EXPORTS["add"]
    indices = rem(add(rem(indices, mx), mx), mx) if dt.kind == "i" else rem(indices, mx)
    sizes = list(x.aval[0])
    for a in axes:
        sizes[a] = 1
    dn = _jlax.GatherDimensionNumbers(
        offset_dims=tuple(range(1, x.aval.ndim - indices.aval[0][1] + 1)),
        collapsed_slice_dims=axes,
        start_index_map=axes,
    )
    return gather(x, indices, dn, tuple(sizes))
