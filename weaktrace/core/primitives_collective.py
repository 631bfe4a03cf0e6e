"""Collectives over a named axis (``psum``, ``pmean``, ``pmax``, ``pmin``, ``all_gather``,
``ppermute``, ``psum_scatter``, ``all_to_all``, ``pshuffle``, ``pswapaxes``,
``axis_index``), inside a ``jax.vmap(..., axis_name=...)`` called in a trace.

The axes bound while a vmapped function is traced are kept here (`bound_axis`), with
their sizes, so that a collective over an unbound name raises jax's NameError when it is
recorded, and ``axis_size`` is the Python int jax gives. Output types are jax's: the
collective is evaluated abstractly by jax under vmaps of the operand.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator
from typing import Any

import jax

from weaktrace.dtypes import registry
from weaktrace.ir.values import AbstractValue, Primitive, abstract_eval_rules

_AXES: contextvars.ContextVar[dict[Any, int] | None] = contextvars.ContextVar(
    "weaktrace_bound_axes", default=None
)


@contextlib.contextmanager
def bound_axis(name: Any, size: int) -> Iterator[None]:
    token = _AXES.set({**(_AXES.get() or {}), name: size})
    try:
        yield
    finally:
        _AXES.reset(token)


def bound_axes() -> dict[Any, int]:
    """The axes bound now (outermost first), with their sizes."""
    return dict(_AXES.get() or {})


# The primitive whose name jax's NameError gives for an unbound axis (pmean, pmax and pmin
# bind psum's); the others, and axis_size, raise jax's short form.
_NAMED_IN_ERROR = {
    **dict.fromkeys(("psum", "pmean", "pmax", "pmin"), "psum"),
    **dict.fromkeys(("ppermute", "pshuffle"), "ppermute"),
    "axis_index": "axis_index",
}


def axis_size(name: Any, fn: str) -> int:
    """The size of a bound axis (one name, or a tuple of names: their product)."""
    names = name if isinstance(name, tuple | list) else (name,)
    axes, size = _AXES.get() or {}, 1
    for n in names:
        if n not in axes:
            prim = _NAMED_IN_ERROR.get(fn)
            if prim is None:
                raise NameError(f"unbound axis name: {n}")
            raise NameError(
                f"Found an unbound axis name: {n}. To fix this, please call {prim} under "
                "`jax.shard_map`."
            )
        size *= axes[n]
    return size


def freeze(value: Any) -> Any:
    """A collective's option as a hashable parameter (``perm`` lists become tuples)."""
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def _bound(axis_name: Any, fn: str) -> tuple[tuple[Any, int], ...]:
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    return tuple((n, axis_size(n, fn)) for n in names)


@functools.lru_cache(maxsize=1024)
def _out_type(fn: str, aval: AbstractValue, x64: bool, batched: bool, axis_name: Any,
              axes: tuple[tuple[Any, int], ...], options: tuple[tuple[str, Any], ...]
              ) -> AbstractValue:  # fmt: skip
    """jax's output type for `fn` of a value of type `aval`, under vmaps that bind the
    collective's axes with their sizes (all_gather's shape depends on them; tracing runs
    under the trace's x64 mode, which is part of the key). A constant is not batched:
    jax's rule for it differs (psum of 2.0 stays weak)."""

    def collective(m: Any, c: Any) -> Any:
        return getattr(jax.lax, fn)(m if batched else c, axis_name, **dict(options))

    vmapped = collective
    for name, _ in reversed(axes):
        vmapped = jax.vmap(vmapped, in_axes=(0, None), axis_name=name)
    sizes = tuple(size for _, size in axes)
    mapped = jax.ShapeDtypeStruct((*sizes, *aval[0]) if batched else sizes, aval.dtype,
                                  weak_type=aval[2])  # fmt: skip
    spec = jax.ShapeDtypeStruct(aval[0], aval.dtype, weak_type=aval[2])
    out = jax.eval_shape(vmapped, mapped, spec)
    dt = registry.from_numpy(out.dtype)
    assert dt is not None
    return AbstractValue.make(tuple(out.shape[len(sizes) :]), dt, bool(out.weak_type))


def _collective(x: AbstractValue, *, fn: str, axis_name: Any, options: tuple[Any, ...],
                batched: bool) -> list[AbstractValue]:  # fmt: skip
    axes = _bound(axis_name, fn)
    x64 = bool(jax.config.read("jax_enable_x64"))
    return [_out_type(fn, x, x64, batched, axis_name, axes, options)]


def _axis_index(*, axis_name: Any) -> list[AbstractValue]:
    axis_size(axis_name, "axis_index")
    return [AbstractValue.make((), registry.by_name("int32"), False)]


collective_p = Primitive("collective", multiple_results=True)
abstract_eval_rules[collective_p] = _collective
axis_index_p = Primitive("axis_index", multiple_results=True)
abstract_eval_rules[axis_index_p] = _axis_index
