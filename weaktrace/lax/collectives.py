"""``psum``, ``pmean``, ``pmax``, ``pmin``, ``axis_index`` and ``axis_size`` over an axis
named by ``jax.vmap(..., axis_name=...)`` (jax.lax's signatures). Inside a trace the
output types are jax's and an unbound name raises jax's NameError; outside one the
value is a jax value (jax's own vmap binds the axis) and jax.lax computes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
from jax import lax as _jlax

from weaktrace.core.operands import operand, to_jax
from weaktrace.core.primitives_collective import REDUCTIONS, axis_index_p, collective_p
from weaktrace.core.primitives_collective import axis_size as _bound_size
from weaktrace.core.trace import current
from weaktrace.ir.values import Literal

EXPORTS: dict[str, Callable[..., Any]] = {}


def _reduction(fn: str) -> Callable[..., Any]:
    def reduce(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
        b = current()
        if b is None:
            return getattr(_jlax, fn)(to_jax(x), axis_name, axis_index_groups=axis_index_groups)

        def one(leaf: Any) -> Any:
            t = operand(leaf, b)
            params = {"fn": fn, "axis_name": axis_name, "axis_index_groups": axis_index_groups,
                      "batched": t.atom.__class__ is not Literal}  # fmt: skip
            return b.emit_n(collective_p, (t,), params)[0]

        return jax.tree_util.tree_map(one, x)

    reduce.__name__ = reduce.__qualname__ = fn
    reduce.__doc__ = f"``jax.lax.{fn}`` over an axis bound by ``jax.vmap(axis_name=...)``."
    reduce.__module__ = __name__
    EXPORTS[fn] = reduce
    return reduce


psum, pmean, pmax, pmin = (_reduction(fn) for fn in REDUCTIONS)


def axis_index(axis_name: Any) -> Any:
    """``jax.lax.axis_index``: this element's position along the named axis (int32)."""
    b = current()
    if b is None:
        return _jlax.axis_index(axis_name)
    return b.emit_n(axis_index_p, (), {"axis_name": axis_name})[0]


def axis_size(axis_name: Any) -> int:
    """``jax.lax.axis_size``: the named axis' size, a Python int (as in jax)."""
    if current() is None:
        return _jlax.axis_size(axis_name)
    return _bound_size(axis_name, "axis_size")


EXPORTS.update(axis_index=axis_index, axis_size=axis_size)
