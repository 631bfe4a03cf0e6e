"""Evaluate a Program with the lowering rules: under ``jax.jit`` this lowers it to
StableHLO; on concrete arrays it runs it eagerly."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core.literals import jax_literal, typed
from weaktrace.dtypes import registry
from weaktrace.dtypes.policies import Policy
from weaktrace.dtypes.registry import DType
from weaktrace.dtypes.rounding import e8m0_bits, round_host, saturation_bound
from weaktrace.ir.values import (
    AbstractValue,
    Equation,
    Literal,
    Program,
    Var,
    lowering_rules,
    program_evaluator,
    subprogram_lowering_rules,
)


class _Evaluating(threading.local):
    def __init__(self) -> None:
        self.envs: list[dict[Var, Any]] = []  # the programs being evaluated, innermost last


_EVALUATING = _Evaluating()


def enclosing_value(atom: Any, policy: Policy) -> Any:
    """The value of a traced value's atom in the programs being evaluated now (a rule jax
    runs while a program lowers, such as a custom_vjp's bwd, reading a traced value its
    function closes over, as jax's closure_convert leaves integers closed over); a
    LookupError when no program being evaluated defines it."""
    if atom.__class__ is not Var:
        return jax_literal(atom, policy.x64)
    for env in reversed(_EVALUATING.envs):
        if atom in env:
            return env[atom]
    raise LookupError(atom)


@contextlib.contextmanager
def known_values(values: dict[Any, Any]) -> Iterator[None]:
    """Make `enclosing_value` find these values of atoms (the captured values of a
    sub-program jax evaluates abstractly while the enclosing program is still traced)."""
    envs = _EVALUATING.envs
    envs.append(values)
    try:
        yield
    finally:
        envs.pop()
        if envs:
            envs[-1].update(values)


def eval_program(program: Program, args: Sequence[Any], policy: Policy) -> list[Any]:
    """Run every equation's lowering rule in order; returns the output values (see
    `_eval_program`); the program's values can be read with `enclosing_value` meanwhile."""
    envs = _EVALUATING.envs
    env: dict[Var, Any] = {}
    envs.append(env)
    try:
        return _eval_program(program, args, policy, env)
    finally:
        envs.pop()
        if envs:  # a rule jax runs later (a custom_vjp's bwd, when jax transposes) may
            envs[-1].update(env)  # read this sub-program's values: they stay findable


def _eval_program(
    program: Program, args: Sequence[Any], policy: Policy, env: dict[Var, Any]
) -> list[Any]:
    """Run every equation's lowering rule in order; returns the output values.

    `policy` is the trace's (resolved): its x64 mode types weak literals, and its
    `lowering_dtype` maps dtypes XLA lacks (MAX's index, torch's complex32) to the
    dtype they compute in; params and literals are mapped before the rules see them.
    """
    x64 = policy.x64
    mapping = _lowering_map(policy, program)
    rounded = _rounded(policy, program)
    env.update(
        (v, typed(c, v.aval[1])) for v, c in zip(program.constvars, program.consts, strict=True)
    )
    env.update(zip(program.invars, args, strict=True))

    def read(atom: Any) -> Any:
        if atom.__class__ is Var:
            return env[atom]
        if mapping is not None:
            atom = _mapped_literal(atom, mapping)
        if rounded is not None and atom.aval[1] in rounded:  # zeros(2, float8_e8m0fnu)
            dt = atom.aval[1]
            atom = Literal(round_host(atom.value, dt, rounded[dt]), atom.aval)
        return jax_literal(atom, x64)

    for eqn in program.equations:
        params = eqn.params if mapping is None else _mapped(eqn.params, mapping)
        rule = lowering_rules.get(eqn.primitive)
        if rule is None:  # control flow: its sub-programs run under the same policy
            out = subprogram_lowering_rules[eqn.primitive](
                runner(policy), *[read(a) for a in eqn.inputs], **params
            )
        elif (
            rounded is not None
            and eqn.primitive.name != "bitcast_convert_type"
            and any(o.aval[1] in rounded for o in eqn.outputs)
        ):
            out = _run_rounded(rule, eqn, [read(a) for a in eqn.inputs], params, rounded, x64)
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


