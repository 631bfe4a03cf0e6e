"""Lowering of ``weaktrace.core.primitives_lax_linalg``: the jax.lax.linalg function
the equation names, with its params."""

from __future__ import annotations

from typing import Any

from jax import tree_util
from jax.lax import linalg as lax_linalg

from weaktrace.core.primitives_lax_linalg import lax_linalg_p
from weaktrace.lowering.rules import _register


def _lax_linalg(*xs: Any, fn: str, params: tuple[tuple[str, Any], ...]) -> list[Any]:
    kwargs = {k: v for k, v in params if not k.startswith("_")}  # "_": for the shape rule only
    return tree_util.tree_leaves(getattr(lax_linalg, fn)(*xs, **kwargs))


_register(lax_linalg_p, _lax_linalg)
