"""jax.lax's validation of gather and scatter dimension numbers, in jax's order and words.

jax checks a gather's or scatter's dimension numbers one rule at a time (after XLA's
``ShapeInference::InferGatherShape`` / ``InferScatterShape``) and raises ``TypeError`` at
the first rule broken; programs and tests match those messages. These checks follow
jax 0.10.2's ``_gather_shape_rule`` / ``_scatter_shape_rule``: the same rules in the same
order, worded the same way, so the first broken rule is the one jax names. They raise
``ShapeError`` (a ``TypeError``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from weaktrace.errors import ShapeError

Shape = tuple[int, ...]


def _sorted(dims: Sequence[int], op: str, name: str) -> None:
    if any(b < a for a, b in itertools.pairwise(dims)):
        raise ShapeError(f"{name} in {op} op must be sorted; got {dims}")


def _unique(dims: Sequence[int], op: str, name: str) -> None:
    if len(set(dims)) != len(dims):
        raise ShapeError(f"{name} in {op} op must not repeat; got: {dims}.")


def _bad_dim(dim: int, rank: int, op: str, name: str) -> ShapeError:
    return ShapeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); got: {dim}.")


def _in_range(dims: Sequence[int], rank: int, op: str, name: str) -> None:
    for d in dims:
        if not 0 <= d < rank:
            raise _bad_dim(d, rank, op, name)


def _sorted_in_range(dims: Sequence[int], rank: int, op: str, name: str) -> None:
    """The range check of dims already known to be sorted: only the ends are looked at."""
    if len(dims) and dims[0] < 0:
        raise _bad_dim(dims[0], rank, op, name)
    if len(dims) and dims[-1] >= rank:
        raise _bad_dim(dims[-1], rank, op, name)


def _disjoint(a: Sequence[int], b: Sequence[int], op: str, na: str, nb: str) -> None:
    if set(a) & set(b):
        raise ShapeError(f"{na} and {nb} in {op} op must be disjoint; got: {a} and {b}.")


def _check_dims(dims: Sequence[int], rank: int, op: str, name: str, *, sort_first: bool) -> None:
    """Sorted, unique and in range; jax tests sort before repeats except for the operand
    batching dims of a gather, and the range last."""
    if sort_first:
        _sorted(dims, op, name)
        _unique(dims, op, name)
    else:
        _unique(dims, op, name)
        _sorted(dims, op, name)
    _sorted_in_range(dims, rank, op, name)


def _index_vector_dim(indices: Shape, op: str) -> int:
    ivd = len(indices) - 1
    if ivd < 0:
        raise ShapeError(
            f"{op.capitalize()} index leaf dimension must be within [0, rank(indices) + 1). "
            f"rank(indices) is {len(indices)} and {op} index leaf dimension is {ivd}."
        )
    return ivd


def _batching(
    x: Shape, indices: Shape, ivd: int, op: str, op_dims: Sequence[int], idx_dims: Sequence[int],
    idx_name: str,
) -> Shape:  # fmt: skip
    """The checks shared by gather and scatter on the batching dims of the indices; the
    operand's batch shape."""
    _unique(idx_dims, op, idx_name)
    _in_range(idx_dims, len(indices), op, idx_name)
    Op = op.capitalize()
    if ivd in idx_dims:
        raise ShapeError(
            f"{Op} op cannot have the index vector dimension as a batching dimension; "
            f"got {idx_dims}."
        )
    if len(op_dims) != len(idx_dims):
        sep = "" if op == "gather" else " "  # jax's gather message lacks this space
        raise ShapeError(
            f"{Op} op requires equal numbers of operand_batching_dims and {idx_name}, "
            f"got {op_dims} and{sep}{idx_dims}."
        )
    x_batch = tuple(x[d] for d in op_dims)
    idx_batch = tuple(indices[d] for d in idx_dims)
    if x_batch != idx_batch:
        raise ShapeError(
            f"{Op} op requires operand batching dimensions and indices batching dimensions "
            f"to have the same shape, got {x_batch} and {idx_batch}."
        )
    return x_batch


def check_gather(x: Shape, indices: Shape, dn: Any, slice_sizes: Sequence[int]) -> None:
    """``lax.gather``'s dimension numbers against the operand and indices shapes."""
    offset, collapsed = dn.offset_dims, dn.collapsed_slice_dims
    start_map, op_batch = dn.start_index_map, dn.operand_batching_dims
    ivd = _index_vector_dim(indices, "gather")
    _sorted(offset, "gather", "offset_dims")
    _unique(offset, "gather", "offset_dims")
    out_rank = len(offset) + len(indices) - 1
    for i, d in enumerate(offset):
        if not 0 <= d < out_rank:
            raise ShapeError(
                f"Offset dimension {i} in gather op is out of bounds; got {d}, but should "
                f"have been in [0, {out_rank})"
            )
    if len(start_map) != indices[ivd]:
        raise ShapeError(
            f"Gather op has {len(start_map)} elements in start_index_map and the bound of "
            f"dimension index_vector_dim={ivd} of indices is {indices[ivd]}. These two "
            "numbers must be equal."
        )
    for i, d in enumerate(start_map):
        if not 0 <= d < len(x):
            raise ShapeError(f"Invalid start_index_map; domain is [0, {len(x)}), got: {i}->{d}.")
    _unique(start_map, "gather", "start_index_map")
    _check_dims(collapsed, len(x), "gather", "collapsed_slice_dims", sort_first=True)
    _check_dims(op_batch, len(x), "gather", "operand_batching_dims", sort_first=False)
    _disjoint(collapsed, op_batch, "gather", "collapsed_slice_dims", "operand_batching_dims")
    _disjoint(start_map, op_batch, "gather", "start_index_map", "operand_batching_dims")
    idx_batch = dn.start_indices_batching_dims
    _batching(x, indices, ivd, "gather", op_batch, idx_batch, "start_indices_batching_dims")
    _check_slice_sizes(x, indices, offset, collapsed, op_batch, slice_sizes)


