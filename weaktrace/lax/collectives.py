"""``psum``, ``pmean``, ``pmax``, ``pmin``, ``all_gather``, ``ppermute``, ``pshuffle``,
``psum_scatter``, ``all_to_all``, ``pswapaxes``, ``axis_index`` and ``axis_size`` over an axis
named by ``jax.vmap(..., axis_name=...)`` (jax.lax's signatures). Inside a trace the
output types are jax's and an unbound name raises jax's NameError; outside one the
value is a jax value (jax's own vmap binds the axis) and jax.lax computes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
from jax import lax as _jlax

from weaktrace.core.operands import operand, to_jax
from weaktrace.core.primitives_collective import axis_index_p, collective_p, freeze
from weaktrace.core.primitives_collective import axis_size as _bound_size
from weaktrace.core.trace import current
from weaktrace.ir.values import Literal

EXPORTS: dict[str, Callable[..., Any]] = {}


def _apply(fn: str, x: Any, axis_name: Any, **options: Any) -> Any:
    """jax.lax's collective `fn` of every leaf of `x`: recorded inside a trace (output
    types from jax), computed by jax.lax outside one (jax's own vmap binds the axis)."""
    b = current()
    if b is None:
        return getattr(_jlax, fn)(to_jax(x), axis_name, **options)
    axis_name = freeze(axis_name)
    frozen = tuple((k, freeze(v)) for k, v in options.items())

    def one(leaf: Any) -> Any:
        t = operand(leaf, b)
        params = {"fn": fn, "axis_name": axis_name, "options": frozen,
                  "batched": t.atom.__class__ is not Literal}  # fmt: skip
        return b.emit_n(collective_p, (t,), params)[0]

    return jax.tree_util.tree_map(one, x)


def _export(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn.__doc__ = f"``jax.lax.{fn.__name__}`` over an axis bound by ``jax.vmap(axis_name=...)``."
    EXPORTS[fn.__name__] = fn
    return fn


@_export
def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    return _apply("psum", x, axis_name, axis_index_groups=axis_index_groups)


@_export
def pmean(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    return _apply("pmean", x, axis_name, axis_index_groups=axis_index_groups)


@_export
def pmax(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    return _apply("pmax", x, axis_name, axis_index_groups=axis_index_groups)


@_export
def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    return _apply("pmin", x, axis_name, axis_index_groups=axis_index_groups)


@_export
def all_gather(x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0,
               tiled: bool = False, to: str = "varying") -> Any:  # fmt: skip
    return _apply("all_gather", x, axis_name, axis_index_groups=axis_index_groups, axis=axis,
                  tiled=tiled, to=to)  # fmt: skip


@_export
def ppermute(x: Any, axis_name: Any, perm: Any) -> Any:
    return _apply("ppermute", x, axis_name, perm=perm)


@_export
def pshuffle(x: Any, axis_name: Any, perm: Any) -> Any:
    return _apply("pshuffle", x, axis_name, perm=perm)


@_export
def psum_scatter(x: Any, axis_name: Any, *, scatter_dimension: int = 0,
                 axis_index_groups: Any = None, tiled: bool = False) -> Any:  # fmt: skip
    return _apply("psum_scatter", x, axis_name, scatter_dimension=scatter_dimension,
                  axis_index_groups=axis_index_groups, tiled=tiled)  # fmt: skip


@_export
def all_to_all(x: Any, axis_name: Any, split_axis: int, concat_axis: int, *,
               axis_index_groups: Any = None, tiled: bool = False) -> Any:  # fmt: skip
    return _apply("all_to_all", x, axis_name, split_axis=split_axis, concat_axis=concat_axis,
                  axis_index_groups=axis_index_groups, tiled=tiled)  # fmt: skip


@_export
def pswapaxes(x: Any, axis_name: Any, axis: int, *, axis_index_groups: Any = None) -> Any:
    return _apply("pswapaxes", x, axis_name, axis=axis, axis_index_groups=axis_index_groups)


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
