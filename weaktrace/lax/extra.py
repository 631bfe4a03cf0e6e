"""The last jax.lax operations: ``fft``, approximate top-k, bit generators, ragged and
scaled dots, local and patch convolutions (written over weaktrace's own conv and
dot, as jax writes them over its own), and the identities (``stage``,
``with_sharding_constraint``, ``dce_sink``, ``shape_as_value``)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np
from jax import lax as _jlax

from weaktrace.core import primitives as P
from weaktrace.core import primitives_lax_extra as X
from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context, operand, to_jax
from weaktrace.core.primitives_fft import fft_p
from weaktrace.core.primitives_fft import to_inexact as _to_inexact
from weaktrace.core.promotion import bind, convert
from weaktrace.core.trace import Tracer
from weaktrace.dtypes import registry
from weaktrace.lax import ops, windows
from weaktrace.lax.ops import _ops

EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.lax")
_D = registry.by_name
_F32, _F64, _C64, _C128 = _D("float32"), _D("float64"), _D("complex64"), _D("complex128")


@export
def fft(x: Any, fft_type: Any, fft_lengths: Sequence[int]) -> Any:
    """``jax.lax.fft``: the operand converted to the transform's dtype (strong), then
    transformed over its trailing ``len(fft_lengths)`` axes."""
    if isinstance(fft_type, str):
        name = fft_type.upper()
        if name not in ("FFT", "IFFT", "RFFT", "IRFFT"):
            raise ValueError(f"Unknown FFT type '{fft_type}'")
    elif isinstance(fft_type, _jlax.FftType):
        name = fft_type.name
    else:
        raise TypeError(f"Unknown FFT type value '{fft_type}'")
    _, (t,) = _ops(x)
    dt = _to_inexact(t.aval[1])
    if name == "RFFT":
        if dt.kind == "c":
            raise ValueError("only real valued inputs supported for rfft")
    else:
        dt = _C128 if dt in (_F64, _C128) else _C64
    t = convert(t.ctx, t, dt, False)
    lengths = tuple(operator.index(n) for n in fft_lengths)
    if not lengths:
        return t
    return bind(fft_p, t, fft_type=name, fft_lengths=lengths)


@export
def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """``jax.lax.with_sharding_constraint``: on weaktrace's one device, the identity
    (the shardings are checked as jax checks them: Sharding instances, or a
    PartitionSpec under a mesh)."""
    leaves, tree = jax.tree_util.tree_flatten(x)
    for s in jax.tree_util.tree_leaves(shardings, is_leaf=lambda v: v is None):
        if s is None:
            raise ValueError(
                "One of with_sharding_constraint arguments got sharding None which is not "
                "allowed. Please only pass `jax.sharding.Sharding` instances."
            )
        if isinstance(s, jax.sharding.PartitionSpec):
            raise ValueError(
                "with_sharding_constraint requires a non-empty mesh in context if you are "
                "passing `PartitionSpec`s to shardings; weaktrace traces for one device."
            )
    ctx = context(*leaves)
    return jax.tree_util.tree_unflatten(tree, [operand(v, ctx) for v in leaves])


@export
def stage(x: Any, /) -> Any:
    """``jax.lax.stage``: the value as an array of the current trace (eagerly, a jax
    array with the value's dtype and weak flag)."""
    ctx = context(x)
    return operand(x, ctx)


@export
def dce_sink(val: Any, *, prevent_mlir_dce: bool = False) -> None:
    """``jax.lax.dce_sink``: marks every array of a pytree as used; returns None."""
    leaves = jax.tree_util.tree_leaves(val)
    ctx = context(*leaves)
    for v in leaves:
        ctx.emit_n(X.dce_sink_p, (operand(v, ctx),), {"prevent_mlir_dce": bool(prevent_mlir_dce)})


def shape_as_value(shape: Sequence[int]) -> Any:
    """``jax.lax.shape_as_value``: a static shape as an integer array (a numpy array,
    int32 when every size fits, as jax's; an empty shape: a jax array of length 0)."""
    dims = tuple(operator.index(d) for d in shape)
    big = any(d > np.iinfo(np.int32).max for d in dims)
    dt = np.int64 if big else np.int32  # numpy data: x64 does not apply
    if not dims:
        return to_jax(ops.full((0,), np.array(0, dtype=dt)))
    return np.asarray(dims, dtype=dt)


EXPORTS["shape_as_value"] = shape_as_value


@export
def rng_uniform(a: Any, b: Any, shape: Sequence[int]) -> Any:
    """``jax.lax.rng_uniform``: XLA's stateful generator, values in [a, b)."""
    _, (ta, tb) = _ops(a, b)
    return bind(X.rng_uniform_p, ta, tb, shape=tuple(operator.index(d) for d in shape))


@export
def rng_bit_generator(key: Any, shape: Sequence[int], dtype: Any = np.uint32,
                      algorithm: Any = _jlax.RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.lax.rng_bit_generator``: (new key, random bits of shape and dtype)."""
    ctx, (k,) = _ops(key)
    dt = ctx.policy.user_dtype(dtype)
    params = {"shape": tuple(operator.index(d) for d in shape), "dtype": dt,
              "algorithm": _jlax.RandomAlgorithm(algorithm)}  # fmt: skip
    return tuple(ctx.emit_n(X.rng_bit_generator_p, (k,), params))


def _approx(is_max: bool) -> Callable[..., Any]:
    def fn(
        operand_: Any,
        k: int,
        reduction_dimension: int = -1,
        recall_target: float = 0.95,
        reduction_input_size_override: int = -1,
        aggregate_to_topk: bool = True,
    ) -> Any:
        ctx, (x,) = _ops(operand_)
        params = {
            "k": operator.index(k),
            "reduction_dimension": operator.index(reduction_dimension),
            "recall_target": float(recall_target),
            "is_max_k": is_max,
            "reduction_input_size_override": operator.index(reduction_input_size_override),
            "aggregate_to_topk": bool(aggregate_to_topk),
        }
        return ctx.emit_n(X.approx_top_k_p, (x,), params)

    name = "approx_max_k" if is_max else "approx_min_k"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"``jax.lax.{name}``: the k {'largest' if is_max else 'smallest'} values along "
        "reduction_dimension and their int32 indices (exact on CPU)."
    )
    return export(fn)


approx_max_k = _approx(True)
approx_min_k = _approx(False)


def _pref(ctx: Any, preferred_element_type: Any) -> Any:
    return None if preferred_element_type is None else ctx.policy.user_dtype(preferred_element_type)


@export
def ragged_dot_general(lhs: Any, rhs: Any, group_sizes: Any, ragged_dot_dimension_numbers: Any,
                       precision: Any = None, preferred_element_type: Any = None,
                       group_offset: Any = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.lax.ragged_dot_general``: dot_general with the lhs ragged along one
    dimension, in groups of sizes group_sizes (noncontracting, contracting or batch)."""
    if group_offset is not None:
        raise NotImplementedError("Unimplemented group_offset support.")
    ctx, (x, y, gs) = _ops(lhs, rhs, group_sizes)
    rdn = ragged_dot_dimension_numbers
    (xc, yc), (xb, yb) = rdn.dot_dimension_numbers
    dot = ((tuple(map(int, xc)), tuple(map(int, yc))), (tuple(map(int, xb)), tuple(map(int, yb))))
    dn = (dot, tuple(map(int, rdn.lhs_ragged_dimensions)),
          tuple(map(int, rdn.rhs_group_dimensions)))  # fmt: skip
    # out_sharding goes on to jax's ragged_dot_general (a param only when given)
    sharding = {} if out_sharding is None else {"out_sharding": out_sharding}
    return bind(X.ragged_dot_general_p, x, y, gs, dimension_numbers=dn,
                preferred_element_type=_pref(ctx, preferred_element_type), **sharding,
                **P.precision_param(precision))  # fmt: skip


@export
def ragged_dot(lhs: Any, rhs: Any, group_sizes: Any, precision: Any = None,
               preferred_element_type: Any = None, group_offset: Any = None,
               out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.lax.ragged_dot``: lhs [m, k] in groups of rows, each times its own rhs
    [g, k, n] matrix."""
    dn = _jlax.RaggedDotDimensionNumbers(
        dot_dimension_numbers=(([1], [1]), ([], [])),
        lhs_ragged_dimensions=[0],
        rhs_group_dimensions=[0],
    )
    return ragged_dot_general(lhs, rhs, group_sizes, dn, precision, preferred_element_type,
                              group_offset, out_sharding)  # fmt: skip


@export
def scaled_dot(
    lhs: Any,
    rhs: Any,
    *,
    lhs_scale: Any = None,
    rhs_scale: Any = None,
    dimension_numbers: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """``jax.lax.scaled_dot``: (lhs * lhs_scale) @ (rhs * rhs_scale), the scales
    broadcast along the contracting dimensions; bfloat16 unless told otherwise."""
    given = (lhs_scale is not None, rhs_scale is not None)
    ctx, (x, y, *scales) = _ops(lhs, rhs, *(s for s in (lhs_scale, rhs_scale) if s is not None))
    if dimension_numbers is None:
        n = x.aval.ndim
        if n < 2:
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (xc, yc), (xb, yb) = dimension_numbers
    dn = ((tuple(map(int, xc)), tuple(map(int, yc))), (tuple(map(int, xb)), tuple(map(int, yb))))
    pref = ctx.policy.user_dtype(
        "bfloat16" if preferred_element_type is None else preferred_element_type
    )
    return bind(X.scaled_dot_p, x, y, *scales, dimension_numbers=dn,
                preferred_element_type=pref, given=given)  # fmt: skip


def _moveaxis(x: Tracer, src: Sequence[int], dst: Sequence[int]) -> Tracer:
    order = [d for d in range(x.aval.ndim) if d not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return x if order == list(range(x.aval.ndim)) else ops.transpose(x, tuple(order))


@export
def conv_general_dilated_patches(
    lhs: Any,
    filter_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """``jax.lax.conv_general_dilated_patches``: the patches a convolution with
    filter_shape sees, flattened into the output's feature dimension (a grouped
    convolution with an identity kernel, as jax computes it)."""
    ctx, (x,) = _ops(lhs)
    fs = tuple(operator.index(d) for d in filter_shape)
    dn = _jlax.conv_dimension_numbers(x.aval[0], (1, 1, *fs), dimension_numbers)
    lhs_spec, rhs_spec, _ = dn
    size = math.prod(fs)
    channels = x.aval[0][lhs_spec[1]]
    i32 = np.int32
    rows, cols = (operand(ops.broadcasted_iota(i32, (size, size), d), ctx) for d in (0, 1))
    eye = convert(ctx, bind(P.eq_p, rows, cols), x.aval[1], False)
    rhs = ops.broadcast_in_dim(eye, (channels, size, size), (1, 2))
    rhs = ops.reshape(rhs, (channels * size, 1, *fs))
    rhs = _moveaxis(rhs, (0, 1), (rhs_spec[0], rhs_spec[1]))
    return windows.conv_general_dilated(
        x, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
        dn,
        feature_group_count=channels,
        precision=None if precision is None else (precision, _jlax.Precision.DEFAULT),
        preferred_element_type=preferred_element_type,
    )  # fmt: skip


@export
def conv_general_dilated_local(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Any,
    filter_shape: Sequence[int],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    precision: Any = None,
) -> Any:
    """``jax.lax.conv_general_dilated_local``: an unshared convolution (one kernel per
    output location): the patches, contracted with rhs by one dot_general."""
    _, (x, w) = _ops(lhs, rhs)
    lhs_precision = precision[0] if isinstance(precision, tuple) else precision
    patches = conv_general_dilated_patches(
        x, filter_shape, window_strides, padding, lhs_dilation, rhs_dilation,
        dimension_numbers, lhs_precision,
    )  # fmt: skip
    fs = tuple(operator.index(d) for d in filter_shape)
    _, rhs_spec, out_spec = _jlax.conv_dimension_numbers(x.aval[0], (1, 1, *fs), dimension_numbers)
    lhs_b = list(out_spec[2:])
    rhs_b = list(rhs_spec[2:])
    rhs_b = [rhs_b[i] for i in sorted(range(len(rhs_b)), key=lambda k: lhs_b[k])]
    dn = (((out_spec[1],), (rhs_spec[1],)), (tuple(sorted(lhs_b)), tuple(rhs_b)))
    out = ops.dot_general(patches, w, dn, precision)
    n = out.aval.ndim
    return _moveaxis(out, (n - 2, n - 1), (out_spec[0], out_spec[1]))
