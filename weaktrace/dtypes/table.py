"""Binary promotion tables, rendered as text or markdown.

The default JAX table lists every dtype the lattice knows; `DOC_DTYPES` are the 18
of the table in JAX's documentation (seed 003), weak kinds shown as i*, f*, c*.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from weaktrace.dtypes import registry
from weaktrace.dtypes.policy import Policy, as_policy
from weaktrace.errors import PolicyError

DOC_DTYPES: tuple[str, ...] = (
    "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
    "int", "float", "complex",
)  # fmt: skip

NO_PROMOTION = "-"


def table_cells(
    policy: Policy | str | None = None, dtypes: Iterable[Any] | None = None
) -> tuple[list[registry.DType], dict[tuple[registry.DType, registry.DType], Any]]:
    """The dtypes (rows = columns) and the join of every ordered pair (None: no promotion)."""
    pol = as_policy(policy)
    lattice = pol.lattice
    if lattice is None:
        raise PolicyError(f"{pol!r} is not a lattice; it has no promotion table here")
    if dtypes is None:
        names = [d for d in registry.ALL if d.name in lattice.nodes]
    else:
        names = [
            registry.by_name(d) if isinstance(d, str) else registry.as_dtype(d) for d in dtypes
        ]
    cells = {}
    for a in names:
        for b in names:
            out = lattice.join(a.name, b.name)
            cells[a, b] = None if out is None else registry.by_name(out)
    return names, cells


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
    names, cells = table_cells(policy, dtypes)
    header = ["", *(d.short for d in names)]
    rows = [
        [a.short, *(NO_PROMOTION if cells[a, b] is None else cells[a, b].short for b in names)]
        for a in names
    ]
    if format in ("md", "markdown"):
        lines = ["| " + " | ".join(r) + " |" for r in [header, *rows]]
        lines.insert(1, "|" + "---|" * len(header))
        return "\n".join(lines)
    if format != "text":
        raise PolicyError(f"unknown table format {format!r}; use 'text' or 'markdown'")
    width = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        " ".join(c.ljust(w) for c, w in zip(r, width, strict=True)).rstrip()
        for r in [header, *rows]
    )
