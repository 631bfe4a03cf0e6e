"""Control-flow primitives: cond, while and scan, whose bodies and branches are
sub-programs held in their params (as jax's cond/while/scan hold jaxprs).

Operands: ``cond`` takes (index, *operands) — every branch takes the same operands
(the union of all branches' captured values first); ``while`` takes
(*cond_consts, *body_consts, *carry); ``scan`` takes (*consts, *carry, *xs).
"""

from __future__ import annotations

from collections.abc import Sequence

from weaktrace.errors import ShapeError, TypeCheckError
from weaktrace.ir.values import AbstractValue, Primitive, Program, abstract_eval_rules

_make = AbstractValue.make


def typematch(a: AbstractValue, b: AbstractValue) -> bool:
    """Same shape and dtype; weak flags may differ (jax's core.typematch)."""
    return a[0] == b[0] and a[1] is b[1]


def _in_avals(program: Program) -> list[AbstractValue]:
    return [v.aval for v in program.invars]


def _out_avals(program: Program) -> list[AbstractValue]:
    return [a.aval for a in program.outvars]


def _expect(what: str, got: Sequence[AbstractValue], want: Sequence[AbstractValue]) -> None:
    if len(got) != len(want) or not all(map(typematch, got, want)):
        raise TypeCheckError(
            f"{what}: {', '.join(map(str, got))} do not match {', '.join(map(str, want))}"
        )


def _cond(
    index: AbstractValue, *ops: AbstractValue, branches: tuple[Program, ...]
) -> list[AbstractValue]:
    if index[0] != () or index[1].name != "int32":
        raise ShapeError(f"cond index must be an int32 scalar, got {index}")
    outs = [_out_avals(b) for b in branches]
    for b, o in zip(branches, outs, strict=True):
        _expect("cond branch inputs", list(ops), _in_avals(b))
        _expect("cond branch outputs", o, outs[0])
    # The branches agree on shapes and dtypes; weak flags are branch 0's (jax's
    # _cond_abstract_eval returns branches[0].out_avals: for cond, the false branch).
    return outs[0]


cond_p = Primitive("cond", multiple_results=True)
abstract_eval_rules[cond_p] = _cond


def _while(
    *ops: AbstractValue,
    cond_program: Program,
    body_program: Program,
    cond_nconsts: int,
    body_nconsts: int,
) -> list[AbstractValue]:
    carry = list(ops[cond_nconsts + body_nconsts :])
    _expect("while cond inputs", list(ops[:cond_nconsts]) + carry, _in_avals(cond_program))
    body_in = list(ops[cond_nconsts : cond_nconsts + body_nconsts]) + carry
    _expect("while body inputs", body_in, _in_avals(body_program))
    out = _out_avals(body_program)
    _expect("while body outputs", out, carry)
    pred = _out_avals(cond_program)
    if len(pred) != 1 or pred[0][0] != () or pred[0][1].name != "bool":
        raise TypeCheckError(f"while cond must return one bool scalar, got {pred}")
    return out


while_p = Primitive("while", multiple_results=True)
abstract_eval_rules[while_p] = _while


def _scan(
    *ops: AbstractValue,
    program: Program,
    length: int,
    reverse: bool,
    unroll: int,
    num_consts: int,
    num_carry: int,
) -> list[AbstractValue]:
    consts = list(ops[:num_consts])
    carry = list(ops[num_consts : num_consts + num_carry])
    xs = ops[num_consts + num_carry :]
    for x in xs:
        if not x[0] or x[0][0] != length:
            raise ShapeError(f"scan xs {x} must have a leading axis of length {length}")
    x_avals = [_make(x[0][1:], x[1], x[2]) for x in xs]
    _expect("scan body inputs", consts + carry + x_avals, _in_avals(program))
    out = _out_avals(program)
    _expect("scan carry outputs", out[:num_carry], carry)
    ys = [_make((length, *y[0]), y[1], y[2]) for y in out[num_carry:]]
    return out[:num_carry] + ys


scan_p = Primitive("scan", multiple_results=True)
abstract_eval_rules[scan_p] = _scan
