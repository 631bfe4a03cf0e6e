"""Indexing (``x[...]``) with NumPy's rules, as jax.numpy implements them.

Basic indices (ints, slices with any step, None, Ellipsis) become slice / rev /
squeeze / expand_dims; a traced integer scalar becomes a dynamic_slice. Advanced
indices (integer arrays, and with them any integer scalars) broadcast together and
become one gather; the placement rule is NumPy's: when the advanced indices are
adjacent their broadcast dimensions replace them in place, otherwise they go first.
Boolean masks must be concrete (their result shape depends on their values).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from weaktrace.core.primitives import GatherDims
from weaktrace.errors import ConcretizationError, InvalidInputError
from weaktrace.numpy._core import (
    Context,
    P,
    Tracer,
    bind,
    broadcast_to,
    context,
    convert,
    lit,
    operand,
    result_shape,
)

_LIST_INDEX = (
    "using a list as an index is not allowed (as in JAX): write "
    "x[weaktrace.numpy.asarray(seq)] for integer-array indexing, or x[tuple(seq)] "
    "to index several dimensions"
)


def getitem(x: Tracer, key: Any) -> Any:
    """``x[key]`` for a tracer."""
    b = context(x)
    x = operand(x, b)
    items = _expand(b, x.aval.ndim, key if isinstance(key, tuple) else (key,))
    if any(_is_array(k) for k in items):
        return _advanced(b, x, items)
    return _basic(b, x, items)


def _is_array(k: Any) -> bool:
    return k.__class__ is Tracer and k.aval.ndim > 0


def _expand(b: Context, ndim: int, items: tuple[Any, ...]) -> list[Any]:
    """Check each index, turn arrays into tracers and concrete boolean masks into the
    integer arrays of their nonzero positions, and replace Ellipsis by full slices."""
    out: list[Any] = []
    for k in items:
        if k is None or k is Ellipsis or isinstance(k, slice):
            out.append(k)
        elif isinstance(k, list):
            raise InvalidInputError(_LIST_INDEX)
        elif isinstance(k, bool | np.bool_):
            raise IndexError(
                f"a boolean scalar index ({k!r}) is not supported; use None to add an axis "
                "or weaktrace.numpy.where to select"
            )
        elif isinstance(k, np.ndarray) and k.dtype == bool:
            out += [operand(i, b) for i in np.nonzero(k)]  # a concrete mask: its positions
        elif k.__class__ is Tracer or isinstance(k, np.ndarray | np.generic) or hasattr(k, "aval"):
            t = operand(k, b)
            if t.aval[1].kind == "b":
                raise ConcretizationError(
                    f"a boolean mask index {t.aval} needs concrete values: the shape of the "
                    "result depends on how many entries are True. Use "
                    "weaktrace.numpy.where(mask, x, fill) to keep the shape."
                )
            if t.aval[1].kind not in "iu":
                raise IndexError(f"indices must be integers, got dtype {t.aval.dtype}")
            out.append(t)
        else:
            try:
                out.append(operator.index(k))
            except TypeError:
                raise IndexError(
                    f"only integers, slices (`:`), ellipsis (`...`), None and integer arrays "
                    f"are valid indices, got {k!r}"
                ) from None
    ellipses = [i for i, k in enumerate(out) if k is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for k in out if k is not None and k is not Ellipsis)
    if consumed > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed"
        )
    fill = [slice(None)] * (ndim - consumed)
    if ellipses:
        at = ellipses[0]
        return out[:at] + fill + out[at + 1 :]
    return out + fill


def _basic(b: Context, x: Tracer, items: list[Any]) -> Tracer:
    """Ints, slices, None and traced integer scalars."""
    x, squeeze, dynamic = _slices(b, x, items, advanced=False)
    for d, idx in dynamic:
        x = _dynamic_index(b, x, d, idx)
    if squeeze:
        x = bind(P.squeeze_p, x, dimensions=tuple(squeeze))
    new_axes = []
    out_dim = 0
    for k in items:
        if k is None:
            new_axes.append(out_dim)
        if k is None or isinstance(k, slice):
            out_dim += 1
    if new_axes:
        x = bind(P.expand_dims_p, x, dimensions=tuple(new_axes))
    return x


def _slices(b: Context, x: Tracer, items: list[Any], advanced: bool) -> Any:
    """Apply the static slices (and static ints, outside advanced mode) with one slice
    (plus rev for negative steps). Returns the new tracer, the dims to squeeze and
    the traced scalar indices (dim, tracer) left to apply."""
    shape = x.aval.shape
    starts, limits, strides, reverse, squeeze, dynamic = [], [], [], [], [], []
    dim = 0
    for k in items:
        if k is None:
            continue
        n = shape[dim]
        lo, hi, st = 0, n, 1
        if isinstance(k, slice):
            lo, hi, st = k.indices(n)
            if st < 0:  # slice the same elements forwards, then reverse them
                count = len(range(lo, hi, st))
                first = lo + st * (count - 1) if count else 0
                lo, hi, st = first, (lo + 1 if count else 0), -st
                reverse.append(dim)
            hi = max(lo, hi)
        elif isinstance(k, int) and not advanced:
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {dim} with size {n}")
            lo, hi = k % n, k % n + 1
            squeeze.append(dim)
        elif k.__class__ is Tracer and not advanced:  # a traced integer scalar
            dynamic.append((dim, k))
            squeeze.append(dim)
        starts.append(lo)
        limits.append(hi)
        strides.append(st)
        dim += 1
    if (tuple(starts), tuple(limits)) != ((0,) * len(shape), shape) or any(s != 1 for s in strides):
        steps = None if all(s == 1 for s in strides) else tuple(strides)
        x = bind(P.slice_p, x, start_indices=tuple(starts), limit_indices=tuple(limits),
                 strides=steps)  # fmt: skip
    if reverse:
        x = bind(P.rev_p, x, dimensions=tuple(reverse))
    return x, squeeze, dynamic


def _normalized(b: Context, idx: Tracer, n: int) -> Tracer:
    """Negative indices count from the end: where(i < 0, i + n, i)."""
    if idx.aval[1].kind == "u":
        return idx
    dt = idx.aval[1]
    zero, size = lit(b, 0, dt), lit(b, n, dt)
    if idx.aval.shape:
        zero, size = (broadcast_to(v, idx.aval.shape) for v in (zero, size))
    neg = bind(P.lt_p, idx, zero)
    return bind(P.select_n_p, neg, idx, bind(P.add_p, idx, size))


def _dynamic_index(b: Context, x: Tracer, d: int, idx: Tracer) -> Tracer:
    idx = _normalized(b, idx, x.aval.shape[d])
    zero = lit(b, 0, idx.aval[1])
    starts = tuple(idx if i == d else zero for i in range(x.aval.ndim))
    sizes = tuple(1 if i == d else s for i, s in enumerate(x.aval.shape))
    return b.emit(P.dynamic_slice_p, (x, *starts), {"slice_sizes": sizes})


def _advanced(b: Context, x: Tracer, items: list[Any]) -> Tracer:
    """Integer arrays (and the integer scalars with them) as one gather."""
    x, _, _ = _slices(b, x, items, advanced=True)
    entries = [k for k in items if k is not None]  # one per dimension of x
    adv_dims = [d for d, k in enumerate(entries) if not isinstance(k, slice)]
    positions = [i for i, k in enumerate(items) if k is not None and not isinstance(k, slice)]
    contiguous = positions == list(range(positions[0], positions[0] + len(positions)))
    shape = x.aval.shape
    index_dt = b.policy.defaults["i"]
    idxs = []
    for d in adv_dims:
        k = entries[d]
        t = lit(b, k, index_dt) if isinstance(k, int) else convert(b, k, index_dt, False)
        idxs.append(_normalized(b, t, shape[d]))
    batch = result_shape("indexing", [t.aval.shape for t in idxs])
    stacked = [
        bind(P.expand_dims_p, broadcast_to(t, batch), dimensions=(len(batch),)) for t in idxs
    ]
    indices = (
        stacked[0]
        if len(stacked) == 1
        else b.emit(P.concatenate_p, tuple(stacked), {"dimension": len(batch)})
    )
    # Output layout: the kept dims of x in order, the batch block at `at`.
    kept = [d for d in range(len(shape)) if d not in adv_dims]
    at = sum(1 for i in range(positions[0]) if isinstance(items[i], slice)) if contiguous else 0
    rank = len(kept) + len(batch)
    offset = tuple(p for p in range(rank) if not at <= p < at + len(batch))
    dnums = GatherDims(offset, tuple(adv_dims), tuple(adv_dims))
    sizes = tuple(1 if d in adv_dims else s for d, s in enumerate(shape))
    out = b.emit(P.gather_p, (x, indices),
                 {"dimension_numbers": dnums, "slice_sizes": sizes, "mode": "clip"})  # fmt: skip
    return _new_axes(out, items, at, len(batch), contiguous)


def _new_axes(out: Tracer, items: list[Any], at: int, nbatch: int, contiguous: bool) -> Tracer:
    """Insert the unit dims of None entries where NumPy puts them."""
    positions = []
    dim = 0 if contiguous else nbatch
    block_done = not contiguous
    for k in items:
        if k is None:
            positions.append(dim)
            dim += 1
        elif isinstance(k, slice):
            dim += 1
        elif not block_done:
            dim += nbatch
            block_done = True
    del at
    if not positions:
        return out
    return bind(P.expand_dims_p, out, dimensions=tuple(positions))
