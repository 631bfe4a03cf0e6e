"""jax.lax's operations with its names, signatures and dtype rules. lax does not
promote: operands must share one dtype (a Python scalar enters as its weak default
dtype and must match too), exactly where jax.lax raises."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core import primitives as P
from weaktrace.core import primitives_lax as L
from weaktrace.core.mirror import exporter, keeps_commitment
from weaktrace.core.operands import context, operand
from weaktrace.core.promotion import (
    bind,
    broadcast_to,
    convert,
    convert_fill,
    default_fill,
    lit,
)
from weaktrace.core.trace import Context, Tracer
from weaktrace.errors import ShapeError

EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.lax")


def _ops(*xs: Any) -> tuple[Context, list[Tracer]]:
    ctx = context(*xs)
    return ctx, [operand(x, ctx) for x in xs]


def _named(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jax.lax.{name}``: no implicit promotion."
    return export(fn)


def _unary(name: str, prim: Any) -> Callable[..., Any]:
    def fn(x: Any, accuracy: Any = None) -> Any:
        _, (x,) = _ops(x)
        return bind(prim, x)

    return _named(fn, name)


def _binary(name: str, prim: Any) -> Callable[..., Any]:
    def fn(x: Any, y: Any) -> Any:
        _, (x, y) = _ops(x, y)
        return bind(prim, x, y)

    return _named(fn, name)


_UNARY = {
    "abs": P.abs_p, "acos": P.acos_p, "acosh": L.acosh_p, "asin": P.asin_p,
    "asinh": L.asinh_p, "atan": P.atan_p, "atanh": L.atanh_p, "cbrt": P.cbrt_p,
    "ceil": P.ceil_p, "conj": P.conj_p, "cos": P.cos_p, "cosh": P.cosh_p, "erf": L.erf_p,
    "erfc": L.erfc_p, "erf_inv": L.erf_inv_p, "exp": P.exp_p, "exp2": P.exp2_p,
    "expm1": P.expm1_p, "floor": P.floor_p, "imag": P.imag_p, "is_finite": P.is_finite_p,
    "lgamma": L.lgamma_p, "digamma": L.digamma_p, "log": P.log_p, "log1p": P.log1p_p,
    "logistic": L.logistic_p, "neg": P.neg_p, "bitwise_not": P.not_p,
    "population_count": L.population_count_p, "clz": L.clz_p, "real": P.real_p,
    "rsqrt": P.rsqrt_p, "sign": P.sign_p, "sin": P.sin_p, "sinh": P.sinh_p, "sqrt": P.sqrt_p,
    "square": P.square_p, "tan": P.tan_p, "tanh": P.tanh_p, "bessel_i0e": L.bessel_i0e_p,
    "bessel_i1e": L.bessel_i1e_p,
}  # fmt: skip
_BINARY = {
    "add": P.add_p, "sub": P.sub_p, "mul": P.mul_p, "div": P.div_p, "rem": P.rem_p,
    "pow": P.pow_p, "max": P.max_p, "min": P.min_p, "atan2": P.atan2_p,
    "bitwise_and": P.and_p, "bitwise_or": P.or_p, "bitwise_xor": P.xor_p,
    "shift_left": P.shift_left_p, "shift_right_arithmetic": P.shift_right_arithmetic_p,
    "shift_right_logical": P.shift_right_logical_p, "eq": P.eq_p, "ne": P.ne_p,
    "lt": P.lt_p, "le": P.le_p, "gt": P.gt_p, "ge": P.ge_p, "nextafter": L.nextafter_p,
    "igamma": L.igamma_p, "igammac": L.igammac_p, "complex": P.complex_p,
}  # fmt: skip
for _name, _prim in _UNARY.items():
    globals()[_name] = _unary(_name, _prim)
for _name, _prim in _BINARY.items():
    globals()[_name] = _binary(_name, _prim)


def mul(x: Any, y: Any, *, out_dtype: Any = None) -> Any:
    # With out_dtype, jax converts both operands to it and multiplies there (its
    # lowering inserts the converts), so operands of different dtypes are accepted.
    ctx, (x, y) = _ops(x, y)
    if out_dtype is not None:
        dt = ctx.policy.user_dtype(out_dtype)
        weak = x.aval[2] and y.aval[2]
        x, y = convert(ctx, x, dt, weak), convert(ctx, y, dt, weak)
    return bind(P.mul_p, x, y)


_named(mul, "mul")


@export
def stop_gradient(x: Any) -> Any:
    """``jax.lax.stop_gradient`` (of every leaf of a pytree)."""

    def one(v: Any) -> Any:
        _, (t,) = _ops(v)
        return bind(L.stop_gradient_p, t)

    return jax.tree_util.tree_map(one, x)


@export
def reciprocal(x: Any) -> Any:
    """``jax.lax.reciprocal``: integer_pow(x, -1)."""
    return integer_pow(x, -1)


@export
def integer_pow(x: Any, y: int) -> Any:
    """``jax.lax.integer_pow``."""
    _, (x,) = _ops(x)
    return bind(P.integer_pow_p, x, y=operator.index(y))


@export
def round(x: Any, rounding_method: Any = 0) -> Any:
    """``jax.lax.round`` (rounding_method 0: away from zero, 1: to nearest even)."""
    _, (x,) = _ops(x)
    return bind(P.round_p, x, rounding_method=int(rounding_method))


@export
def clamp(min: Any, x: Any, max: Any) -> Any:
    """``jax.lax.clamp``."""
    _, (lo, x, hi) = _ops(min, x, max)
    return bind(P.clamp_p, lo, x, hi)


@export
def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """``jax.lax.select``: select_n(pred, on_false, on_true)."""
    _, (p, t, f) = _ops(pred, on_true, on_false)
    return bind(P.select_n_p, p, f, t)


@export
def select_n(which: Any, *cases: Any) -> Any:
    """``jax.lax.select_n``."""
    _, (w, *cs) = _ops(which, *cases)
    return bind(P.select_n_p, w, *cs)


@export
def convert_element_type(operand_: Any, new_dtype: Any) -> Any:
    """``jax.lax.convert_element_type``: a strong conversion."""
    ctx = context(operand_)
    dt = ctx.policy.user_dtype(new_dtype)
    if type(operand_) is int and not _fits_python_int(ctx, operand_):
        # jax converts a Python int through numpy (np.asarray(2**32).astype(int32) is 0,
        # wrapping as C does) rather than refusing it as an out-of-range weak int.
        operand_ = np.asarray(operand_).astype(dt.numpy)
    x = operand(operand_, ctx)
    return convert(ctx, x, dt, False)


def _fits_python_int(ctx: Context, v: int) -> bool:
    bits = 64 if ctx.policy.x64 else 32
    return -(2 ** (bits - 1)) <= v < 2 ** (bits - 1)


@export
def broadcast_in_dim(operand_: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int],
                     out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.lax.broadcast_in_dim``."""
    _, (x,) = _ops(operand_)
    shape, dims = tuple(map(int, shape)), tuple(map(int, broadcast_dimensions))
    _check_broadcast_in_dim(x.aval[0], shape, dims)
    if x.aval[0] == shape and dims == tuple(range(len(shape))):
        return x
    return bind(P.broadcast_in_dim_p, x, shape=shape, broadcast_dimensions=dims)


