"""Control flow lowers onto jax.lax's own (never unrolled): cond -> lax.switch,
while -> lax.while_loop, scan -> lax.scan, the sub-programs evaluated by `run`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jax import lax

from weaktrace.core import primitives_control as C
from weaktrace.ir.values import Program, subprogram_lowering_rules

Run = Callable[[Program, Any], list[Any]]


def _cond(run: Run, index: Any, *ops: Any, branches: tuple[Program, ...]) -> list[Any]:
    fns = [lambda *a, p=p: tuple(run(p, a)) for p in branches]
    return list(lax.switch(index, fns, *ops))


def _while(run: Run, *ops: Any, cond_program: Program, body_program: Program,
           cond_nconsts: int, body_nconsts: int) -> list[Any]:  # fmt: skip
    cond_consts = ops[:cond_nconsts]
    body_consts = ops[cond_nconsts : cond_nconsts + body_nconsts]
    carry = ops[cond_nconsts + body_nconsts :]

    def cond_fn(c: Any) -> Any:
        return run(cond_program, (*cond_consts, *c))[0]

    def body_fn(c: Any) -> Any:
        return tuple(run(body_program, (*body_consts, *c)))

    return list(lax.while_loop(cond_fn, body_fn, tuple(carry)))


def _scan(run: Run, *ops: Any, program: Program, length: int, reverse: bool, unroll: int,
          num_consts: int, num_carry: int) -> list[Any]:  # fmt: skip
    consts = ops[:num_consts]
    carry = ops[num_consts : num_consts + num_carry]
    xs = ops[num_consts + num_carry :]

    def body(c: Any, x: Any) -> Any:
        out = run(program, (*consts, *c, *x))
        return tuple(out[:num_carry]), tuple(out[num_carry:])

    c, ys = lax.scan(body, tuple(carry), tuple(xs), length=length, reverse=reverse,
                     unroll=unroll)  # fmt: skip
    return [*c, *ys]


subprogram_lowering_rules[C.cond_p] = _cond
subprogram_lowering_rules[C.while_p] = _while
subprogram_lowering_rules[C.scan_p] = _scan
