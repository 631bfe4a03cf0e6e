"""Evaluate a Program with the lowering rules: under ``jax.jit`` this lowers it to
StableHLO; on concrete arrays it runs it eagerly."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.dtypes import registry
from weaktrace.ir.values import AbstractValue, Literal, Program, Var, lowering_rules
from weaktrace.lowering.rules import convert

_PY_TYPE = {"i": int, "u": int, "f": float, "c": complex}


def _defaults() -> dict[str, np.dtype]:
    x64 = bool(jax.config.read("jax_enable_x64"))
    names = ("int64", "float64", "complex128") if x64 else ("int32", "float32", "complex64")
    return dict(zip("ifc", map(np.dtype, names), strict=True))


def literal(lit: Literal, defaults: dict[str, np.dtype]) -> Any:
    """A literal as jax sees constants: a weak one is a Python scalar (when its dtype is
    the default of its kind), a strong one a numpy scalar of its dtype."""
    value, aval = lit.value, lit.aval
    arr = np.asarray(value, dtype=aval.dtype)
    if not aval.weak_type:
        return arr
    kind = aval.dtype.kind if aval.dtype.kind in "iufc" else "f"
    if defaults.get("i" if kind == "u" else kind) == aval.dtype:
        return _PY_TYPE[kind](arr.item())
    return convert(arr, new_dtype=aval.dtype, weak_type=True)


def eval_program(
    program: Program, args: Sequence[Any], lowering_dtype: Callable[[Any], Any] | None = None
) -> list[Any]:
    """Run every equation's lowering rule in order; returns the output values.

    `lowering_dtype` maps dtypes XLA lacks (MAX's index, torch's complex32) to the
    dtype they compute in; params and literals are mapped before the rules see them.
    """
    defaults = _defaults()
    env: dict[Var, Any] = dict(zip(program.constvars, program.consts, strict=True))
    env.update(zip(program.invars, args, strict=True))

    def read(atom: Any) -> Any:
        if atom.__class__ is Var:
            return env[atom]
        if lowering_dtype is not None:
            atom = _mapped_literal(atom, lowering_dtype)
        return literal(atom, defaults)

    for eqn in program.equations:
        rule = lowering_rules[eqn.primitive]
        params = eqn.params if lowering_dtype is None else _mapped(eqn.params, lowering_dtype)
        env[eqn.outputs[0]] = rule(*[read(a) for a in eqn.inputs], **params)
    return [read(v) for v in program.outvars]


def _mapped(params: Mapping[str, Any], fn: Callable[[Any], Any]) -> dict[str, Any]:
    return {k: fn(v) if isinstance(v, np.dtype | registry.DType) else v for k, v in params.items()}


def _mapped_literal(lit: Literal, fn: Callable[[Any], Any]) -> Literal:
    dt = fn(lit.aval.dtype)
    if dt is lit.aval.dtype:
        return lit
    return Literal(
        np.asarray(lit.value).astype(dt)[()], AbstractValue.make((), dt, lit.aval.weak_type)
    )
