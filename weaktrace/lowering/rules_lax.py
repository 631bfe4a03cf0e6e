"""Lowering of weaktrace.core.primitives_lax onto jax.lax."""

from __future__ import annotations

from typing import Any

from jax import lax

from weaktrace.core import primitives_lax as L
from weaktrace.ir.values import lowering_rules

for _prim, _fn in {
    L.acosh_p: lax.acosh, L.asinh_p: lax.asinh, L.atanh_p: lax.atanh, L.erf_p: lax.erf,
    L.erfc_p: lax.erfc, L.erf_inv_p: lax.erf_inv, L.lgamma_p: lax.lgamma,
    L.digamma_p: lax.digamma, L.logistic_p: lax.logistic, L.bessel_i0e_p: lax.bessel_i0e,
    L.bessel_i1e_p: lax.bessel_i1e, L.population_count_p: lax.population_count,
    L.clz_p: lax.clz, L.nextafter_p: lax.nextafter, L.igamma_p: lax.igamma,
    L.igammac_p: lax.igammac, L.stop_gradient_p: lax.stop_gradient,
}.items():  # fmt: skip
    lowering_rules[_prim] = _fn  # type: ignore[assignment]


def _pad(x: Any, value: Any, *, padding_config: Any) -> Any:
    return lax.pad(x, value, padding_config)


def _dus(x: Any, update: Any, *starts: Any) -> Any:
    return lax.dynamic_update_slice(x, update, starts)


def _top_k(x: Any, *, k: int, axis: int = -1) -> list[Any]:
    return list(lax.top_k(x, k, axis=axis))


def _sort(*xs: Any, dimension: int, is_stable: bool, num_keys: int) -> list[Any]:
    return list(lax.sort(xs, dimension=dimension, is_stable=is_stable, num_keys=num_keys))


def _reduce_precision(x: Any, *, exponent_bits: int, mantissa_bits: int) -> Any:
    return lax.reduce_precision(x, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits)


lowering_rules[L.pad_p] = _pad
lowering_rules[L.dynamic_update_slice_p] = _dus
lowering_rules[L.top_k_p] = _top_k
lowering_rules[L.sort_p] = _sort
lowering_rules[L.reduce_precision_p] = _reduce_precision
# jax's own copy primitive (what jnp.array(x, copy=True) binds): a new buffer, also
# under jax.jit, where an identity would hand back (alias) the input buffer
lowering_rules[L.copy_p] = lax.copy_p.bind
