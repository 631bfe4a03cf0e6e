"""Primitives jax.lax offers beyond the core set: more elementwise functions
(special functions among them), stop_gradient, copy, pad, dynamic_update_slice, top_k,
sort and reduce_precision. Rules as jax.lax's: no promotion, dtypes must agree."""

from __future__ import annotations

from weaktrace.core.primitives import (
    FLOAT,
    INEXACT,
    INTEGER,
    _def,
    _nary,
    _require,
    _same_dtypes,
    _same_index_dtypes,
)
from weaktrace.dtypes import registry
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue

_make = AbstractValue.make
_INT32 = registry.by_name("int32")

acosh_p = _nary("acosh", INEXACT)
asinh_p = _nary("asinh", INEXACT)
atanh_p = _nary("atanh", INEXACT)
erf_p = _nary("erf", FLOAT)
erfc_p = _nary("erfc", FLOAT)
erf_inv_p = _nary("erf_inv", FLOAT)
lgamma_p = _nary("lgamma", FLOAT)
digamma_p = _nary("digamma", FLOAT)
logistic_p = _nary("logistic", INEXACT)
bessel_i0e_p = _nary("bessel_i0e", FLOAT)
bessel_i1e_p = _nary("bessel_i1e", FLOAT)
population_count_p = _nary("population_count", INTEGER)
clz_p = _nary("clz", INTEGER)
nextafter_p = _nary("nextafter", FLOAT)
igamma_p = _nary("igamma", FLOAT)
igammac_p = _nary("igammac", FLOAT)


def _identity(x: AbstractValue) -> list[AbstractValue]:
    return [x]


stop_gradient_p = _def("stop_gradient", _identity)
copy_p = _def("copy", _identity)  # a fresh buffer (jnp.array(x, copy=True), jnp.copy)


def _reduce_precision(
    x: AbstractValue, *, exponent_bits: int, mantissa_bits: int
) -> list[AbstractValue]:
    _require("reduce_precision", x, FLOAT, "a real floating dtype")
    if exponent_bits < 1 or mantissa_bits < 0:
        raise ShapeError("reduce_precision needs exponent_bits >= 1 and mantissa_bits >= 0")
    return [x]


reduce_precision_p = _def("reduce_precision", _reduce_precision)


def _pad(x: AbstractValue, value: AbstractValue, *,
         padding_config: tuple[tuple[int, int, int], ...]) -> list[AbstractValue]:  # fmt: skip
    _same_dtypes("pad", [x, value])
    # jax's _pad_shape_rule: its checks in its order and words (ValueError)
    if value.shape != ():
        raise ShapeError(
            f"padding_value must be a scalar; got np.shape(padding_value)={value.shape}"
        )
    if len(padding_config) != x.ndim:
        raise ShapeError(
            "length of padding_config must equal the number of axes of operand, got "
            f"padding_config {padding_config} for operand shape {x.shape}"
        )
    if any(interior < 0 for _, _, interior in padding_config):
        raise ShapeError(
            f"interior padding in padding_config must be nonnegative, got padding_config "
            f"{padding_config}"
        )
    shape = tuple(
        lo + hi + n + max(0, n - 1) * interior
        for n, (lo, hi, interior) in zip(x.shape, padding_config, strict=True)
    )
    if any(size < 0 for size in shape):
        raise ShapeError(
            f"Dimension size after padding is not at least 0, got result shape {shape}, for "
            f"padding_config {padding_config} and operand shape {x.shape}"
        )
    return [_make(shape, x[1], x.weak_type and value.weak_type)]


pad_p = _def("pad", _pad)


def _dynamic_update_slice(x: AbstractValue, update: AbstractValue,
                          *starts: AbstractValue) -> list[AbstractValue]:  # fmt: skip
    _same_dtypes("dynamic_update_slice", [x, update])
    if update.ndim != x.ndim or len(starts) != x.ndim:
        raise ShapeError(
            f"dynamic_update_slice needs an update of rank {x.ndim} and {x.ndim} start indices"
        )
    if any(u > n for u, n in zip(update.shape, x.shape, strict=True)):
        raise ShapeError(f"update {update.shape} does not fit in {x.shape}")
    for s in starts:
        if s.shape != () or s[1].kind not in INTEGER:
            raise OperandTypeError(f"start indices must be integer scalars, got {s}")
    _same_index_dtypes("dynamic_update_slice", starts)
    return [x]


dynamic_update_slice_p = _def("dynamic_update_slice", _dynamic_update_slice)


def _top_k(x: AbstractValue, *, k: int, axis: int = -1) -> list[AbstractValue]:
    """lax.top_k along `axis` (normalized by the caller; -1 is the last axis)."""
    if x.ndim == 0 or not 0 <= k <= x.shape[axis]:
        raise ShapeError(
            "k argument to top_k must be no larger than size along axis; "
            f"got k={k} with shape={list(x.shape)} and axis={axis}"
        )
    shape = list(x.shape)
    shape[axis] = k
    return [_make(tuple(shape), x[1], x.weak_type), _make(tuple(shape), _INT32, False)]


top_k_p = _def("top_k", _top_k, multiple_results=True)


def _sort(
    *xs: AbstractValue, dimension: int, is_stable: bool, num_keys: int
) -> list[AbstractValue]:
    if not xs or any(x.shape != xs[0].shape for x in xs):
        raise ShapeError(f"sort operands must share one shape, got {[x.shape for x in xs]}")
    if not 0 <= dimension < xs[0].ndim or not 1 <= num_keys <= len(xs):
        raise ShapeError(f"sort dimension {dimension} / num_keys {num_keys} do not fit")
    return list(xs)


sort_p = _def("sort", _sort, multiple_results=True)
