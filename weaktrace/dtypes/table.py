"""Binary promotion tables, rendered as text, markdown or HTML.

The default JAX table lists every dtype the lattice knows; `DOC_DTYPES` are the 18
of the table in JAX's documentation (seed 003), weak kinds shown as i*, f*, c*.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Iterable
from typing import Any

from weaktrace.dtypes import registry
from weaktrace.errors import PolicyError, TypePromotionError

DOC_DTYPES: tuple[str, ...] = (
    "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
    "int", "float", "complex",
)  # fmt: skip

NO_PROMOTION = "-"


def table_cells(
    pol: Any, dtypes: Iterable[Any] | None = None
) -> tuple[list[registry.DType], dict[tuple[registry.DType, registry.DType], Any]]:
    """The dtypes (rows = columns) and the result of every ordered pair (None: no
    promotion) of a Policy. Lattice policies give joins (weak kinds included); the
    others give their promote_types."""
    lattice = pol.lattice
    if dtypes is None:
        names = [d for d in registry.ALL if (d.name in lattice.nodes if lattice else _common(d))]
    else:
        names = [
            registry.by_name(d) if isinstance(d, str) else registry.as_dtype(d) for d in dtypes
        ]
    cells = {(a, b): _cell(pol, lattice, a, b) for a in names for b in names}
    return names, cells


def _common(d: registry.DType) -> bool:
    """Dtypes shown for a policy that is not a lattice: the everyday ones."""
    return d.name in DOC_DTYPES and not d.weak


def _cell(pol: Any, lattice: Any, a: registry.DType, b: registry.DType) -> Any:
    if lattice is not None:
        out = lattice.join(a.name, b.name)
        return None if out is None else registry.by_name(out)
    try:
        return registry.as_dtype(pol.promote_types(a.numpy or a, b.numpy or b))
    except (TypePromotionError, TypeError, ValueError):
        return None


@dataclasses.dataclass(frozen=True, repr=False)
class PromotionTable:
    """A binary promotion table: ``str`` gives aligned text, ``to_markdown()`` markdown,
    and notebooks show an HTML table. Rows are the first operand; ``-``: no promotion."""

    name: str
    dtypes: tuple[registry.DType, ...]
    cells: dict[tuple[registry.DType, registry.DType], Any]

    def __getitem__(self, pair: tuple[Any, Any]) -> Any:
        a, b = (registry.by_name(x) if isinstance(x, str) else registry.as_dtype(x) for x in pair)
        return self.cells[a, b]

    def rows(self) -> list[list[str]]:
        header = ["", *(d.short for d in self.dtypes)]
        body = [[a.short, *(_short(self.cells[a, b]) for b in self.dtypes)] for a in self.dtypes]
        return [header, *body]

    def __str__(self) -> str:
        rows = self.rows()
        width = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        return "\n".join(
            " ".join(c.ljust(w) for c, w in zip(r, width, strict=True)).rstrip() for r in rows
        )

    def __repr__(self) -> str:
        return str(self)

    def to_markdown(self) -> str:
        rows = self.rows()
        lines = ["| " + " | ".join(r) + " |" for r in rows]
        lines.insert(1, "|" + "---|" * len(rows[0]))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = self.rows()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
        body = "".join(
            f"<tr><th>{html.escape(r[0])}</th>{''.join(_html_cell(c) for c in r[1:])}</tr>"
            for r in rows[1:]
        )
        return f"<table><caption>{html.escape(self.name)}</caption><tr>{head}</tr>{body}</table>"


def _short(cell: Any) -> str:
    return NO_PROMOTION if cell is None else str(cell.short)


def _html_cell(c: str) -> str:
    if c == NO_PROMOTION:
        return f'<td style="color:#999">{NO_PROMOTION}</td>'
    style = ' style="font-style:italic"' if c.endswith("*") else ""
    return f"<td{style}>{html.escape(c)}</td>"


def table(pol: Any, dtypes: Iterable[Any] | None = None) -> PromotionTable:
    """The promotion table of a Policy as an object (text, markdown, HTML)."""
    names, cells = table_cells(pol, dtypes)
    return PromotionTable(repr(pol), tuple(names), cells)


def render(t: PromotionTable, format: str = "text") -> str:
    """A table as aligned text or as markdown."""
    if format not in ("text", "md", "markdown"):
        raise PolicyError(f"unknown table format {format!r}; use 'text' or 'markdown'")
    return t.to_markdown() if format in ("md", "markdown") else str(t)