def _rounded(policy: Policy, program: Program) -> Mapping[DType, str] | None:
    """The policy's `roundings`, if this program computes a value of such a dtype."""
    if not policy.roundings:
        return None
    if not any(a[1] in policy.roundings for a in avals(program)):
        return None
    return policy.roundings


_F32, _F64 = registry.by_name("float32"), registry.by_name("float64")
_BITS = {"float32": np.uint32, "bfloat16": np.uint16}


def _run_rounded(
    rule: Callable[..., Any],
    eqn: Equation,
    args: list[Any],
    params: Mapping[str, Any],
    rounded: Mapping[DType, str],
    x64: bool,
) -> Any:
    """An equation with an output of a dtype the policy rounds its own way: it computes
    in a wider float that holds every value of the dtype exactly (float32 for a
    saturating dtype; float64 for float8_e8m0fnu, whose 2**-127 is a float32 subnormal
    that XLA flushes to zero), and each such output is rounded by the policy's mode as
    the library rounds its float32 result (see `weaktrace.dtypes.rounding`)."""
    mode = next(rounded[o.aval[1]] for o in eqn.outputs if o.aval[1] in rounded)
    if mode == "magnitude" and eqn.primitive.name == "convert_element_type":
        src = eqn.inputs[0].aval[1].name
        if src in _BITS:  # read the float32 bits: a subnormal would flush in a convert
            bits = jax.lax.bitcast_convert_type(args[0], _BITS[src])
            if src == "bfloat16":  # bfloat16 is float32's upper half
                bits = jax.lax.shift_left(bits.astype(np.uint32), np.uint32(16))
            out_dt = registry.to_numpy(eqn.outputs[0].aval[1])
            return jax.lax.bitcast_convert_type(e8m0_bits(bits, jax.numpy), out_dt)
    wide = _F64 if mode == "magnitude" and x64 else _F32
    args = [
        jax.lax.convert_element_type(v, registry.to_numpy(wide)) if a.aval[1] in rounded else v
        for a, v in zip(eqn.inputs, args, strict=True)
    ]
    params = {k: wide if isinstance(v, DType) and v in rounded else v for k, v in params.items()}
    out = rule(*args, **params)
    outs = out if eqn.primitive.multiple_results else [out]
    done = [
        _round(v, o.aval[1], rounded[o.aval[1]]) if o.aval[1] in rounded else v
        for v, o in zip(outs, eqn.outputs, strict=True)
    ]
    return done if eqn.primitive.multiple_results else done[0]


def _round(value: Any, dt: DType, mode: str) -> Any:
    """A float32 or float64 value rounded into `dt` by `mode` as its float32 rounding
    would be (`weaktrace.dtypes.rounding`)."""
    out_dt = registry.to_numpy(dt)
    if mode == "saturate":
        x = jax.lax.convert_element_type(value, np.float32)
        bound = np.float32(saturation_bound(dt))
        x = jax.lax.min(jax.lax.max(x, -bound), bound)  # NaN stays NaN
        return jax.lax.convert_element_type(x, out_dt)
    if value.dtype == np.float64:
        return jax.lax.bitcast_convert_type(e8m0_of_wide(value), out_dt)
    bits = jax.lax.bitcast_convert_type(value, np.uint32)
    return jax.lax.bitcast_convert_type(e8m0_bits(bits, jax.numpy), out_dt)


def e8m0_of_wide(v: Any) -> Any:
    """The float8_e8m0fnu byte of float64 values, as `e8m0_bits` of their float32
    rounding (round to nearest even, subnormals kept) would be."""
    jnp = jax.numpy
    v = jnp.abs(v)
    mant, exp = jnp.frexp(v)  # v = mant * 2**exp, mant in [0.5, 1)
    # float32 keeps 24 bits: 2 * mant rounds to 1.5 or more from 1.5 - 2**-24 up
    up = (2 * mant >= 1.5 - 2.0**-24).astype(np.int32)
    normal = jnp.minimum(exp - 1 + 127 + up, 0xFF)
    # below 2**-126: float32's subnormal grid (2**-149); more than 2**-127 rounds up
    sub = (v > 2.0**-127 + 2.0**-150).astype(np.int32)
    out = jnp.where(v >= 2.0**-126, normal, sub)
    nan = jnp.isnan(v) | (v >= 2.0**128 - 2.0**103)  # float32 overflows to inf: NaN
    return jnp.where(nan, 0xFF, out).astype(np.uint8)


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
