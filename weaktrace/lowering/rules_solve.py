"""custom_root, custom_linear_solve and composite lower onto jax.lax's own, with the
sub-programs evaluated as jax functions (so jax.grad differentiates them as jax's);
``linear_call`` calls the jax function its slot holds while a sub-program runs."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from jax import lax

from weaktrace.core import primitives_solve as S
from weaktrace.ir.values import Program, lowering_rules, subprogram_lowering_rules

Run = Callable[[Program, Any], list[Any]]
_SLOTS: dict[int, Callable[..., Any]] = {}


@contextlib.contextmanager
def _filled(slot: int, fn: Callable[..., Any]) -> Iterator[None]:
    old = _SLOTS.get(slot)
    _SLOTS[slot] = fn
    try:
        yield
    finally:
        if old is None:
            del _SLOTS[slot]
        else:
            _SLOTS[slot] = old


def _linear_call(*xs: Any, slot: int, out_avals: Any) -> list[Any]:
    fn = _SLOTS.get(slot)
    if fn is None:
        raise RuntimeError("linear_call outside the solve that provides its function")
    return list(fn(tuple(xs)))


def _split(ops: tuple[Any, ...], counts: tuple[int, ...]) -> list[tuple[Any, ...]]:
    out, i = [], 0
    for n in counts:
        out.append(tuple(ops[i : i + n]))
        i += n
    out.append(tuple(ops[i:]))
    return out


def _slot_of(program: Program) -> int | None:
    """The slot a program's linear_call equations use (in nested sub-programs too)."""
    for eqn in program.equations:
        if eqn.primitive is S.linear_call_p:
            return int(eqn.params["slot"])
    for sub in program.sub_programs():
        found = _slot_of(sub)
        if found is not None:
            return found
    return None


def _with_fn(run: Run, program: Program, consts: tuple[Any, ...],
             aux_from: int | None = None) -> Callable[..., Any]:  # fmt: skip
    """A solve function for jax: (fn, x) -> the program's outputs, its slot (if it
    calls the function jax hands it) filled with fn; with aux_from, the pair
    (outputs[:aux_from], outputs[aux_from:]) jax's has_aux expects."""
    slot = _slot_of(program)

    def solve(fn: Callable[..., Any], x: Any) -> Any:
        if slot is None:
            out = tuple(run(program, (*consts, *x)))
        else:
            with _filled(slot, fn):
                out = tuple(run(program, (*consts, *x)))
        return out if aux_from is None else (out[:aux_from], out[aux_from:])

    return solve


def _flat(out: Any, has_aux: bool) -> list[Any]:
    return [*out[0], *out[1]] if has_aux else list(out)


def _custom_root(run: Run, *ops: Any, f_program: Program, solve_program: Program,
                 tangent_program: Program, counts: tuple[int, int, int]) -> list[Any]:  # fmt: skip
    fc, sc, tc, guess = _split(ops, counts)

    def f(x: Any) -> tuple[Any, ...]:
        return tuple(run(f_program, (*fc, *x)))

    n = len(guess)
    aux = len(solve_program.outvars) > n  # has_aux with aux leaves (none: the same values)
    solve = _with_fn(run, solve_program, sc, n if aux else None)
    out = lax.custom_root(f, tuple(guess), solve, _with_fn(run, tangent_program, tc),
                          has_aux=aux)  # fmt: skip
    return _flat(out, aux)


def _linear_solve(run: Run, *ops: Any, matvec_program: Program, solve_program: Program,
                  transpose_program: Program | None, counts: tuple[int, int, int],
                  symmetric: bool) -> list[Any]:  # fmt: skip
    mc, sc, tc, b = _split(ops, counts)

    def matvec(x: Any) -> tuple[Any, ...]:
        return tuple(run(matvec_program, (*mc, *x)))

    n = len(b)
    aux = len(solve_program.outvars) > n  # has_aux with aux leaves (none: the same values)
    cut = n if aux else None
    tr = None if transpose_program is None else _with_fn(run, transpose_program, tc, cut)
    out = lax.custom_linear_solve(matvec, tuple(b), _with_fn(run, solve_program, sc, cut), tr,
                                  symmetric=symmetric, has_aux=aux)  # fmt: skip
    return _flat(out, aux)


def _composite(run: Run, *ops: Any, program: Program, name: str, version: int,
               attributes: tuple[tuple[str, Any], ...], num_consts: int) -> list[Any]:  # fmt: skip
    consts, args = ops[:num_consts], ops[num_consts:]

    def decomposition(*a: Any, **_: Any) -> tuple[Any, ...]:
        return tuple(run(program, (*consts, *a)))

    fn = lax.composite(decomposition, name, version)
    return list(fn(*args, **dict(attributes)))


lowering_rules[S.linear_call_p] = _linear_call
subprogram_lowering_rules[S.custom_root_p] = _custom_root
subprogram_lowering_rules[S.linear_solve_p] = _linear_solve
subprogram_lowering_rules[S.composite_p] = _composite
