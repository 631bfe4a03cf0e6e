"""Findings and the report: text (``file:line: kind: message``), JSON and SARIF 2.1.0."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from weaktrace.ir.values import AbstractValue, Program

KINDS: dict[str, str] = {
    "implicit-promotion": "An operand's dtype was changed by implicit promotion",
    "x64-truncation": "A 64-bit input, constant or requested dtype silently became 32-bit",
    "weak-flip": "A state leaf comes back with another dtype or weak flag (the next call "
    "recompiles)",
    "carry-change": "A loop carry or branch output whose dtype or weak flag the body changes",
    "literal-overflow": "A Python int literal outside the range of the dtype it is combined with",
}

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Finding:
    """One problem at the user's source line.

    ``operands`` and ``results`` are the abstract values involved (the operands of the
    operation at fault and what it produced), empty when they do not apply.
    """

    kind: str
    file: str
    line: int
    message: str
    operands: tuple[AbstractValue, ...] = ()
    results: tuple[AbstractValue, ...] = ()
    function: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.kind}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "function": self.function,
            "operands": [str(a) for a in self.operands],
            "results": [str(a) for a in self.results],
        }


@dataclass
class LintReport:
    """What :func:`weaktrace.lint` found: iterate it for the findings, ``print`` it for
    one ``file:line: kind: message`` line each, ``report.program`` is the imported
    program (``None`` when jax refused to trace the function)."""

    findings: list[Finding] = field(default_factory=list)
    program: Program | None = None

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    def __bool__(self) -> bool:
        return bool(self.findings)

    def __getitem__(self, i: int) -> Finding:
        return self.findings[i]

    def __str__(self) -> str:
        return "\n".join(str(f) for f in self.findings)

    def __repr__(self) -> str:
        return f"LintReport({len(self.findings)} findings)"

    def kinds(self) -> list[str]:
        """The kinds found, in order, each once."""
        return list(dict.fromkeys(f.kind for f in self.findings))

    def to_json(self, indent: int | None = 2) -> str:
        """``{"findings": [{"kind", "file", "line", "message", "function", "operands",
        "results"}, ...]}`` (avals as strings such as ``~f32[3]``)."""
        return json.dumps({"findings": [f.to_dict() for f in self.findings]}, indent=indent)

    def to_sarif(self, indent: int | None = 2) -> str:
        """The findings as a SARIF 2.1.0 log (one run, one rule per kind)."""
        from weaktrace import __version__

        kinds = list(KINDS)
        rules = [
            {
                "id": k,
                "name": "".join(w.title() for w in k.split("-")),
                "shortDescription": {"text": KINDS[k]},
                "defaultConfiguration": {"level": "warning"},
            }
            for k in kinds
        ]
        results = [
            {
                "ruleId": f.kind,
                "ruleIndex": kinds.index(f.kind),
                "level": "warning",
                "message": {"text": f.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _uri(f.file)},
                            "region": {"startLine": max(f.line, 1)},
                        }
                    }
                ],
            }
            for f in self.findings
        ]
        log = {
            "$schema": SARIF_SCHEMA,
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": "weaktrace-lint",
                            "version": __version__,
                            "rules": rules,
                        }
                    },
                    "results": results,
                }
            ],
        }
        return json.dumps(log, indent=indent)


def _uri(file: str) -> str:
    """A relative URI below the working directory (what code scanning expects), else
    a file: URI; percent-encoded (a path with spaces, code run from "<string>")."""
    rel = os.path.relpath(file) if os.path.isabs(file) else file
    if rel.startswith(".."):
        return "file://" + quote(os.path.abspath(file).replace(os.sep, "/"))
    return quote(rel.replace(os.sep, "/"))
