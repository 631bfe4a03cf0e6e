"""``make_program``: trace a function of abstract values into a Program.

Used by ``weaktrace.trace`` (a whole function), by control flow (loop bodies and
branches, traced inside an enclosing trace) and by lint.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax

from weaktrace.core.operands import operand
from weaktrace.core.trace import Builder, Promotion, Tracer, current, new_trace
from weaktrace.dtypes.policies import Policy
from weaktrace.errors import InvalidInputError
from weaktrace.ir.values import AbstractValue, Program


class Made(NamedTuple):
    """A traced program with what its caller needs to use it."""

    program: Program
    out_avals: list[AbstractValue]  # flat, in program output order
    out_tree: Any  # the pytree structure of the function's result
    promotions: tuple[Promotion, ...]
    captures: list[Tracer]  # tracers of the enclosing trace the program reads (inputs first)


def make_program(
    fun: Callable[..., Any],
    in_avals: Sequence[AbstractValue],
    policy: Policy,
    *,
    nested: bool = False,
) -> Made:
    """Trace ``fun(*tracers)``, one tracer per abstract value, under `policy` (resolved).

    With ``nested=True`` the program is a sub-program of the current trace: tracers
    of the enclosing trace that `fun` reads are captured and become the program's
    first inputs (``Made.captures`` lists them, to pass as operands).
    """
    parent = current() if nested else None
    with new_trace(policy, parent) as b:
        tracers = [b.new_arg(a) for a in in_avals]
        out = fun(*tracers)
        leaves, out_tree = jax.tree_util.tree_flatten(out)
        outs = [output(o, b) for o in leaves]
        program = b.program(outs)
    promotions = tuple(b.promotions) if parent is None else ()
    return Made(program, [o.aval for o in outs], out_tree, promotions, b.captures())


def output(o: Any, b: Builder) -> Tracer:
    """A function result as a tracer of the trace (constants become literals or consts)."""
    try:
        return operand(o, b)
    except InvalidInputError:
        raise InvalidInputError(
            f"the traced function returned {o!r} (type {type(o).__name__}), which is not an "
            "array: return arrays, scalars, or pytrees (tuples, lists, dicts) of them."
        ) from None
