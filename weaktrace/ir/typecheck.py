"""The type checker: re-derive every equation's outputs from its inputs.

An interpreter over the same loop as printing and lowering (autodidax's
``typecheck_jaxpr``), using ``abstract_eval_rules``.
"""

from __future__ import annotations

import numpy as np

from weaktrace.errors import TypeCheckError, WeaktraceError
from weaktrace.ir.values import Literal, Program, Var, abstract_eval_rules, sub_programs


def typecheck(program: Program) -> None:
    """Raise `TypeCheckError` naming the first equation whose types do not follow."""
    defined: set[Var] = set(program.constvars) | set(program.invars)
    if len(defined) != len(program.constvars) + len(program.invars):
        raise TypeCheckError("a program input is listed twice")
    for i, eqn in enumerate(program.equations):
        where = f"equation {i} ({eqn.primitive.name}{_at(eqn.source_info)})"
        for atom in eqn.inputs:
            _check_atom(atom, defined, where)
        rule = abstract_eval_rules.get(eqn.primitive)
        if rule is None:
            raise TypeCheckError(f"{where}: no type rule for primitive {eqn.primitive.name!r}")
        try:
            expected = rule(*(a.aval for a in eqn.inputs), **eqn.params)
        except WeaktraceError as err:
            raise TypeCheckError(f"{where}: its inputs do not type: {err}") from err
        got = [v.aval for v in eqn.outputs]
        if list(expected) != got:
            raise TypeCheckError(
                f"{where}: outputs are typed {', '.join(map(str, got))} but the rule "
                f"gives {', '.join(map(str, expected))}"
            )
        for sub in sub_programs(eqn.params):
            try:
                typecheck(sub)
            except TypeCheckError as err:
                raise TypeCheckError(f"{where}: in a sub-program: {err}") from err
        for v in eqn.outputs:
            if v in defined:
                raise TypeCheckError(f"{where}: assigns a variable that is already bound")
            defined.add(v)
    for atom in program.outvars:
        _check_atom(atom, defined, "program output")


def _check_atom(atom: object, defined: set[Var], where: str) -> None:
    if isinstance(atom, Literal):
        if np.asarray(atom.value).dtype != atom.aval.dtype and atom.aval.dtype != np.dtype(bool):
            raise TypeCheckError(
                f"{where}: literal {atom.value!r} has dtype {np.asarray(atom.value).dtype}, "
                f"typed {atom.aval}"
            )
    elif atom not in defined:
        raise TypeCheckError(f"{where}: uses a variable before it is defined")


def _at(info: object) -> str:
    return f" at {info}" if info is not None else ""
