"""Collectives over a named axis (``psum``, ``pmean``, ``pmax``, ``pmin``,
``axis_index``), inside a ``jax.vmap(..., axis_name=...)`` called in a trace.

The axes bound while a vmapped function is traced are kept here (`bound_axis`), with
their sizes, so that a collective over an unbound name raises jax's NameError when it is
recorded, and ``axis_size`` is the Python int jax gives. Output types are jax's: the
collective is evaluated abstractly by jax under a vmap of the operand.
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
REDUCTIONS = ("psum", "pmean", "pmax", "pmin")


@contextlib.contextmanager
def bound_axis(name: Any, size: int) -> Iterator[None]:
    token = _AXES.set({**(_AXES.get() or {}), name: size})
    try:
        yield
    finally:
        _AXES.reset(token)


def axis_size(name: Any, fn: str) -> int:
    """The size of a bound axis (one name, or a tuple of names: their product)."""
    names = name if isinstance(name, tuple | list) else (name,)
    axes, size = _AXES.get() or {}, 1
    for n in names:
        if n not in axes:
            raise NameError(
                f"Found an unbound axis name: {n}. To fix this, please call {fn} under "
                "`jax.shard_map`."
            )
        size *= axes[n]
    return size


@functools.lru_cache(maxsize=1024)
def _reduced(fn: str, aval: AbstractValue, x64: bool, batched: bool) -> AbstractValue:
    """jax's output type for `fn` of a value of type `aval` under a vmap (tracing runs
    under the trace's x64 mode, which is part of the key). A constant is not batched:
    jax's rule for it differs (psum of 2.0 stays weak)."""
    spec = jax.ShapeDtypeStruct(aval[0], aval.dtype, weak_type=aval[2])
    mapped = jax.ShapeDtypeStruct((2, *aval[0]) if batched else (2,), aval.dtype)
    vmapped = jax.vmap(
        lambda m, c: getattr(jax.lax, fn)(m if batched else c, "w"),
        in_axes=(0, None),
        axis_name="w",
    )
    out = jax.eval_shape(
        vmapped, jax.ShapeDtypeStruct(mapped.shape, aval.dtype, weak_type=aval[2]), spec
    )
    dt = registry.from_numpy(out.dtype)
    assert dt is not None
    return AbstractValue.make(tuple(out.shape[1:]), dt, bool(out.weak_type))


def _collective(x: AbstractValue, *, fn: str, axis_name: Any, axis_index_groups: Any,
                batched: bool) -> list[AbstractValue]:  # fmt: skip
    axis_size(axis_name, fn)
    return [_reduced(fn, x, bool(jax.config.read("jax_enable_x64")), batched)]


def _axis_index(*, axis_name: Any) -> list[AbstractValue]:
    axis_size(axis_name, "axis_index")
    return [AbstractValue.make((), registry.by_name("int32"), False)]


collective_p = Primitive("collective", multiple_results=True)
abstract_eval_rules[collective_p] = _collective
axis_index_p = Primitive("axis_index", multiple_results=True)
abstract_eval_rules[axis_index_p] = _axis_index