def _check_slice_sizes(
    x: Shape, indices: Shape, offset: Sequence[int], collapsed: Sequence[int],
    op_batch: Sequence[int], sizes: Sequence[int],
) -> None:  # fmt: skip
    if len(x) != len(sizes):
        raise ShapeError(
            "Gather op must have one slice size for every input dimension; got: "
            f"len(slice_sizes)={len(sizes)}, input_shape.rank={len(x)}"
        )
    if len(sizes) != len(offset) + len(collapsed) + len(op_batch):
        raise ShapeError(
            "All components of the offset index in a gather op must either be a offset "
            f"dimension or explicitly collapsed/batching; got len(slice_sizes)={len(sizes)}, "
            f"output_slice_sizes={offset}, collapsed_slice_dims={collapsed}, "
            f"operand_batching_dims={op_batch}."
        )
    if 0 not in indices:  # no start index: any slice size will do
        for i, (s, n) in enumerate(zip(sizes, x, strict=True)):
            if not 0 <= s <= n:
                raise ShapeError(
                    f"Slice size at index {i} in gather op is out of range, must be within "
                    f"[0, {n} + 1), got {s}."
                )
    for i, d in enumerate(collapsed):
        if sizes[d] != 1:
            raise ShapeError(
                "Gather op can only collapse slice dims with bound 1, but bound is "
                f"{sizes[d]} for index {d} at position {i}."
            )
    for i, d in enumerate(op_batch):
        if sizes[d] > 1:
            raise ShapeError(
                "Gather op can only have operand batching dims with bound 0/1, but bound is "
                f"{sizes[d]} for index {d} at position {i}."
            )


def check_scatter(x: Shape, indices: Shape, updates: Shape, dn: Any) -> None:
    """``lax.scatter``'s dimension numbers against the operand, indices and updates."""
    window, inserted = dn.update_window_dims, dn.inserted_window_dims
    to_operand, op_batch = dn.scatter_dims_to_operand_dims, dn.operand_batching_dims
    ivd = _index_vector_dim(indices, "scatter")
    rank = len(indices) - 1 + len(window)
    if len(updates) != rank:
        raise ShapeError(f"Updates tensor must be of rank {rank}; got {len(updates)}.")
    _check_dims(window, len(updates), "scatter", "update_window_dims", sort_first=True)
    _check_dims(inserted, len(x), "scatter", "inserted_window_dims", sort_first=True)
    _check_dims(op_batch, len(x), "scatter", "operand_batching_dims", sort_first=True)
    _disjoint(inserted, op_batch, "scatter", "inserted_window_dims", "operand_batching_dims")
    _disjoint(
        to_operand, op_batch, "scatter", "scatter_dims_to_operand_dims", "operand_batching_dims"
    )
    idx_batch = dn.scatter_indices_batching_dims
    x_batch = _batching(
        x, indices, ivd, "scatter", op_batch, idx_batch, "scatter_indices_batching_dims"
    )
    # The updates' non-window dims are the indices' dims before index_vector_dim, in order.
    scatter_dims = [d for d in range(len(updates)) if d not in set(window)]
    u_batch = tuple(updates[scatter_dims[d]] for d in idx_batch)
    if x_batch != u_batch:
        raise ShapeError(
            "Scatter op requires operand batching dimensions and updates batching dimensions "
            f"to have the same shape, got {x_batch} and {u_batch}."
        )
    _check_scatter_window(x, indices, updates, dn, ivd, scatter_dims)


def _check_scatter_window(
    x: Shape, indices: Shape, updates: Shape, dn: Any, ivd: int, scatter_dims: list[int]
) -> None:
    window, inserted = dn.update_window_dims, dn.inserted_window_dims
    to_operand, op_batch = dn.scatter_dims_to_operand_dims, dn.operand_batching_dims
    size = len(window) + len(inserted) + len(op_batch)
    if len(x) != size:
        raise ShapeError(
            f"Scatter op has window of size {size}; doesn't match operand of rank {len(x)}."
        )
    if len(to_operand) != indices[ivd]:
        raise ShapeError(
            f"Scatter op has {len(to_operand)} elements in scatter_dims_to_operand_dims and "
            f"the bound of dimension index_vector_dim={ivd} of indices is {indices[ivd]}. "
            "These two numbers must be equal"
        )
    for i, d in enumerate(to_operand):
        if not 0 <= d < len(x):
            raise ShapeError(
                f"Invalid scatter_dims_to_operand_dims mapping; domain is [0, {len(x)}), "
                f"got: {i}->{d}."
            )
    _unique(to_operand, "scatter", "scatter_dims_to_operand_dims")
    skipped = {*inserted, *op_batch}
    bounds = [n for d, n in enumerate(x) if d not in skipped]
    for d, n in zip(window, bounds, strict=False):
        if updates[d] > n:
            raise ShapeError(
                "Bounds of the window dimensions of updates must not exceed the bounds of the "
                f"corresponding dimensions of operand. For dimension {d}, updates bound is "
                f"{updates[d]}, operand bound is {n}."
            )
    for j, d in enumerate(scatter_dims):
        if updates[d] != indices[j]:
            raise ShapeError(
                "Bounds of the scatter dimensions of updates must be the same as the bounds "
                "of the corresponding dimensions of scatter indices. For scatter dimension "
                f"{d}, updates bound is {updates[d]}, indices bound is {indices[j]}."
            )
