"""Evaluate a Program with the lowering rules: under ``jax.jit`` this lowers it to
StableHLO; on concrete arrays it runs it eagerly."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core.literals import jax_literal, typed
from weaktrace.dtypes.policies import Policy
from weaktrace.dtypes.registry import DType
from weaktrace.ir.values import (
    AbstractValue,
    Literal,
    Program,
    Var,
    lowering_rules,
    program_evaluator,
    subprogram_lowering_rules,
)


def eval_program(program: Program, args: Sequence[Any], policy: Policy) -> list[Any]:
    """Run every equation's lowering rule in order; returns the output values.

    `policy` is the trace's (resolved): its x64 mode types weak literals, and its
    `lowering_dtype` maps dtypes XLA lacks (MAX's index, torch's complex32) to the
    dtype they compute in; params and literals are mapped before the rules see them.
    """
    x64 = policy.x64
    mapping = _lowering_map(policy, program)
    env: dict[Var, Any] = {
        v: typed(c, v.aval[1]) for v, c in zip(program.constvars, program.consts, strict=True)
    }
    env.update(zip(program.invars, args, strict=True))

    def read(atom: Any) -> Any:
        if atom.__class__ is Var:
            return env[atom]
        if mapping is not None:
            atom = _mapped_literal(atom, mapping)
        return jax_literal(atom, x64)

    for eqn in program.equations:
        params = eqn.params if mapping is None else _mapped(eqn.params, mapping)
        rule = lowering_rules.get(eqn.primitive)
        if rule is None:  # control flow: its sub-programs run under the same policy
            out = subprogram_lowering_rules[eqn.primitive](
                runner(policy), *[read(a) for a in eqn.inputs], **params
            )
        else:
            out = rule(*[read(a) for a in eqn.inputs], **params)
        if eqn.primitive.multiple_results:
            if mapping is not None:
                out = [
                    _as_mapped(v, o.aval, mapping) for v, o in zip(out, eqn.outputs, strict=True)
                ]
            env.update(zip(eqn.outputs, out, strict=True))
        else:
            env[eqn.outputs[0]] = (
                out if mapping is None else _as_mapped(out, eqn.outputs[0].aval, mapping)
            )
    return [read(v) for v in program.outvars]


def _lowering_map(policy: Policy, program: Program) -> Callable[[DType], DType] | None:
    """The policy's lowering map, if this program uses a dtype it changes."""
    fn = policy.lowering_dtype
    if all(fn(a[1]) is a[1] for a in avals(program)):
        return None
    return fn


def avals(program: Program) -> list[AbstractValue]:
    """Every abstract value the program mentions (inputs, constants, equation atoms)."""
    out = [v.aval for v in (*program.invars, *program.constvars)]
    for eqn in program.equations:
        out += [a.aval for a in (*eqn.inputs, *eqn.outputs)]
    return out


def _as_mapped(value: Any, aval: AbstractValue, fn: Callable[[DType], DType]) -> Any:
    """A rule's output in the dtype its aval maps to: the real part of a complex32
    value, computed in complex64, is float32 until converted to the float16 it is."""
    want = fn(aval[1]).numpy
    got = getattr(value, "dtype", None)
    if got is None or want is None or got == want:
        return value
    return jax.lax.convert_element_type(value, want)


def _mapped(params: Mapping[str, Any], fn: Callable[[DType], DType]) -> dict[str, Any]:
    return {k: fn(v) if isinstance(v, DType) else v for k, v in params.items()}


def _mapped_literal(lit: Literal, fn: Callable[[DType], DType]) -> Literal:
    dt = fn(lit.aval[1])
    if dt is lit.aval[1]:
        return lit
    return Literal(
        np.asarray(lit.value).astype(dt.numpy)[()], AbstractValue.make((), dt, lit.aval[2])
    )


def runner(policy: Policy) -> Callable[[Program, Sequence[Any]], list[Any]]:
    """`run(program, args)` for control-flow rules: evaluate under `policy`."""
    return lambda program, args: eval_program(program, args, policy)


program_evaluator.append(runner)  # eager evaluation of control flow uses it too


# One Python function per (program, policy, calling convention): jax caches the jaxpr
# of a reduce / reduce_window / scatter_apply computation on the function's identity, so
# a program seen again (an eager call's cached sub-program) must give jax the same
# function, or jax retraces and recompiles on every call.
_FUNCTIONS: dict[tuple[int, Policy, str], tuple[Program, Callable[..., Any]]] = {}
_FUNCTIONS_MAX = 256


def program_function(program: Program, policy: Policy, style: str) -> Callable[..., Any]:
    """The program as jax's computation: ``style`` "pair" takes two tuples (a reduction's
    accumulators and values) and returns a tuple; "one" takes one value, returns one."""
    key = (id(program), policy, style)
    hit = _FUNCTIONS.get(key)
    if hit is not None and hit[0] is program:
        return hit[1]
    fn = _pair(program, policy) if style == "pair" else _one(program, policy)
    if len(_FUNCTIONS) >= _FUNCTIONS_MAX:
        _FUNCTIONS.pop(next(iter(_FUNCTIONS)))
    _FUNCTIONS[key] = (program, fn)
    return fn


def _pair(program: Program, policy: Policy) -> Callable[[Any, Any], Any]:
    return lambda a, b: tuple(eval_program(program, [*a, *b], policy))


def _one(program: Program, policy: Policy) -> Callable[[Any], Any]:
    return lambda v: eval_program(program, [v], policy)[0]
