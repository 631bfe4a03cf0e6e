"""``weaktrace.compare``: where promotion policies disagree on one function.

The function is traced once per policy; the report aligns outputs by position and
equations by the user's source line (the dtype each line produces), and marks every
row where dtypes or weak flags differ. It prints as a text table and shows as an HTML
table in notebooks.
"""

from __future__ import annotations

import dataclasses
import html
import linecache
from collections.abc import Callable, Sequence
from typing import Any

import jax

from weaktrace.dtypes import Policy, as_policy
from weaktrace.errors import WeaktraceError


@dataclasses.dataclass(frozen=True)
class Row:
    """One output, or one source line: what each policy gives there."""

    label: str
    code: str
    cells: tuple[str, ...]  # one per policy; "" where that policy has nothing here

    @property
    def differs(self) -> bool:
        return len(set(self.cells)) > 1


@dataclasses.dataclass(frozen=True, repr=False)
class Comparison:
    """The report `compare` returns."""

    policies: tuple[str, ...]
    outputs: tuple[Row, ...]
    lines: tuple[Row, ...]
    errors: dict[str, str]

    @property
    def differences(self) -> list[Row]:
        """Rows (outputs first, then source lines) where the policies disagree."""
        return [r for r in (*self.outputs, *self.lines) if r.differs]

    def __str__(self) -> str:
        head = ["", "code", *self.policies, ""]
        rows = [head]
        for section, items in (("output", self.outputs), ("line", self.lines)):
            for r in items:
                rows.append(
                    [
                        f"{section} {r.label}",
                        r.code[:40],
                        *r.cells,
                        "<- differs" if r.differs else "",
                    ]
                )
        widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
        text = [
            " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in rows
        ]
        text.insert(1, "-+-".join("-" * w for w in widths))
        for name, err in self.errors.items():
            text.append(f"{name}: raised {err}")
        n = len(self.differences)
        text.append(f"{n} row(s) differ" if n else "no differences")
        return "\n".join(text)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        cols = "".join(f"<th>{html.escape(p)}</th>" for p in self.policies)
        body = []
        for section, items in (("output", self.outputs), ("line", self.lines)):
            for r in items:
                style = ' style="background:#fde2e1"' if r.differs else ""
                cells = "".join(f"<td><code>{html.escape(c)}</code></td>" for c in r.cells)
                body.append(
                    f"<tr{style}><td>{section} {html.escape(r.label)}</td>"
                    f"<td><code>{html.escape(r.code)}</code></td>{cells}</tr>"
                )
        errors = "".join(
            f"<p><b>{html.escape(k)}</b> raised {html.escape(v)}</p>"
            for k, v in self.errors.items()
        )
        return (
            f"<table><thead><tr><th></th><th>code</th>{cols}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{errors}"
        )


def compare(
    fun: Callable[..., Any],
    *args: Any,
    policies: Sequence[Policy | str] = ("jax", "numpy", "torch"),
    **kwargs: Any,
) -> Comparison:
    """Trace `fun` under each policy and report where dtypes or weak flags differ.

    >>> import numpy as np, weaktrace as wt
    >>> report = wt.compare(lambda x: x * 0.5, np.ones(3, np.int8), policies=["jax", "numpy"])
    >>> [r.cells for r in report.outputs]
    [('~f32[3]', 'f64[3]')]
    """
    from weaktrace.api import trace  # api imports this module's callers, not the reverse

    resolved = [as_policy(p) for p in policies]
    names = tuple(_policy_name(p) for p in resolved)
    traced: list[Any] = []
    errors: dict[str, str] = {}
    for name, pol in zip(names, resolved, strict=True):
        try:
            traced.append(trace(fun, policy=pol).trace(*args, **kwargs))
        except (WeaktraceError, OverflowError, TypeError, ValueError) as err:
            errors[name] = f"{type(err).__name__}: {err}"
            traced.append(None)
    return Comparison(names, _outputs(traced), _lines(traced), errors)


def _policy_name(p: Policy) -> str:
    """'jax', 'jax strict', 'jax x64', 'numpy', ...: the name and any pinned option."""
    options = [k for k in ("strict", "x64") if getattr(p, k, None) is True and p.name == "jax"]
    return " ".join([p.name, *options])


def _outputs(traced: list[Any]) -> tuple[Row, ...]:
    per_policy = [
        None if t is None else jax.tree_util.tree_flatten_with_path(t.out_avals)[0] for t in traced
    ]
    count = max((len(x) for x in per_policy if x is not None), default=0)
    rows = []
    for i in range(count):
        cells, label = [], str(i)
        for leaves in per_policy:
            if leaves is None or i >= len(leaves):
                cells.append("error" if leaves is None else "")
                continue
            path, aval = leaves[i]
            label = jax.tree_util.keystr(path) or label
            cells.append(str(aval))
        rows.append(Row(label, "", tuple(cells)))
    return tuple(rows)


def _lines(traced: list[Any]) -> tuple[Row, ...]:
    """Per source line, the type of the last equation recorded there (the value the
    line produces), for each policy."""
    order: dict[tuple[str, int], None] = {}
    per_policy: list[dict[tuple[str, int], str]] = []
    for t in traced:
        seen: dict[tuple[str, int], str] = {}
        for eqn in () if t is None else t.program.equations:
            if eqn.source_info is None:
                continue
            key = (eqn.source_info.file, eqn.source_info.line)
            order.setdefault(key)
            seen[key] = str(eqn.outputs[0].aval)
        per_policy.append(seen)
    return tuple(
        Row(
            f"{file.rsplit('/', 1)[-1]}:{line}",
            linecache.getline(file, line).strip(),
            tuple(p.get((file, line), "") for p in per_policy),
        )
        for file, line in order
    )
