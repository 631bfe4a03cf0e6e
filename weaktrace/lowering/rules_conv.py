"""Lowering rule of ``weaktrace.core.primitives_conv`` onto ``jax.lax``."""

from __future__ import annotations

from typing import Any

from jax import lax

from weaktrace.core.primitives_conv import conv_general_dilated_p
from weaktrace.lowering.rules import _np, _register


def _conv(lhs: Any, rhs: Any, *, window_strides: Any, padding: Any, lhs_dilation: Any,
          rhs_dilation: Any, preferred_element_type: Any,
          precision: Any = None) -> Any:  # fmt: skip
    return lax.conv_general_dilated(
        lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, precision=precision,
        preferred_element_type=None if preferred_element_type is None
        else _np(preferred_element_type),
    )  # fmt: skip


_register(conv_general_dilated_p, _conv)
