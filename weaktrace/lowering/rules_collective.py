"""Collectives lower to jax.lax's own, inside jax's vmap of the sub-program."""

from __future__ import annotations

from typing import Any

from jax import lax

from weaktrace.core.primitives_collective import axis_index_p, collective_p
from weaktrace.ir.values import lowering_rules


def _collective(x: Any, *, fn: str, axis_name: Any, options: tuple[Any, ...],
                batched: bool) -> list[Any]:  # fmt: skip
    return [getattr(lax, fn)(x, axis_name, **dict(options))]


lowering_rules[collective_p] = _collective
lowering_rules[axis_index_p] = lambda *, axis_name: [lax.axis_index(axis_name)]
