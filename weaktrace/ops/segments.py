"""``segment_sum``, ``segment_prod``, ``segment_max``, ``segment_min``: jax.ops'
segment reductions, as jax computes them (``jax._src.ops.scatter._segment_update``):
an output of ``num_segments`` rows filled with the reduction's identity in data's
dtype (strongly typed), updated by one scatter (``x.at[segment_ids].add(data)`` and
its siblings, negative ids not wrapped, mode fill-or-drop unless given). With
``bucket_size``, the rows of data go to ``ceil(n / bucket_size)`` buckets reduced
separately, then the buckets are reduced (sum / prod / max / min over axis 0) and
converted back to data's dtype.

``num_segments=None`` takes ``max(segment_ids) + 1``, which needs segment_ids' value:
eagerly it is read, inside a trace it is a ConcretizationError (jax raises its
ConcretizationTypeError under jit).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import weaktrace.numpy  # noqa: F401  (registers the functions N looks up)
from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context, operand
from weaktrace.core.trace import Tracer
from weaktrace.errors import ConcretizationError, OperandValueError
from weaktrace.numpy._core import N as wnp  # weaktrace.numpy's public functions
from weaktrace.numpy.indexed_update import update

EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.ops")


def _identity(op: str, dtype: np.dtype) -> Any:
    """jax's _get_identity: the value a segment without data holds."""
    if op == "add":
        return 0
    if op == "multiply":
        return 1
    if dtype == np.dtype(bool):
        return op == "min"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        # typed: a Python int beyond int32 would be refused with x64 off
        return np.asarray(info.max if op == "min" else info.min, dtype)[()]
    return float("inf") if op == "min" else float("-inf")


def _num_segments(num_segments: Any, ids: Tracer, name: str) -> int:
    if num_segments is None:
        if not ids.ctx.eager:
            raise ConcretizationError(
                f"{name}() with num_segments=None needs max(segment_ids) + 1, but segment_ids "
                f"is a tracer {ids.aval}: its value is not known while tracing. Pass "
                "num_segments (a Python int)."
            )
        num_segments = np.max(np.asarray(ids.concrete())) + 1
    if num_segments.__class__ is Tracer:
        raise ConcretizationError(
            f"{name}() `num_segments` argument must be a concrete int, got a tracer "
            f"{num_segments.aval}"
        )
    n = int(num_segments)
    if n < 0:
        raise OperandValueError("num_segments must be non-negative.")
    return n


def _segment(name: str, op: str, reducer: Callable[..., Any], data: Any, segment_ids: Any,
             num_segments: Any, indices_are_sorted: bool, unique_indices: bool,
             bucket_size: int | None, mode: Any, out_sharding: Any) -> Any:  # fmt: skip
    if out_sharding is not None:
        raise NotImplementedError(f"weaktrace.ops.{name}: out_sharding is not supported")
    ctx = context(data, segment_ids)
    x, ids = operand(data, ctx), operand(segment_ids, ctx)
    dtype = x.aval.dtype
    n = _num_segments(num_segments, ids, name)
    mode = "fill" if mode is None else mode
    kw = {"indices_are_sorted": indices_are_sorted, "unique_indices": unique_indices,
          "mode": mode, "normalize": False}  # fmt: skip
    rest = x.shape[1:]
    fill = _identity(op, dtype)
    if bucket_size is None:
        out = wnp.full((n, *rest), fill, dtype=dtype)
        return update(out, ids, x, op, **kw)
    buckets = math.ceil(ids.size / bucket_size)
    out = wnp.full((buckets, n, *rest), fill, dtype=dtype)
    which = wnp.arange(ids.shape[0]) // bucket_size
    out = update(out, (which, wnp.expand_dims(ids, 0)), x, op, **kw)
    return wnp.astype(reducer(out, axis=0), dtype)


def _make(name: str, op: str, reducer: Callable[..., Any], what: str) -> Callable[..., Any]:
    def fn(data: Any, segment_ids: Any, num_segments: int | None = None,
           indices_are_sorted: bool = False, unique_indices: bool = False,
           bucket_size: int | None = None, mode: Any = None,
           out_sharding: Any = None) -> Any:  # fmt: skip
        return _segment(name, op, reducer, data, segment_ids, num_segments,
                        indices_are_sorted, unique_indices, bucket_size, mode,
                        out_sharding)  # fmt: skip

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"``jax.ops.{name}``: the {what} of the rows of data that share a segment id "
        "(``segment_ids[i]`` is row i's segment); segments without rows hold the "
        "reduction's identity, ids outside ``[0, num_segments)`` are dropped (mode)."
    )
    return export(fn)


segment_sum = _make("segment_sum", "add", wnp.sum, "sum")
segment_prod = _make("segment_prod", "multiply", wnp.prod, "product")
segment_max = _make("segment_max", "max", wnp.max, "maximum")
segment_min = _make("segment_min", "min", wnp.min, "minimum")
