"""Lowering of ``weaktrace.core.primitives_window`` onto ``jax.lax``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from jax import lax

from weaktrace.core import primitives_window as W
from weaktrace.lowering.evaluate import program_function
from weaktrace.lowering.rules import _np, _register

for _prim, _fn in {
    W.zeta_p: lax.zeta,
    W.polygamma_p: lax.polygamma,
    W.betainc_p: lax.betainc,
    W.igamma_grad_a_p: lax.igamma_grad_a,
    W.random_gamma_grad_p: lax.random_gamma_grad,
    W.mulhi_p: lax.mulhi,
}.items():
    _register(_prim, _fn)

_register(W.optimization_barrier_p, lambda *xs: list(lax.optimization_barrier(tuple(xs))))
_register(W.reduce_xor_p, lambda x, *, axes: lax.reduce_xor(x, axes))
_MONOIDS: dict[str, Callable[..., Any]] = {
    "add": lax.add,
    "max": lax.max,
    "min": lax.min,
    "mul": lax.mul,
}


def _identity(monoid: str, dtype: Any) -> Any:
    """The monoid's identity as a concrete scalar, so that jax picks its differentiable
    reduce_window_sum/max/min (it detects them from the function and a concrete init)."""
    dt = np.dtype(dtype)
    if monoid in ("add", "mul"):
        return np.array(monoid == "mul", dt)
    low = monoid == "max"
    if dt.kind == "b":
        return np.array(not low, dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.array(info.min if low else info.max, dt)
    return np.array(-np.inf if low else np.inf, dt)


def _computation(program: Any, monoid: str | None, policy: Any, k: int) -> Callable[..., Any]:
    if monoid is not None:
        return _MONOIDS[monoid]

    return program_function(program, policy, "pair")


def _reduce(*xs: Any, program: Any, monoid: str | None, dimensions: Any, policy: Any) -> list[Any]:
    k = len(xs) // 2
    fn = _computation(program, monoid, policy, k)
    if monoid is not None:
        return [lax.reduce(xs[0], _identity(monoid, xs[0].dtype), fn, dimensions)]
    return list(lax.reduce(tuple(xs[:k]), tuple(xs[k:]), fn, dimensions))


def _reduce_window(
    *xs: Any,
    program: Any,
    monoid: str | None,
    window_dimensions: Any,
    window_strides: Any,
    padding: Any,
    base_dilation: Any,
    window_dilation: Any,
    policy: Any,
) -> list[Any]:
    k = len(xs) // 2
    fn = _computation(program, monoid, policy, k)
    args = (window_dimensions, window_strides, padding, base_dilation, window_dilation)
    if monoid is not None:
        return [lax.reduce_window(xs[0], _identity(monoid, xs[0].dtype), fn, *args)]
    return list(lax.reduce_window(tuple(xs[:k]), tuple(xs[k:]), fn, *args))


def _conv(
    lhs: Any,
    rhs: Any,
    *,
    window_strides: Any,
    padding: Any,
    lhs_dilation: Any,
    rhs_dilation: Any,
    dimension_numbers: Any,
    feature_group_count: int,
    batch_group_count: int,
    preferred_element_type: Any,
    precision: Any = None,
) -> Any:
    return lax.conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        lax.ConvDimensionNumbers(*dimension_numbers),
        feature_group_count,
        batch_group_count,
        precision=precision,
        preferred_element_type=None
        if preferred_element_type is None
        else _np(preferred_element_type),
    )


_register(W.reduce_p, _reduce)
_register(W.reduce_window_p, _reduce_window)
_register(W.conv_p, _conv)
