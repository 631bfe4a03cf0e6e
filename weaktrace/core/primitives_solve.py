"""Higher-order primitives whose params hold sub-programs: ``custom_root``,
``custom_linear_solve`` (``linear_solve``), ``composite``, and ``linear_call``.

``linear_call[slot, out_avals]`` stands, inside a traced solve function, for a
function jax hands that solve when it runs (the linearization of f for custom_root's
tangent_solve, the transposed matvec for custom_linear_solve's transpose_solve):
weaktrace cannot compute it while tracing, so the sub-program calls the slot, and
the lowering fills the slot with jax's function while the sub-program runs.

Operands: ``custom_root`` takes (*f_consts, *solve_consts, *tangent_consts,
*guess); ``linear_solve`` takes (*matvec_consts, *solve_consts, *transpose_consts,
*b); ``composite`` takes (*consts, *args).
"""

from __future__ import annotations

from typing import Any

from weaktrace.core.primitives_control import _expect, _in_avals, _out_avals
from weaktrace.ir.values import AbstractValue, Primitive, Program, abstract_eval_rules


def _custom_root(*ops: AbstractValue, f_program: Program, solve_program: Program,
                 tangent_program: Program, counts: tuple[int, int, int]) -> list[Any]:  # fmt: skip
    n = sum(counts)
    guess = list(ops[n:])
    _expect("custom_root f inputs", list(ops[: counts[0]]) + guess, _in_avals(f_program))
    _expect("custom_root f outputs", _out_avals(f_program), guess)
    # jax checks neither solve's nor tangent_solve's output types: the result is
    # whatever solve returns (jax.grad then fails where the types do not fit).
    return _out_avals(solve_program)


custom_root_p = Primitive("custom_root", multiple_results=True)
abstract_eval_rules[custom_root_p] = _custom_root


def _linear_solve(*ops: AbstractValue, matvec_program: Program, solve_program: Program,
                  transpose_program: Program | None, counts: tuple[int, int, int],
                  symmetric: bool) -> list[Any]:  # fmt: skip
    b = list(ops[sum(counts) :])
    n = len(b)
    _expect("custom_linear_solve matvec outputs", _out_avals(matvec_program), b)
    solved = _out_avals(solve_program)
    _expect("custom_linear_solve solve outputs", solved[:n], b)
    if transpose_program is not None:
        tr = _out_avals(transpose_program)
        _expect("custom_linear_solve transpose_solve outputs", tr[:n], b)
    # jax's linear_solve gives b's types, then solve's aux outputs (has_aux: the
    # outputs solve has beyond matvec's)
    return b + solved[n:]


linear_solve_p = Primitive("linear_solve", multiple_results=True)
abstract_eval_rules[linear_solve_p] = _linear_solve


def _linear_call(*ops: AbstractValue, slot: int,
                 out_avals: tuple[AbstractValue, ...]) -> list[Any]:  # fmt: skip
    return list(out_avals)


linear_call_p = Primitive("linear_call", multiple_results=True)
abstract_eval_rules[linear_call_p] = _linear_call


def _composite(*ops: AbstractValue, program: Program, name: str, version: int,
               attributes: tuple[tuple[str, Any], ...], num_consts: int) -> list[Any]:  # fmt: skip
    _expect("composite inputs", list(ops), _in_avals(program))
    return _out_avals(program)


composite_p = Primitive("composite", multiple_results=True)
abstract_eval_rules[composite_p] = _composite