def _check_broadcast_in_dim(
    have: tuple[int, ...], shape: tuple[int, ...], dims: tuple[int, ...]
) -> None:
    """jax's broadcast_in_dim shape checks, in its order and words (TypeError)."""
    why = None
    if len(dims) != len(have):
        why = (f"broadcast_dimensions must have length equal to operand ndim; got "
               f"broadcast_dimensions {dims} for operand ndim {len(have)}.")  # fmt: skip
    elif len(shape) < len(have):
        why = (f"target broadcast shape must have equal or higher rank to the operand shape; "
               f"got operand ndim {len(have)} and target broadcast ndim {len(shape)}.")  # fmt: skip
    elif not all(0 <= d < len(shape) for d in dims):
        why = (f"broadcast_dimensions must be a subset of output dimensions, got {dims} for "
               f"operand ndim {len(have)} and shape {shape}.")  # fmt: skip
    elif any(h != 1 and h != shape[d] for h, d in zip(have, dims, strict=True)):
        why = ("operand dimension sizes must either be 1, or be equal to their corresponding "
               f"dimensions in the target broadcast shape; got operand of shape {have}, target "
               f"broadcast shape {shape}, broadcast_dimensions {dims}")  # fmt: skip
    elif len(set(dims)) != len(dims):
        why = f"broadcast_dimensions must not contain duplicates, got broadcast_dimensions {dims}"
    if why is not None:
        raise ShapeError(f"broadcast_in_dim {why}")


