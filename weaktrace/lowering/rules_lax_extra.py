"""Lowering rules of ``weaktrace.core.primitives_lax_extra`` onto public ``jax.lax``."""

from __future__ import annotations

from typing import Any

from jax import lax

from weaktrace.core import primitives_lax_extra as X
from weaktrace.lowering.rules import _np, _register


def _approx_top_k(x: Any, *, is_max_k: bool, **params: Any) -> list[Any]:
    fn = lax.approx_max_k if is_max_k else lax.approx_min_k
    return list(fn(x, **params))


def _rng_bit_generator(key: Any, *, shape: Any, dtype: Any, algorithm: Any) -> list[Any]:
    return list(lax.rng_bit_generator(key, shape, _np(dtype), algorithm))


def _ragged(x: Any, y: Any, gs: Any, *, dimension_numbers: Any, preferred_element_type: Any,
            out_sharding: Any = None, precision: Any = None) -> Any:  # fmt: skip
    dot, ragged, group = dimension_numbers
    dn = lax.RaggedDotDimensionNumbers(dot, list(ragged), list(group))
    pref = None if preferred_element_type is None else _np(preferred_element_type)
    return lax.ragged_dot_general(x, y, gs, dn, precision, pref,
                                  out_sharding=out_sharding)  # fmt: skip


def _scaled_dot(x: Any, y: Any, *scales: Any, dimension_numbers: Any,
                preferred_element_type: Any, given: tuple[bool, bool]) -> Any:  # fmt: skip
    it = iter(scales)
    xs, ys = (next(it) if g else None for g in given)
    return lax.scaled_dot(x, y, lhs_scale=xs, rhs_scale=ys, dimension_numbers=dimension_numbers,
                          preferred_element_type=_np(preferred_element_type))  # fmt: skip


def _dce_sink(x: Any, *, prevent_mlir_dce: bool) -> list[Any]:
    lax.dce_sink(x, prevent_mlir_dce=prevent_mlir_dce)
    return []


_register(X.approx_top_k_p, _approx_top_k)
_register(X.rng_uniform_p, lambda a, b, *, shape: lax.rng_uniform(a, b, shape))
_register(X.rng_bit_generator_p, _rng_bit_generator)
_register(X.ragged_dot_general_p, _ragged)
_register(X.scaled_dot_p, _scaled_dot)
_register(X.dce_sink_p, _dce_sink)
