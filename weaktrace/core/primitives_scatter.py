"""Indexed updates and reads (``x.at[...]``): the scatter family, scatter_apply and a
gather with a fill value, named after ``jax.lax``.

Types follow lax: a scatter's result is its operand's type (weak flag included), the
updates must share the operand's dtype; add/sub/mul need numbers (not bool).
"""

from __future__ import annotations

from typing import Any

from weaktrace.core.primitives import ANY, NUMERIC, GatherDims, _def, _require, gather_p
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue, Primitive, Program, abstract_eval_rules

INTEGER = "ui"


class ScatterDims(tuple[tuple[int, ...], ...]):
    """``lax.ScatterDimensionNumbers`` as a plain hashable record: update_window_dims,
    inserted_window_dims, scatter_dims_to_operand_dims (no batching dims)."""

    __slots__ = ()

    def __new__(
        cls,
        update_window_dims: tuple[int, ...],
        inserted_window_dims: tuple[int, ...],
        scatter_dims_to_operand_dims: tuple[int, ...],
    ) -> ScatterDims:
        return tuple.__new__(
            cls, (update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims)
        )

    update_window_dims = property(lambda self: self[0])
    inserted_window_dims = property(lambda self: self[1])
    scatter_dims_to_operand_dims = property(lambda self: self[2])

    def __repr__(self) -> str:
        return (
            f"ScatterDims(update_window_dims={self[0]}, inserted_window_dims={self[1]}, "
            f"scatter_dims_to_operand_dims={self[2]})"
        )


def _check_scatter(
    name: str,
    x: AbstractValue,
    indices: AbstractValue,
    update_shape: tuple[int, ...],
    dnums: ScatterDims,
) -> None:
    window, inserted, to_operand = dnums
    if indices[1].kind not in INTEGER:
        raise OperandTypeError(f"{name} indices must be integers, got {indices[1]}")
    if not indices.shape or indices.shape[-1] != len(to_operand):
        raise ShapeError(f"{name} indices {indices.shape} must end in {len(to_operand)}")
    if any(not 0 <= d < x.ndim for d in (*inserted, *to_operand)):
        raise ShapeError(f"{name} dimension numbers {dnums} do not fit shape {x.shape}")
    if len(window) + len(inserted) != x.ndim:
        raise ShapeError(
            f"{name} window dims {window} and inserted dims {inserted} must "
            f"cover the {x.ndim} dimensions of the operand"
        )
    batch = indices.shape[:-1]
    if len(update_shape) != len(batch) + len(window):
        raise ShapeError(
            f"{name} updates of shape {update_shape} do not fit indices {indices.shape} "
            f"with update_window_dims {window}"
        )
    sizes = [s for i, s in enumerate(x.shape) if i not in inserted]
    for d, n in zip(window, sizes, strict=True):
        if update_shape[d] > n:
            raise ShapeError(f"{name} update window {update_shape} exceeds operand {x.shape}")
    rest = [s for i, s in enumerate(update_shape) if i not in window]
    if tuple(rest) != tuple(batch):
        raise ShapeError(f"{name} update batch dims {rest} must match indices {batch}")


def _scatter(name: str, kinds: str) -> Primitive:
    def rule(
        x: AbstractValue,
        indices: AbstractValue,
        updates: AbstractValue,
        *,
        dimension_numbers: ScatterDims,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: str | None,
    ) -> list[AbstractValue]:
        _require(name, x, kinds, "a number (not bool)" if kinds == NUMERIC else "any dtype")
        if updates[1] is not x[1]:
            raise OperandTypeError(
                f"{name} requires the updates' dtype ({updates[1]}) to be the operand's "
                f"({x[1]}); convert them first"
            )
        _check_scatter(name, x, indices, updates.shape, dimension_numbers)
        return [x]

    return _def(name, rule)


scatter_p = _scatter("scatter", ANY)
scatter_add_p = _scatter("scatter_add", NUMERIC)
scatter_sub_p = _scatter("scatter_sub", NUMERIC)
scatter_mul_p = _scatter("scatter_mul", NUMERIC)
scatter_min_p = _scatter("scatter_min", ANY)
scatter_max_p = _scatter("scatter_max", ANY)


def _scatter_apply(
    x: AbstractValue,
    indices: AbstractValue,
    *,
    dimension_numbers: ScatterDims,
    update_shape: tuple[int, ...],
    program: Program,
    policy: Any,
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: str | None,
) -> list[AbstractValue]:
    """``lax.scatter_apply``: `program` (one scalar in, one out, x's dtype) is applied
    to every indexed element, once per occurrence of its index."""
    _check_scatter("scatter_apply", x, indices, update_shape, dimension_numbers)
    (out,) = (v.aval for v in program.outvars)
    if out[1] is not x[1] or out.shape != ():
        raise OperandTypeError(
            f"scatter_apply: the function must map a {x[1]} scalar to a {x[1]} scalar, "
            f"it returns {out}; convert inside the function, e.g. f(v).astype(v.dtype)"
        )
    return [x]


scatter_apply_p = _def("scatter_apply", _scatter_apply)


def _gather_fill(
    x: AbstractValue,
    indices: AbstractValue,
    *,
    dimension_numbers: GatherDims,
    slice_sizes: tuple[int, ...],
    fill_value: Any,
) -> list[AbstractValue]:
    """``lax.gather(mode="fill", fill_value=...)``: out-of-bounds windows read the fill."""
    return abstract_eval_rules[gather_p](
        x, indices, dimension_numbers=dimension_numbers, slice_sizes=slice_sizes, mode="fill"
    )


gather_fill_p = _def("gather_fill", _gather_fill)

SCATTERS = {
    "set": scatter_p,
    "add": scatter_add_p,
    "subtract": scatter_sub_p,
    "multiply": scatter_mul_p,
    "min": scatter_min_p,
    "max": scatter_max_p,
}
