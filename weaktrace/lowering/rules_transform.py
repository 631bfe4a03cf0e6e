"""``jax_transform`` lowers to jax's own transformation (jax.grad, jax.vmap, ...) applied
to the sub-program, evaluated by `run` (see weaktrace.transforms)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core.primitives_transform import Transform, debug_p, transform_p
from weaktrace.ir.values import AbstractValue, Program, lowering_rules, subprogram_lowering_rules
from weaktrace.lowering.rules import convert

Run = Callable[[Program, Any], list[Any]]
_HOST = (bool, int, float, complex, np.generic, np.ndarray)


def as_jax(value: Any, aval: AbstractValue) -> Any:
    """A host value (a Python scalar jax passed through untraced, as jax.grad passes the
    arguments it does not differentiate) as the jax value of its abstract value."""
    if isinstance(value, _HOST) and aval[1].numpy is not None:
        return convert(np.asarray(value, aval[1].numpy), new_dtype=aval[1], weak_type=aval[2])
    return value


def sub_function(run: Run, program: Program, captured: Sequence[Any],
                 transform: Transform) -> Callable[..., Any]:  # fmt: skip
    """The sub-program as the function jax transforms: the user's calling convention."""
    in_avals = [v.aval for v in program.invars[len(captured) :]]

    def fn(*args: Any, **kwargs: Any) -> Any:
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        if tree != transform.inner_tree:
            raise ValueError(
                f"{transform}: the function was called with arguments of structure {tree}, "
                f"but it was traced with {transform.inner_tree}"
            )
        if transform.raw:
            leaves = [v for v, r in zip(leaves, transform.raw, strict=True) if not r]
        vals = [as_jax(v, a) for v, a in zip(leaves, in_avals, strict=True)]
        outs = run(program, (*captured, *vals))
        return jax.tree_util.tree_unflatten(transform.inner_out_tree, outs)

    return fn


def _transform(run: Run, *ops: Any, program: Program, transform: Transform,
               n_captures: int) -> list[Any]:  # fmt: skip
    fn = sub_function(run, program, ops[:n_captures], transform)
    out = transform.call(fn, ops[n_captures:])
    leaves, tree = jax.tree_util.tree_flatten(out)
    assert tree == transform.out_tree, f"{transform}: output {tree}, traced {transform.out_tree}"
    if transform.float0:  # float0 cotangents are the trace's constants, not outputs
        return [x for x, z in zip(leaves, transform.float0, strict=True) if not z]
    return leaves


subprogram_lowering_rules[transform_p] = _transform
lowering_rules[debug_p] = lambda *vals, call: call(*vals)
