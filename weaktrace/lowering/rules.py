"""One lowering rule per primitive, onto public ``jax.lax``.

A rule takes jax values (tracers under ``jax.jit``, or concrete arrays) and the
equation's params, and returns one jax value. Promotions are already explicit in
the program, so every rule is a plain lax call; conversions bind
``jax.lax.convert_element_type_p`` so that weak types survive exactly as in a
jaxpr that jax.numpy produced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from jax import lax

from weaktrace.core import primitives as P
from weaktrace.dtypes.registry import DType
from weaktrace.ir.values import (
    Primitive,
    abstract_eval_rules,
    lowering_rules,
    subprogram_lowering_rules,
)

Rule = Callable[..., Any]


def _register(prim: Primitive, rule: Rule) -> None:
    lowering_rules[prim] = rule


def _np(dt: Any) -> np.dtype:
    """A dtype param (a DType) as jax takes it."""
    out = dt.numpy if isinstance(dt, DType) else np.dtype(dt)
    assert out is not None, f"{dt} has no numpy dtype: map it with the policy's lowering_dtype"
    return out


def convert(x: Any, *, new_dtype: Any, weak_type: bool) -> Any:
    """``convert_element_type[new_dtype, weak_type]`` exactly (weak types survive as in
    a jaxpr that jax.numpy produced)."""
    return lax.convert_element_type_p.bind(
        x, new_dtype=_np(new_dtype), weak_type=bool(weak_type), sharding=None
    )


for _prim, _fn in {
    P.neg_p: lax.neg, P.sign_p: lax.sign, P.abs_p: lax.abs, P.floor_p: lax.floor,
    P.ceil_p: lax.ceil, P.is_finite_p: lax.is_finite, P.exp_p: lax.exp,
    P.exp2_p: lax.exp2, P.log_p: lax.log, P.log1p_p: lax.log1p, P.expm1_p: lax.expm1,
    P.sin_p: lax.sin, P.cos_p: lax.cos, P.tan_p: lax.tan, P.asin_p: lax.asin,
    P.acos_p: lax.acos, P.atan_p: lax.atan, P.sinh_p: lax.sinh, P.cosh_p: lax.cosh,
    P.tanh_p: lax.tanh, P.sqrt_p: lax.sqrt, P.rsqrt_p: lax.rsqrt, P.cbrt_p: lax.cbrt,
    P.not_p: lax.bitwise_not, P.real_p: lax.real, P.imag_p: lax.imag, P.conj_p: lax.conj,
    P.square_p: lax.square, P.add_p: lax.add, P.sub_p: lax.sub, P.mul_p: lax.mul,
    P.div_p: lax.div, P.rem_p: lax.rem, P.pow_p: lax.pow, P.max_p: lax.max,
    P.min_p: lax.min, P.atan2_p: lax.atan2, P.and_p: lax.bitwise_and,
    P.or_p: lax.bitwise_or, P.xor_p: lax.bitwise_xor, P.shift_left_p: lax.shift_left,
    P.shift_right_arithmetic_p: lax.shift_right_arithmetic,
    P.shift_right_logical_p: lax.shift_right_logical, P.eq_p: lax.eq, P.ne_p: lax.ne,
    P.lt_p: lax.lt, P.le_p: lax.le, P.gt_p: lax.gt, P.ge_p: lax.ge,
    P.complex_p: lax.complex, P.select_n_p: lax.select_n, P.clamp_p: lax.clamp,
}.items():  # fmt: skip
    _register(_prim, _fn)  # type: ignore[arg-type]

_ROUNDING = {0: lax.RoundingMethod.AWAY_FROM_ZERO, 1: lax.RoundingMethod.TO_NEAREST_EVEN}

_register(P.round_p, lambda x, *, rounding_method: lax.round(x, _ROUNDING[rounding_method]))
_register(P.integer_pow_p, lambda x, *, y: lax.integer_pow(x, y))
_register(P.convert_element_type_p, convert)
_register(
    P.broadcast_in_dim_p,
    lambda x, *, shape, broadcast_dimensions: lax.broadcast_in_dim(x, shape, broadcast_dimensions),
)
_register(P.reshape_p, lambda x, *, new_sizes: lax.reshape(x, new_sizes))
_register(P.transpose_p, lambda x, *, permutation: lax.transpose(x, permutation))
_register(P.squeeze_p, lambda x, *, dimensions: lax.squeeze(x, dimensions))
_register(P.expand_dims_p, lambda x, *, dimensions: lax.expand_dims(x, dimensions))
_register(P.concatenate_p, lambda *xs, dimension: lax.concatenate(xs, dimension))
_register(P.rev_p, lambda x, *, dimensions: lax.rev(x, dimensions))
_register(
    P.slice_p,
    lambda x, *, start_indices, limit_indices, strides: lax.slice(
        x, start_indices, limit_indices, strides
    ),
)
_register(
    P.dynamic_slice_p,
    lambda x, *starts, slice_sizes: lax.dynamic_slice(x, starts, slice_sizes),
)
_register(
    P.iota_p,
    lambda *, dtype, shape, dimension: lax.broadcasted_iota(_np(dtype), shape, dimension),
)
_register(
    P.dot_general_p,
    lambda x, y, *, dimension_numbers, preferred_element_type, precision=None: lax.dot_general(
        x,
        y,
        dimension_numbers,
        precision=precision,
        preferred_element_type=None
        if preferred_element_type is None
        else _np(preferred_element_type),
    ),
)
_register(P.argmax_p, lambda x, *, axes, index_dtype: lax.argmax(x, axes[0], _np(index_dtype)))
_register(P.argmin_p, lambda x, *, axes, index_dtype: lax.argmin(x, axes[0], _np(index_dtype)))


_GATHER_MODES = {
    "clip": lax.GatherScatterMode.CLIP,
    "fill": lax.GatherScatterMode.FILL_OR_DROP,
    "promise_in_bounds": lax.GatherScatterMode.PROMISE_IN_BOUNDS,
}


def _gather(x: Any, idx: Any, *, dimension_numbers: Any, slice_sizes: Any, mode: str) -> Any:
    offset, collapsed, start_map = dimension_numbers
    dnums = lax.GatherDimensionNumbers(
        offset_dims=offset, collapsed_slice_dims=collapsed, start_index_map=start_map
    )
    return lax.gather(x, idx, dnums, slice_sizes, mode=_GATHER_MODES[mode])


_register(P.gather_p, _gather)


# jax's reduce_<op> directly: lax.reduce with a (strong) numpy identity as init_val
# would make the result strong, where the primitive keeps the operand's weak flag (an
# eager reduce_sum of a weak array came back strong while its trace said weak).
_register(P.reduce_sum_p, lambda x, *, axes: lax.reduce_sum(x, axes))
_register(P.reduce_prod_p, lambda x, *, axes: lax.reduce_prod(x, axes))
_register(P.reduce_max_p, lambda x, *, axes: lax.reduce_max(x, axes))
_register(P.reduce_min_p, lambda x, *, axes: lax.reduce_min(x, axes))
_register(P.reduce_and_p, lambda x, *, axes: lax.reduce_and(x, axes))
_register(P.reduce_or_p, lambda x, *, axes: lax.reduce_or(x, axes))


def missing_rules() -> list[str]:
    """Primitives with a type rule but no lowering rule (should be none)."""
    return sorted(
        p.name
        for p in abstract_eval_rules
        if p not in lowering_rules and p not in subprogram_lowering_rules
    )
