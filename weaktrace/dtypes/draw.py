"""Hasse diagrams of promotion lattices, with matplotlib (no system binary needed).

Nodes are placed in layers by their longest chain from a minimal node, spread across
each layer in an order that keeps related dtypes together; weak kinds are drawn
dashed and italic. `draw_lattice` returns the matplotlib Figure.
"""

from __future__ import annotations

from typing import Any

from weaktrace.dtypes import registry
from weaktrace.dtypes.lattice import Lattice, register_drawer

_FILL = {"b": "#e8e8e8", "u": "#dbe9f6", "i": "#c6dbef", "f": "#fdd0a2", "c": "#d9c2e3"}


def _layers(lattice: Lattice[Any]) -> dict[Any, int]:
    """Longest path from below: a node sits one layer above its highest cover."""
    covers = list(lattice.hasse_edges())
    below: dict[Any, list[Any]] = {n: [] for n in lattice.nodes}
    for lo, hi in covers:
        below[hi].append(lo)
    depth: dict[Any, int] = {}

    def level(n: Any) -> int:
        if n not in depth:
            depth[n] = 1 + max((level(m) for m in below[n]), default=-1)
        return depth[n]

    for n in lattice.nodes:
        level(n)
    return depth


def _label(node: Any) -> tuple[str, str, bool]:
    d = registry._BY_NAME.get(node) if isinstance(node, str) else None
    if d is None:
        return str(node), "#ffffff", False
    return d.short, _FILL.get(d.kind, "#ffffff"), d.weak


def draw_lattice(lattice: Lattice[Any], *, title: str | None = None, figsize: Any = None) -> Any:
    """Draw the lattice's covering relation, bottom to top; returns a matplotlib Figure.

    >>> from weaktrace.dtypes import jax_lattice
    >>> fig = draw_lattice(jax_lattice())
    >>> fig.axes[0].get_title()
    'jax-standard-x64'
    """
    import matplotlib.pyplot as plt  # headless machines get the Agg backend by default

    depth = _layers(lattice)
    rows: dict[int, list[Any]] = {}
    for n in lattice.nodes:  # registry order keeps kinds and widths together
        rows.setdefault(depth[n], []).append(n)
    # Each label gets room for its own length, so long names (f8_e4m3b11fnuz) never touch.
    span = {y: [len(_label(n)[0]) + 4 for n in nodes] for y, nodes in rows.items()}
    width = float(max(sum(v) for v in span.values()))
    fig, ax = plt.subplots(figsize=figsize or (max(8.0, 0.13 * width), 1.1 * (len(rows) + 1)))
    pos = {}
    for y, nodes in rows.items():
        total, cursor = sum(span[y]), 0.0
        for n, w in zip(nodes, span[y], strict=True):
            pos[n] = ((width - total) / 2 + cursor + w / 2, float(y))
            cursor += w
    for lo, hi in lattice.hasse_edges():
        (x0, y0), (x1, y1) = pos[lo], pos[hi]
        ax.annotate("", xy=(x1, y1 - 0.18), xytext=(x0, y0 + 0.18),
                    arrowprops={"arrowstyle": "-|>", "color": "#777777", "lw": 0.8,
                                "shrinkA": 0, "shrinkB": 0})  # fmt: skip
    for n, (px, py) in pos.items():
        text, fill, weak = _label(n)
        ax.text(px, py, text, ha="center", va="center", fontsize=10,
                fontstyle="italic" if weak else "normal",
                bbox={"boxstyle": "round,pad=0.3", "fc": fill,
                      "ec": "#333333", "ls": "--" if weak else "-", "lw": 1.0})  # fmt: skip
    ax.set_xlim(-0.2, width + 0.2)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.axis("off")
    ax.set_title(title or lattice.name)
    fig.tight_layout()
    return fig


register_drawer(draw_lattice)
