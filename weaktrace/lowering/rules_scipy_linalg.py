"""Lowering of ``weaktrace.core.primitives_scipy_linalg``: the jax.scipy.linalg
function the equation names, with its operands (positional, or by keyword) and its
static keyword arguments, so that values and derivatives are jax's own."""

from __future__ import annotations

import warnings
from typing import Any

import jax.scipy.linalg as jsl
from jax import tree_util

from weaktrace.core.primitives_scipy_linalg import scipy_linalg_p
from weaktrace.lowering.rules import _register


def _scipy_linalg(*xs: Any, fn: str, names: tuple[str | None, ...],
                  params: tuple[tuple[str, Any], ...]) -> list[Any]:  # fmt: skip
    args = [x for x, n in zip(xs, names, strict=True) if n is None]
    kwargs = {n: x for x, n in zip(xs, names, strict=True) if n is not None}
    kwargs.update((k, v) for k, v in params if not k.startswith("_") or k == "_lower")
    if fn == "cho_solve":  # jax takes the factor and its flag as a pair
        args = [(args[0], kwargs.pop("_lower")), args[1]]
    elif fn == "lu_solve":
        args = [(args[0], args[1]), args[2]]
    with warnings.catch_warnings():  # the mirror has warned already, where jax warns
        warnings.simplefilter("ignore", FutureWarning)
        out = getattr(jsl, fn)(*args, **kwargs)
    return tree_util.tree_leaves(out)


_register(scipy_linalg_p, _scipy_linalg)