def _axes(dims: Sequence[Any], n: int) -> tuple[int, ...]:
    """Axes in [-n, n) normalized, as jax.lax checks them (it does not wrap others)."""
    out = []
    for d in dims:
        d = operator.index(d)
        if not -n <= d < n:
            raise ShapeError(f"axis {d} is out of bounds for array of dimension {n}")
        out.append(d % n)
    return tuple(out)


@export
def broadcast(operand_: Any, sizes: Sequence[int], out_sharding: Any = None) -> Any:
    """``jax.lax.broadcast``: new leading dimensions."""
    _, (x,) = _ops(operand_)
    k = len(sizes)
    shape = (*map(int, sizes), *x.aval[0])
    return broadcast_in_dim(x, shape, tuple(range(k, len(shape))))


@export
def reshape(operand_: Any, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None,
            out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.lax.reshape`` (dimensions: a transpose first)."""
    _, (x,) = _ops(operand_)
    if dimensions is not None and tuple(dimensions) != tuple(range(x.aval.ndim)):
        x = bind(P.transpose_p, x, permutation=tuple(dimensions))
    new = _sizes(new_sizes)
    return x if new == x.aval[0] else bind(P.reshape_p, x, new_sizes=new)


def _sizes(shape: Any) -> tuple[int, ...]:
    """A shape of concrete integers; else jax's canonicalize_shape TypeError."""
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        raise ShapeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {shape}."
        ) from None


@export
def transpose(operand_: Any, permutation: Sequence[int]) -> Any:
    """``jax.lax.transpose``."""
    _, (x,) = _ops(operand_)
    perm = tuple(map(int, permutation))
    return x if perm == tuple(range(x.aval.ndim)) else bind(P.transpose_p, x, permutation=perm)


@export
def squeeze(array: Any, dimensions: Sequence[int]) -> Any:
    """``jax.lax.squeeze``."""
    _, (x,) = _ops(array)
    dims = _axes(dimensions, x.aval.ndim)
    if len(set(dims)) != len(dims):
        raise ShapeError(f"dimensions are not unique: {tuple(dimensions)}")
    dims = tuple(sorted(dims))
    return x if not dims else bind(P.squeeze_p, x, dimensions=dims)


@export
def expand_dims(array: Any, dimensions: Sequence[int]) -> Any:
    """``jax.lax.expand_dims``."""
    _, (x,) = _ops(array)
    n = x.aval.ndim + len(dimensions)
    dims = _axes(dimensions, n)
    if len(set(dims)) != len(dims):
        raise ShapeError(f"repeated axis in lax.expand_dims: {tuple(dimensions)}")
    dims = tuple(sorted(dims))
    return bind(P.expand_dims_p, x, dimensions=dims)


@export
def concatenate(operands: Sequence[Any], dimension: int) -> Any:
    """``jax.lax.concatenate``."""
    ctx, xs = _ops(*operands)
    if len(xs) == 1:
        return xs[0]
    return ctx.emit(P.concatenate_p, tuple(xs), {"dimension": int(dimension)})


