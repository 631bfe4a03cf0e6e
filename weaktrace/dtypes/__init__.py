"""Dtypes, promotion lattices and policies: the layer everything else stands on."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from weaktrace.dtypes import draw, jax_rules  # noqa: F401  (draw registers Lattice.draw)
from weaktrace.dtypes.jax_lattices import jax_lattice
from weaktrace.dtypes.lattice import Lattice, LatticeReport, Violation
from weaktrace.dtypes.policies import JaxPolicy, Policy, as_policy, policy
from weaktrace.dtypes.registry import (
    ALL,
    WEAK_KINDS,
    DType,
    as_dtype,
    by_name,
    from_numpy,
    weak_complex,
    weak_float,
    weak_int,
)
from weaktrace.dtypes.table import DOC_DTYPES, render

__all__ = [
    "ALL",
    "DOC_DTYPES",
    "WEAK_KINDS",
    "DType",
    "JaxPolicy",
    "Lattice",
    "LatticeReport",
    "Policy",
    "Violation",
    "as_dtype",
    "as_policy",
    "by_name",
    "from_numpy",
    "jax_lattice",
    "policy",
    "promote_types",
    "promotion_table",
    "result_type",
    "weak_complex",
    "weak_float",
    "weak_int",
]

# Bound once: the two functions below are on the hot path of user code.
_PROMOTION_STATE = jax_rules.PROMOTION_STATE
_X64_STATE = jax_rules.X64_STATE
_PROMOTE_CACHE = jax_rules.PROMOTE_CACHE
_STANDARD_ROWS = _PROMOTE_CACHE["standard"]
# jax's mode value is a str enum; its STANDARD member lets the hot path compare by
# identity. Were it a plain str, the identity test fails and the dict lookup decides.
_STANDARD = type(_PROMOTION_STATE.value)("standard")
_result = jax_rules.result
_promote = jax_rules.promote


def promote_types(a: Any, b: Any, policy: Policy | str | None = None) -> np.dtype:
    """The dtype a binary operation on `a` and `b` computes in: ``jnp.promote_types``.

    Python ``int``/``float``/``complex`` are the weak kinds. By default follows
    jax's ``jax_numpy_dtype_promotion`` and ``jax_enable_x64`` (including their
    context managers); pass ``policy=weaktrace.policy("jax", strict=True)`` to
    override.

    >>> promote_types("int8", "uint8"), promote_types("float16", float)
    (dtype('int16'), dtype('float16'))
    """
    # `policy` is positional-or-keyword on purpose: CPython 3.11 specializes calls
    # with plain defaults, not keyword-only ones, and this is the hottest call we have.
    if policy is None:
        try:
            mode = _PROMOTION_STATE.value
            return (_STANDARD_ROWS if mode is _STANDARD else _PROMOTE_CACHE[mode])[a][b]
        except (KeyError, TypeError):
            return _promote(a, b, _PROMOTION_STATE.value == "strict", _X64_STATE.value)
    return as_policy(policy).promote_types(a, b)


def result_type(
    *args: Any, return_weak_type_flag: bool = False, policy: Policy | str | None = None
) -> Any:
    """The dtype of an operation on `args`: ``jnp.result_type`` (and, with
    ``return_weak_type_flag=True``, ``jax.dtypes.result_type``'s weak flag).

    >>> import numpy as np
    >>> result_type(np.int8(1), 2), result_type(2, 3.0, return_weak_type_flag=True)[1]
    (dtype('int8'), True)
    """
    if policy is None:
        mode = _PROMOTION_STATE.value
        dt, weak = _result(args, mode is not _STANDARD and mode == "strict", _X64_STATE.value)
        return (dt, weak) if return_weak_type_flag else dt
    return as_policy(policy).result_type(*args, return_weak_type_flag=return_weak_type_flag)


def promotion_table(
    policy: Policy | str | None = None,
    *,
    dtypes: Iterable[Any] | None = None,
    format: str = "text",
) -> str:
    """The binary promotion table of a policy, as aligned text or as markdown.

    Rows are the first operand, columns the second; ``-`` marks pairs that do not
    promote. Weak kinds print as ``i*``, ``f*``, ``c*``.

    >>> print(promotion_table("jax", dtypes=["bool", "int8", "int"]))
         bool  i8  i*
    bool bool  i8  i*
    i8   i8    i8  i8
    i*   i*    i8  i*
    """
    return render(as_policy(policy).table(dtypes), format)
