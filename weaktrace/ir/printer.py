"""jaxpr-like text for Programs: every variable typed, weak ones marked with ``~``.

Printing streams: each equation becomes one line appended to a list, so a
100,000-equation program prints in linear time.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np

from weaktrace.dtypes.registry import DType
from weaktrace.ir import values
from weaktrace.ir.values import Atom, Equation, Literal, Program, Var, short_dtype


def _names() -> Iterator[str]:
    """a, b, ..., z, ba, bb, ... (jaxpr's naming)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    for n in itertools.count():
        digits = []
        while True:
            n, r = divmod(n, 26)
            digits.append(letters[r])
            if n == 0:
                break
        yield "".join(reversed(digits))


class _Namer:
    def __init__(self) -> None:
        self.names: dict[Var, str] = {}
        self.fresh = _names()

    def bind(self, v: Var) -> str:
        name = self.names[v] = next(self.fresh)
        return f"{name}:{v.aval}"

    def use(self, atom: Atom) -> str:
        if isinstance(atom, Literal):
            return f"{_literal(atom.value)}:{atom.aval}"
        return self.names.get(atom, "<unbound>")


def _literal(value: Any) -> str:
    v = value.item() if isinstance(value, np.generic | np.ndarray) else value
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _param(value: Any, indent: str) -> str:
    if isinstance(value, np.dtype | DType):
        return str(value.name)
    if isinstance(value, Program):  # a sub-program prints nested, as jaxpr does
        return _program_lines(value, indent + "      ")
    if isinstance(value, tuple):
        items = [_param(v, indent) for v in value]
        return "(" + ", ".join(items) + ("," if len(value) == 1 else "") + ")"
    return str(value)


def pp_equation(eqn: Equation, namer: _Namer, indent: str = "    ") -> str:
    ins = " ".join(namer.use(a) for a in eqn.inputs)
    params = ""
    if eqn.params:
        items = [f"{k}={_param(v, indent)}" for k, v in sorted(eqn.params.items())]
        nested = any("\n" in i for i in items)
        sep = "\n" + indent + "  " if nested else " "
        params = (
            "["
            + (sep if nested else "")
            + sep.join(items)
            + ("\n" + indent if nested else "")
            + "]"
        )
    outs = " ".join(namer.bind(v) for v in eqn.outputs)
    return f"{outs} = {eqn.primitive.name}{params} {ins}".rstrip()


def _program_lines(program: Program, indent: str) -> str:
    """A program, its equations indented by `indent` (names are fresh per program)."""
    namer = _Namer()
    consts = " ".join(namer.bind(v) for v in program.constvars)
    ins = " ".join(namer.bind(v) for v in program.invars)
    lines = [f"{{ lambda {consts}; {ins}. let"]
    lines += [indent + pp_equation(e, namer, indent) for e in program.equations]
    outs = ", ".join(namer.use(v) for v in program.outvars)
    lines.append(f"{indent[:-2]}in ({outs}{',' if len(program.outvars) == 1 else ''}) }}")
    return "\n".join(lines)


def pp_program(program: Program) -> str:
    """The program as jaxpr-like text.

    >>> import numpy as np
    >>> from weaktrace.ir.values import AbstractValue, Program, Var
    >>> x = Var(AbstractValue((3,), np.float32, True))
    >>> print(Program((x,), (), (x,)))
    { lambda ; a:~f32[3]. let
      in (a,) }
    """
    return _program_lines(program, "    ")


values._PRINTER[0] = pp_program

__all__ = ["pp_equation", "pp_program", "short_dtype"]