@export
def slice(operand_: Any, start_indices: Sequence[int], limit_indices: Sequence[int],
          strides: Sequence[int] | None = None) -> Any:  # fmt: skip
    """``jax.lax.slice``."""
    _, (x,) = _ops(operand_)
    return bind(P.slice_p, x, start_indices=tuple(map(int, start_indices)),
                limit_indices=tuple(map(int, limit_indices)),
                strides=None if strides is None else tuple(map(int, strides)))  # fmt: skip


@export
def slice_in_dim(operand_: Any, start_index: int | None, limit_index: int | None,
                 stride: int = 1, axis: int = 0) -> Any:  # fmt: skip
    """``jax.lax.slice_in_dim``."""
    _, (x,) = _ops(operand_)
    shape = x.aval[0]
    axis = int(axis) % len(shape)
    lo, hi, _ = builtins.slice(start_index, limit_index).indices(shape[axis])
    starts = [0] * len(shape)
    limits = list(shape)
    strides = [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = lo, builtins.max(lo, hi), int(stride)
    return slice(x, starts, limits, strides)


@export
def index_in_dim(operand_: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
    """``jax.lax.index_in_dim``."""
    _, (x,) = _ops(operand_)
    axis = int(axis) % x.aval.ndim
    n = x.aval[0][axis]
    i = operator.index(index)
    if not -n <= i < n:
        raise ShapeError(f"index {i} is out of bounds for axis {axis} with size {n}")
    out = slice_in_dim(x, i % n, i % n + 1, 1, axis)
    return out if keepdims else bind(P.squeeze_p, out, dimensions=(axis,))


def _starts(ctx: Context, starts: Sequence[Any]) -> list[Tracer]:
    return [operand(s, ctx) for s in starts]


@export
def dynamic_slice(operand_: Any, start_indices: Sequence[Any], slice_sizes: Sequence[int],
                  *, allow_negative_indices: bool = True) -> Any:  # fmt: skip
    """``jax.lax.dynamic_slice`` (out-of-range starts are clamped, as XLA does)."""
    ctx, (x,) = _ops(operand_)
    starts = _normalize(ctx, x, _starts(ctx, start_indices), allow_negative_indices)
    return ctx.emit(P.dynamic_slice_p, (x, *starts), {"slice_sizes": tuple(map(int, slice_sizes))})


def _normalize(ctx: Context, x: Tracer, starts: list[Tracer], negative: bool) -> list[Tracer]:
    """jax's _dynamic_slice_indices: negative starts count from the end."""
    if not negative:
        return starts
    out = []
    for s, n in zip(starts, x.aval[0], strict=True):
        if s.aval[1].kind == "u":
            out.append(s)
            continue
        zero, size = lit(ctx, 0, s.aval[1]), lit(ctx, n, s.aval[1])
        out.append(bind(P.select_n_p, bind(P.lt_p, s, zero), s, bind(P.add_p, s, size)))
    return out


@export
def dynamic_update_slice(operand_: Any, update: Any, start_indices: Sequence[Any],
                         *, allow_negative_indices: bool = True) -> Any:  # fmt: skip
    """``jax.lax.dynamic_update_slice``."""
    ctx, (x, u) = _ops(operand_, update)
    starts = _normalize(ctx, x, _starts(ctx, start_indices), allow_negative_indices)
    return ctx.emit(L.dynamic_update_slice_p, (x, u, *starts), {})


@export
def dynamic_slice_in_dim(operand_: Any, start_index: Any, slice_size: int, axis: int = 0,
                         *, allow_negative_indices: bool = True) -> Any:  # fmt: skip
    """``jax.lax.dynamic_slice_in_dim``."""
    ctx, (x,) = _ops(operand_)
    axis = int(axis) % x.aval.ndim
    zero = lit(ctx, 0, operand(start_index, ctx).aval[1])
    starts = [start_index if d == axis else zero for d in range(x.aval.ndim)]
    sizes = [int(slice_size) if d == axis else n for d, n in enumerate(x.aval[0])]
    return dynamic_slice(x, starts, sizes, allow_negative_indices=allow_negative_indices)


@export
def dynamic_index_in_dim(operand_: Any, index: Any, axis: int = 0, keepdims: bool = True) -> Any:
    """``jax.lax.dynamic_index_in_dim``."""
    _, (x,) = _ops(operand_)
    axis = int(axis) % x.aval.ndim
    out = dynamic_slice_in_dim(x, index, 1, axis)
    return out if keepdims else bind(P.squeeze_p, out, dimensions=(axis,))


@export
def rev(operand_: Any, dimensions: Sequence[int]) -> Any:
    """``jax.lax.rev``."""
    _, (x,) = _ops(operand_)
    return bind(P.rev_p, x, dimensions=tuple(map(int, dimensions)))


@export
def pad(operand_: Any, padding_value: Any, padding_config: Sequence[Sequence[int]]) -> Any:
    """``jax.lax.pad`` (low, high, interior per dimension; negative low/high crop)."""
    _, (x, v) = _ops(operand_, padding_value)
    config = tuple(tuple(int(c) for c in cfg) for cfg in padding_config)
    return bind(L.pad_p, x, v, padding_config=config)


@export
def iota(dtype: Any, size: int, dimension: int = 0, sharding: Any = None) -> Any:
    """``jax.lax.iota``."""
    return broadcasted_iota(dtype, (int(size),), 0)


@export
def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int, sharding: Any = None) -> Any:
    """``jax.lax.broadcasted_iota``."""
    ctx = context()
    params = {"dtype": ctx.policy.user_dtype(dtype), "shape": tuple(map(int, shape)),
              "dimension": int(dimension)}  # fmt: skip
    return ctx.emit(P.iota_p, (), params)


@export
def full(shape: Sequence[int], fill_value: Any, dtype: Any = None, *, sharding: Any = None) -> Any:
    """``jax.lax.full``: weak when no dtype is given and the fill is weak."""
    ctx = context(fill_value)
    if dtype is not None and fill_value.__class__ is int:
        v = convert_fill(ctx, fill_value, ctx.policy.user_dtype(dtype), False)
    else:
        v = default_fill(ctx, fill_value)
        if v.aval[0]:
            raise ShapeError(f"full must be called with a scalar fill_value, got {v.aval}")
        if dtype is not None:
            v = convert(ctx, v, ctx.policy.user_dtype(dtype), False)
    dims = tuple(map(int, shape)) if isinstance(shape, Sequence) else (int(shape),)
    return broadcast_to(v, dims)


@export
def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Any = None,
              sharding: Any = None) -> Any:  # fmt: skip
    """``jax.lax.full_like``: x's dtype and weak flag unless a dtype is given."""
    ctx = context(x, fill_value)
    t = operand(x, ctx)
    dt = t.aval[1] if dtype is None else ctx.policy.user_dtype(dtype)
    v = convert_fill(ctx, fill_value, dt, dtype is None and t.aval[2])
    return broadcast_to(v, t.aval[0] if shape is None else tuple(map(int, shape)))


