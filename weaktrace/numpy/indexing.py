"""Indexing (``x[...]``) with NumPy's rules, as jax.numpy implements them.

Basic indices (ints, slices with any step, None, Ellipsis) become slice / rev /
squeeze / expand_dims; a traced integer scalar becomes a dynamic_slice. Advanced
indices (integer arrays, and with them any integer scalars) broadcast together and
become one gather; the placement rule is NumPy's: when the advanced indices are
adjacent in the key as written (an Ellipsis or a None between them separates them,
even when the Ellipsis stands for no dimension) their broadcast dimensions replace
them in place, otherwise they go first.

Boolean masks must be concrete (numpy arrays or Python lists: their result shape
depends on their values); they become the integer arrays of their True positions. A
scalar boolean (``x[True]``, ``x[np.array(False)]``) adds a unit axis where it stands,
indexed by an advanced index of length 1 or 0, as in NumPy. (jax differs here in two
ways that look unintended: it leaves scalar booleans out when judging adjacency, and
after a None it puts their unit axis elsewhere or fails; we keep NumPy's rule.)

Out-of-bounds indices are clamped into range, as jax does for retrieval (static ints
included, unless jax's ``jax_check_static_indices`` flag is on); an integer index into
an axis of size 0 raises.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core.primitives import GatherDims
from weaktrace.dtypes import registry
from weaktrace.errors import (
    EmptyAxisGatherError,
    IndexingError,
    InvalidIndexError,
    InvalidInputError,
    NonConcreteBooleanIndexError,
    SliceStepError,
)
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
from weaktrace.numpy.creation import asarray

__all__ = ["getitem"]


_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean arrays "
    "are valid indices"
)
_LIST_INDEX = (
    "using a list as an index is not allowed (as in JAX): write "
    "x[weaktrace.numpy.asarray(seq)] for integer-array indexing, or x[tuple(seq)] "
    "to index several dimensions"
)
_INT32 = registry.by_name("int32")
_INT64 = registry.by_name("int64")

# An entry of a parsed key: [kind, value, axes of x it indexes]. Kinds: "none",
# "ellipsis", "slice", "int" (a static Python int), "array" (an integer tracer, 0-d
# included), "bool" (a static scalar boolean), "mask" (a concrete numpy boolean array),
# "traced mask" (a boolean tracer: an error once reached).
Entry = list[Any]


def getitem(x: Tracer, key: Any) -> Any:
    """``x[key]`` for a tracer."""
    b = context(x)
    x = operand(x, b)
    entries = _parse(b, x.aval.shape, key)
    if getattr(jax.config, "jax_check_static_indices", False):  # jax's opt-in bounds check
        _check_static_bounds(x.aval.shape, entries)
    entries = _expand_masks(b, x.aval.shape, entries)
    # Adjacency of the advanced indices is judged on the key as written (after masks
    # became arrays), before the Ellipsis is expanded.
    adv = [i for i, e in enumerate(entries) if e[0] in ("int", "array", "bool")]
    contiguous = adv == list(range(adv[0], adv[0] + len(adv))) if adv else True
    entries = _expand_ellipsis(entries, x.aval.ndim)
    _check_slices(entries)
    if any(e[0] == "bool" or (e[0] == "array" and e[1].aval.ndim) for e in entries):
        return _advanced(b, x, entries, contiguous)
    return _basic(b, x, entries)


# -- parsing ---------------------------------------------------------------------------
def _parse(b: Context, shape: tuple[int, ...], key: Any) -> list[Entry]:
    """Classify every index, check the count, and give each the axes it indexes."""
    if isinstance(key, tuple):
        items = key
    elif isinstance(key, str):
        raise InvalidIndexError(f"{_VALID}; got the string {key!r}")
    elif isinstance(key, Sequence):
        raise InvalidInputError(_LIST_INDEX)
    else:
        items = (key,)
    entries = [_classify(b, k) for k in items]
    consumed = [_consumes(e) for e in entries]
    ellipses = [i for i, e in enumerate(entries) if e[0] == "ellipsis"]
    if len(ellipses) > 1:
        raise IndexingError("an index can only have a single ellipsis ('...')")
    ndim, total = len(shape), sum(consumed)
    if total > ndim:
        raise IndexingError(
            f"too many indices for array: array is {ndim}-dimensional, but {total} were indexed"
        )
    if ellipses:
        consumed[ellipses[0]] = ndim - total
    dim = 0
    for e, n in zip(entries, consumed, strict=True):
        e.append(tuple(range(dim, dim + n)))
        dim += n
    return entries


def _check_static_bounds(shape: tuple[int, ...], entries: list[Entry]) -> None:
    for e in entries:
        if e[0] == "int":
            (axis,) = e[2]
            n = shape[axis]
            if not 0 <= (e[1] + n if e[1] < 0 else e[1]) < n:
                raise IndexingError(
                    f"index {e[1]} is out of bounds for axis {axis} with size {n} "
                    "(jax_check_static_indices is on; without it indices are clamped)"
                )


def _consumes(e: Entry) -> int:
    kind = e[0]
    if kind in ("none", "ellipsis", "bool"):
        return 0
    if kind in ("mask", "traced mask"):
        return int(np.ndim(e[1]) if kind == "mask" else e[1].aval.ndim)
    return 1


def _classify(b: Context, k: Any) -> Entry:
    if k is None:
        return ["none", None]
    if k is Ellipsis:
        return ["ellipsis", None]
    if isinstance(k, slice):
        return ["slice", k]
    if isinstance(k, bool | np.bool_):
        return ["bool", bool(k)]
    if isinstance(k, int | np.integer):
        return ["int", operator.index(k)]
    if isinstance(k, str):
        raise InvalidIndexError(f"{_VALID}; got the string {k!r}")
    if isinstance(k, float | complex | np.generic):
        raise InvalidIndexError(f"{_VALID}; got {k!r} ({np.dtype(type(k)).name})")
    if isinstance(k, list | tuple):  # a sequence inside the key: an array
        return _sequence(b, k)
    if k.__class__ is Tracer or isinstance(k, np.ndarray | jax.Array):
        if isinstance(k, np.ndarray) and k.dtype == bool:
            return ["mask", k]
        t = operand(k, b)
        if t.aval[1].kind == "b":
            return ["traced mask", t]
        if t.aval[1].kind not in "iu":
            raise InvalidIndexError(f"{_VALID}; got an array of dtype {t.aval.dtype}")
        return ["array", t]
    raise IndexingError(f"{_VALID}; got {k!r} ({type(k).__name__})")


def _sequence(b: Context, seq: list[Any] | tuple[Any, ...]) -> Entry:
    """A list or tuple inside a tuple key is an array (as in NumPy and JAX)."""
    if not seq:
        return ["array", operand(np.zeros((0,), np.int32), b)]
    if _holds_tracer(seq):  # e.g. x[[i, 0],] with i traced: stacked by asarray
        t = asarray(seq)
        if t.aval[1].kind not in "biu":
            raise InvalidIndexError(f"{_VALID}; got a sequence of dtype {t.aval.dtype}")
        return ["traced mask" if t.aval[1].kind == "b" else "array", t]
    try:
        a = np.asarray(seq)
    except (ValueError, TypeError):
        a = None
    if a is None or a.dtype.kind not in "biu":
        raise InvalidIndexError(f"{_VALID}; a sequence inside the key must hold integers or "
                                f"booleans only, got {seq!r}")  # fmt: skip
    if a.dtype == bool:
        return ["mask", a]
    return ["array", operand(a, b)]


def _holds_tracer(seq: Any) -> bool:
    return any(
        v.__class__ is Tracer or (isinstance(v, list | tuple) and _holds_tracer(v)) for v in seq
    )


def _expand_masks(b: Context, shape: tuple[int, ...], entries: list[Entry]) -> list[Entry]:
    """Boolean masks become the integer arrays of their True positions (one per axis
    they cover); 0-d masks become scalar booleans."""
    out: list[Entry] = []
    for pos, e in enumerate(entries):
        if e[0] == "traced mask":
            raise NonConcreteBooleanIndexError(
                f"a boolean mask index {e[1].aval} needs concrete values: the shape of the "
                "result depends on how many entries are True. Use "
                "weaktrace.numpy.where(mask, x, fill) to keep the shape, or pass the mask "
                "as a numpy array."
            )
        if e[0] != "mask":
            out.append(e)
            continue
        mask, axes = e[1], e[2]
        if mask.ndim == 0:
            out.append(["bool", bool(mask), ()])
            continue
        want = tuple(shape[a] for a in axes)
        if any(m not in (0, n) for m, n in zip(mask.shape, want, strict=True)):
            raise IndexingError(
                f"boolean index did not match the shape of the indexed array in index {pos}: "
                f"got {mask.shape}, expected {want}"
            )
        for positions, a in zip(np.nonzero(mask), axes, strict=True):
            out.append(["array", operand(positions, b), (a,)])
    return out


def _expand_ellipsis(entries: list[Entry], ndim: int) -> list[Entry]:
    """The Ellipsis (and the implicit trailing dims) as full slices, one per axis."""
    out: list[Entry] = []
    dim = 0
    for e in entries:
        dim += len(e[2])
        if e[0] == "ellipsis":
            out += [["slice", slice(None), (a,)] for a in e[2]]
        else:
            out.append(e)
    return out + [["slice", slice(None), (a,)] for a in range(dim, ndim)]


def _check_slices(entries: list[Entry]) -> None:
    for pos, e in enumerate(entries):
        if e[0] != "slice":
            continue
        for v in (e[1].start, e[1].stop, e[1].step):
            if v is None or isinstance(v, int | np.integer):
                continue
            if v.__class__ is Tracer or isinstance(v, jax.Array):
                raise IndexingError(
                    f"slice entries must be static integers, got {e[1]} at position {pos}: "
                    "a traced start or stop would make the result's shape data-dependent. "
                    "Use weaktrace.lax.dynamic_slice with a static size."
                )
            raise InvalidIndexError(f"slice entries must be integers or None, got {e[1]}")
        if e[1].step is not None and operator.index(e[1].step) == 0:
            raise SliceStepError("slice step cannot be zero")


def _expand(b: Context, ndim: int, key: Any) -> list[Any]:
    """The key as a flat list for ``x.at[...]`` (``indexed_update``): None, slices
    (Ellipsis expanded), static ints and integer tracers, concrete masks replaced by
    the integer arrays of their True positions. Checked as ``x[key]`` checks it."""
    shape = (0,) * ndim  # only the count of dimensions matters for parsing
    entries = _parse(b, shape, key)
    out: list[Any] = []
    for e in entries:
        if e[0] == "mask":
            if np.ndim(e[1]) == 0:
                raise IndexingError(
                    "a scalar boolean index is not supported in x.at[...]; "
                    "use weaktrace.numpy.where to select"
                )
            out += [operand(p, b) for p in np.nonzero(e[1])]
            continue
        if e[0] == "traced mask":
            _expand_masks(b, shape, [e])  # raises NonConcreteBooleanIndexError
        if e[0] == "bool":
            raise IndexingError(
                "a scalar boolean index is not supported in x.at[...]; "
                "use weaktrace.numpy.where to select"
            )
        out.append(e)
    entries = _expand_ellipsis([e if isinstance(e, list) else ["array", e, (0,)] for e in out],
                               ndim)  # fmt: skip
    _check_slices(entries)
    return [None if e[0] == "none" else e[1] for e in entries]


# -- lowering --------------------------------------------------------------------------
def _index_dtype(shape: tuple[int, ...]) -> Any:
    """The dtype indices are computed in: int32 unless an axis needs more (as jax)."""
    return _INT32 if all(n < 2**31 for n in shape) else _INT64


def _start(b: Context, e: Entry, n: int, dt: Any) -> Tracer:
    """An integer index as a start position: negative values count from the end
    (unsigned ones are never negative), converted to the index dtype. Out-of-range
    values are left to slice / gather, which clamp them."""
    if e[0] == "int":
        return lit(b, e[1] + n if e[1] < 0 else e[1], dt)
    t = e[1]
    unsigned = t.aval[1].kind == "u"
    t = convert(b, t, dt, False)
    return t if unsigned else _normalized(b, t, n)


def _normalized(b: Context, idx: Tracer, n: int) -> Tracer:
    """where(i < 0, i + n, i)."""
    dt = idx.aval[1]
    zero, size = lit(b, 0, dt), lit(b, n, dt)
    if idx.aval.shape:
        zero, size = (broadcast_to(v, idx.aval.shape) for v in (zero, size))
    neg = bind(P.lt_p, idx, zero)
    return bind(P.select_n_p, neg, idx, bind(P.add_p, idx, size))


def _slices(x: Tracer, entries: list[Entry], ints: bool) -> tuple[Tracer, list[int]]:
    """Apply the static slices (and, if `ints`, the static ints) with one slice (plus
    rev for negative steps). Returns the new tracer and the dims the ints index."""
    shape = x.aval.shape
    starts, limits, strides, reverse, squeeze = [], [], [], [], []
    for e in entries:
        if e[0] == "none":
            continue
        (d,) = e[2]
        n = shape[d]
        lo, hi, st = 0, n, 1
        if e[0] == "slice":
            lo, hi, st = e[1].indices(n)
            if st < 0:  # slice the same elements forwards, then reverse them
                count = len(range(lo, hi, st))
                first = lo + st * (count - 1) if count else 0
                lo, hi, st = first, (lo + 1 if count else 0), -st
                reverse.append(d)
            hi = max(lo, hi)
        elif e[0] == "int" and ints:
            i = min(max(e[1] + n if e[1] < 0 else e[1], 0), n - 1)  # clamped, as jax
            lo, hi = i, i + 1
            squeeze.append(d)
        starts.append(lo)
        limits.append(hi)
        strides.append(st)
    if (tuple(starts), tuple(limits)) != ((0,) * len(shape), shape) or any(s != 1 for s in strides):
        steps = None if all(s == 1 for s in strides) else tuple(strides)
        x = bind(P.slice_p, x, start_indices=tuple(starts), limit_indices=tuple(limits),
                 strides=steps)  # fmt: skip
    if reverse:
        x = bind(P.rev_p, x, dimensions=tuple(reverse))
    return x, squeeze


def _basic(b: Context, x: Tracer, entries: list[Entry]) -> Tracer:
    """Ints, slices, None and integer scalars (traced: a dynamic_slice each)."""
    shape = x.aval.shape
    for e in entries:
        if e[0] in ("int", "array") and shape[e[2][0]] == 0:
            raise IndexingError(f"index is out of bounds for axis {e[2][0]} with size 0")
    dt = _index_dtype(shape)
    # An out-of-bounds static int is a dynamic_slice at that index, as in jax (a static
    # slice, clamped, gave the same value, but checkify's index check never saw it).
    entries = [
        ["array", lit(b, e[1], dt), e[2]]
        if e[0] == "int" and not -shape[e[2][0]] <= e[1] < shape[e[2][0]]
        else e
        for e in entries
    ]
    x, squeeze = _slices(x, entries, ints=True)
    for e in entries:
        if e[0] == "array":  # a 0-d integer tracer
            (d,) = e[2]
            # dynamic_slice (lax.dynamic_slice) counts a negative start from the end
            # itself and clamps: the index goes in as it is, in the index dtype.
            zero = lit(b, 0, dt)
            start = convert(b, e[1], dt, False)
            starts = tuple(start if i == d else zero for i in range(x.aval.ndim))
            sizes = tuple(1 if i == d else s for i, s in enumerate(x.aval.shape))
            x = b.emit(P.dynamic_slice_p, (x, *starts), {"slice_sizes": sizes})
            squeeze.append(d)
    if squeeze:
        x = bind(P.squeeze_p, x, dimensions=tuple(sorted(squeeze)))
    new_axes = []
    out_dim = 0
    for e in entries:
        if e[0] == "none":
            new_axes.append(out_dim)
        if e[0] in ("none", "slice"):
            out_dim += 1
    if new_axes:
        x = bind(P.expand_dims_p, x, dimensions=tuple(new_axes))
    return x


def _advanced(b: Context, x: Tracer, entries: list[Entry], contiguous: bool) -> Tracer:
    """Integer arrays (and the integer scalars with them) as one gather."""
    # A scalar boolean adds a unit axis where it stands, indexed by arange(0 or 1).
    renumbered: list[Entry] = []
    unit_axes = []
    dim = 0
    for e in entries:
        if e[0] == "none":
            renumbered.append(e)
            continue
        if e[0] == "bool":
            unit_axes.append(dim)
            e = ["array", operand(np.arange(int(e[1]), dtype=np.int32), b)]
        renumbered.append([e[0], e[1], (dim,)])
        dim += 1
    entries = renumbered
    if unit_axes:
        x = bind(P.expand_dims_p, x, dimensions=tuple(unit_axes))
    x, _ = _slices(x, entries, ints=False)
    shape = x.aval.shape
    dt = _index_dtype(shape)
    advanced = [e for e in entries if e[0] in ("int", "array")]
    adv_dims = [e[2][0] for e in advanced]
    idxs = [_start(b, e, shape[e[2][0]], dt) for e in advanced]
    batch = result_shape("indexing", [t.aval.shape for t in idxs])
    # Output layout: the kept dims of x in order, the batch block at `at`.
    kept = [d for d in range(len(shape)) if d not in adv_dims]
    at = 0
    if contiguous:
        first = next(i for i, e in enumerate(entries) if e[0] in ("int", "array"))
        at = sum(1 for e in entries[:first] if e[0] == "slice")
    rank = len(kept) + len(batch)
    offset = tuple(p for p in range(rank) if not at <= p < at + len(batch))
    out_shape = tuple(shape[d] for d in kept[:at]) + batch + tuple(shape[d] for d in kept[at:])
    nones = _none_positions(entries, len(batch), contiguous)
    if 0 in out_shape:  # nothing to gather (jax returns zeros without a gather, too)
        final = list(out_shape)
        for p in nones:
            final.insert(p, 1)
        return broadcast_to(lit(b, 0, x.aval[1], x.aval[2]), tuple(final))
    empty = [d for d in adv_dims if shape[d] == 0]
    if empty:
        raise EmptyAxisGatherError(
            f"index is out of bounds for axis {empty[0]} with size 0: an integer-array index "
            "cannot select elements from an empty axis"
        )
    stacked = [
        bind(P.expand_dims_p, broadcast_to(t, batch), dimensions=(len(batch),)) for t in idxs
    ]
    indices = (
        stacked[0]
        if len(stacked) == 1
        else b.emit(P.concatenate_p, tuple(stacked), {"dimension": len(batch)})
    )
    dnums = GatherDims(offset, tuple(adv_dims), tuple(adv_dims))
    sizes = tuple(1 if d in adv_dims else s for d, s in enumerate(shape))
    out = b.emit(P.gather_p, (x, indices),
                 {"dimension_numbers": dnums, "slice_sizes": sizes, "mode": "clip"})  # fmt: skip
    if nones:
        out = bind(P.expand_dims_p, out, dimensions=tuple(nones))
    return out


def _none_positions(entries: list[Entry], nbatch: int, contiguous: bool) -> list[int]:
    """Where NumPy puts the unit dims of None entries: counted through the key, the
    batch block standing at the first advanced index (or first, if not adjacent)."""
    positions = []
    dim = 0 if contiguous else nbatch
    block_done = not contiguous
    for e in entries:
        if e[0] == "none":
            positions.append(dim)
            dim += 1
        elif e[0] == "slice":
            dim += 1
        elif not block_done:
            dim += nbatch
            block_done = True
    return positions
