"""The IR: typed records, a printer and a type checker."""

from weaktrace.ir.printer import pp_program
from weaktrace.ir.typecheck import typecheck
from weaktrace.ir.values import (
    AbstractValue,
    Atom,
    Equation,
    Literal,
    Primitive,
    Program,
    SourceInfo,
    Var,
    abstract_eval_rules,
    lowering_rules,
)

__all__ = [
    "AbstractValue",
    "Atom",
    "Equation",
    "Literal",
    "Primitive",
    "Program",
    "SourceInfo",
    "Var",
    "abstract_eval_rules",
    "lowering_rules",
    "pp_program",
    "typecheck",
]