full_like = keeps_commitment(EXPORTS, "full_like", "sharding")  # noqa: F811


def _reduce(name: str, prim: Any) -> Callable[..., Any]:
    def fn(operand_: Any, axes: Sequence[int]) -> Any:
        _, (x,) = _ops(operand_)
        return bind(prim, x, axes=tuple(int(a) % builtins.max(x.aval.ndim, 1) for a in axes))

    return _named(fn, name)


for _name, _prim in {"reduce_sum": P.reduce_sum_p, "reduce_prod": P.reduce_prod_p,
                     "reduce_max": P.reduce_max_p, "reduce_min": P.reduce_min_p,
                     "reduce_and": P.reduce_and_p, "reduce_or": P.reduce_or_p}.items():  # fmt: skip
    globals()[_name] = _reduce(_name, _prim)


def _arg(name: str, prim: Any) -> Callable[..., Any]:
    def fn(operand_: Any, axis: int, index_dtype: Any) -> Any:
        ctx, (x,) = _ops(operand_)
        if not 0 <= operator.index(axis) < x.aval.ndim:  # jax does not wrap negative axes
            raise ShapeError(f"Invalid axis {axis} for operand shape {x.aval[0]}")
        return bind(prim, x, axes=(int(axis),),
                    index_dtype=ctx.policy.user_dtype(index_dtype))  # fmt: skip

    return _named(fn, name)


