"""Lowering of the indexed-update family (``weaktrace.core.primitives_scatter``) and
of ``bitcast_convert_type`` onto public ``jax.lax``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from jax import lax

from weaktrace.core import primitives_bitcast as B
from weaktrace.core import primitives_scatter as S
from weaktrace.ir.values import lowering_rules
from weaktrace.lowering.evaluate import program_function

_MODES = {
    None: None,
    "clip": lax.GatherScatterMode.CLIP,
    "fill": lax.GatherScatterMode.FILL_OR_DROP,
    "promise_in_bounds": lax.GatherScatterMode.PROMISE_IN_BOUNDS,
    "one_hot": lax.GatherScatterMode.ONE_HOT,
}


def _dnums(d: S.ScatterDims) -> lax.ScatterDimensionNumbers:
    return lax.ScatterDimensionNumbers(
        update_window_dims=d[0], inserted_window_dims=d[1], scatter_dims_to_operand_dims=d[2]
    )


def _scatter_rule(fn: Callable[..., Any]) -> Callable[..., Any]:
    def rule(
        x: Any,
        idx: Any,
        updates: Any,
        *,
        dimension_numbers: S.ScatterDims,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: str | None,
    ) -> Any:
        return fn(
            x,
            idx,
            updates,
            _dnums(dimension_numbers),
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=_MODES[mode],
        )

    return rule


for _prim, _fn in (
    (S.scatter_p, lax.scatter),
    (S.scatter_add_p, lax.scatter_add),
    (S.scatter_sub_p, lax.scatter_sub),
    (S.scatter_mul_p, lax.scatter_mul),
    (S.scatter_min_p, lax.scatter_min),
    (S.scatter_max_p, lax.scatter_max),
):
    lowering_rules[_prim] = _scatter_rule(_fn)


def _scatter_apply(
    x: Any,
    idx: Any,
    *,
    dimension_numbers: S.ScatterDims,
    update_shape: tuple[int, ...],
    program: Any,
    policy: Any,
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: str | None,
) -> Any:
    return lax.scatter_apply(
        x,
        idx,
        program_function(program, policy, "one"),
        _dnums(dimension_numbers),
        update_shape=update_shape,
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices,
        mode=_MODES[mode],
    )


lowering_rules[S.scatter_apply_p] = _scatter_apply


def _gather_fill(
    x: Any, idx: Any, *, dimension_numbers: Any, slice_sizes: Any, fill_value: Any
) -> Any:
    offset, collapsed, start_map = dimension_numbers
    dnums = lax.GatherDimensionNumbers(
        offset_dims=offset, collapsed_slice_dims=collapsed, start_index_map=start_map
    )
    return lax.gather(
        x, idx, dnums, slice_sizes, mode=lax.GatherScatterMode.FILL_OR_DROP, fill_value=fill_value
    )


lowering_rules[S.gather_fill_p] = _gather_fill
lowering_rules[B.bitcast_convert_type_p] = lambda x, *, new_dtype: lax.bitcast_convert_type(
    x, np.dtype(new_dtype.numpy)
)
