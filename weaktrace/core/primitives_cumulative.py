"""Cumulative reductions along one axis (``jax.lax.cumsum`` and its family).

``cumsum[axis, reverse]`` keeps its operand's shape, dtype and weak type; like
``jax.lax`` it accepts numbers only (not bool) and a non-negative axis.
"""

from __future__ import annotations

from weaktrace.core.primitives import NUMERIC, _def, _require
from weaktrace.errors import ShapeError
from weaktrace.ir.values import AbstractValue, Primitive


def _cumulative(name: str) -> Primitive:
    def rule(x: AbstractValue, *, axis: int, reverse: bool) -> list[AbstractValue]:
        _require(name, x, NUMERIC, "a number (not bool)")
        if not 0 <= axis < x.ndim:
            raise ShapeError(f"{name}: axis {axis} is out of bounds for shape {x.shape}")
        return [x]

    return _def(name, rule)


cumsum_p = _cumulative("cumsum")
cumprod_p = _cumulative("cumprod")
cummax_p = _cumulative("cummax")
cummin_p = _cumulative("cummin")
cumlogsumexp_p = _cumulative("cumlogsumexp")