argmax = _arg("argmax", P.argmax_p)
argmin = _arg("argmin", P.argmin_p)


@export
def dot_general(lhs: Any, rhs: Any, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.lax.dot_general``: no promotion; preferred_element_type as jax's."""
    ctx, (x, y) = _ops(lhs, rhs)
    (xc, yc), (xb, yb) = dimension_numbers
    dn = ((tuple(map(int, xc)), tuple(map(int, yc))), (tuple(map(int, xb)), tuple(map(int, yb))))
    pref = None if preferred_element_type is None else ctx.policy.user_dtype(preferred_element_type)
    return bind(P.dot_general_p, x, y, dimension_numbers=dn, preferred_element_type=pref,
                **P.precision_param(precision))  # fmt: skip


@export
def dot(lhs: Any, rhs: Any, *, dimension_numbers: Any = None, precision: Any = None,
        preferred_element_type: Any = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.lax.dot``: without dimension_numbers, vector/matrix products (the last axis
    of lhs with the first of rhs); with them, ``dot_general``. Options are keyword-only,
    as in jax (a positional precision is a TypeError there)."""
    _, (x, y) = _ops(lhs, rhs)
    dn = dimension_numbers
    if dn is None:
        xs, ys = x.aval[0], y.aval[0]
        if not (1 <= len(xs) <= 2 and 1 <= len(ys) <= 2 and xs[-1] == ys[0]):
            raise ShapeError(
                "jax.lax.dot: dimension_numbers must be specified when not performing simple "
                "un-batched matrix-matrix, matrix-vector, or vector-vector products; "
                f"got lhs_shape={xs} rhs_shape={ys}"
            )
        dn = (((len(xs) - 1,), (0,)), ((), ()))
    return dot_general(x, y, dn, precision, preferred_element_type)


@export
def top_k(operand_: Any, k: int, *, axis: int = -1) -> Any:
    """``jax.lax.top_k``: the k largest values along `axis` (the last by default) and
    their indices."""
    ctx, (x,) = _ops(operand_)
    n = x.aval.ndim
    a = operator.index(axis)
    if not -n <= a < n:
        raise ShapeError(f"axis {a} is out of bounds for array of dimension {n}")
    params = {"k": operator.index(k)}
    if a % n != n - 1:  # the last axis keeps the params jax's default prints
        params["axis"] = a % n
    return ctx.emit_n(L.top_k_p, (x,), params)


@export
def sort(operand_: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Any:
    """``jax.lax.sort`` of an array or a sequence of arrays (sorted by the first num_keys)."""
    single = not isinstance(operand_, tuple | list)
    ctx, xs = _ops(*([operand_] if single else operand_))
    params = {"dimension": int(dimension) % xs[0].aval.ndim, "is_stable": bool(is_stable),
              "num_keys": int(num_keys)}  # fmt: skip
    outs = ctx.emit_n(L.sort_p, tuple(xs), params)
    return outs[0] if single else tuple(outs)


@export
def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True) -> Any:
    """``jax.lax.sort_key_val``."""
    return sort((keys, values), dimension, is_stable, 1)


@export
def reduce_precision(operand_: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    """``jax.lax.reduce_precision``."""
    _, (x,) = _ops(operand_)
    return bind(L.reduce_precision_p, x, exponent_bits=int(exponent_bits),
                mantissa_bits=int(mantissa_bits))  # fmt: skip
