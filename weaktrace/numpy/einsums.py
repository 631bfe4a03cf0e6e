"""``einsum`` and ``einsum_path``, as jax.numpy computes them.

The contraction order comes from ``opt_einsum.contract_path`` (a dependency of jax,
called exactly as jax calls it, so the path and the dot_generals are jax's); each
step becomes dot_general / reduce_sum (reduce_or for bools) / select / transpose
primitives. The output is ``result_type`` of all operands (weak when all are), or
``preferred_element_type`` (strong), which every dot_general also produces.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

import opt_einsum

from weaktrace.errors import InvalidInputError
from weaktrace.numpy._core import (
    BOOL,
    Context,
    DType,
    P,
    Tracer,
    context,
    convert,
    emit,
    export,
    full_like_value,
    operand,
)
from weaktrace.numpy._lax import delta, select
from weaktrace.numpy.contractions import jnp_precision


class _Unoptimized(opt_einsum.paths.PathOptimizer):
    """jax's ``Unoptimized``: contract left to right."""

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return [(0, 1)] * (len(inputs) - 1)


def _path_type(optimize: Any) -> Any:
    return "optimal" if optimize is True else _Unoptimized() if optimize is False else optimize


@export
def einsum(subscripts: Any, /, *operands: Any, out: None = None, optimize: Any = "auto",
           precision: Any = None, preferred_element_type: Any = None,
           out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.einsum`` (subscript string or interleaved operand/axes form)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to einsum is not supported.")
    if out_sharding is not None:
        raise NotImplementedError("einsum: out_sharding is not supported by weaktrace")
    args = (subscripts, *operands)
    b = context(*args)
    if isinstance(subscripts, str):
        args = (subscripts, *(operand(x, b) for x in operands))
    else:  # interleaved: array, axes, array, axes, ..., [output axes]
        n = len(args)
        args = tuple(operand(x, b) if i % 2 == 0 and i + 1 < n else x for i, x in enumerate(args))
    ops, contractions = opt_einsum.contract_path(
        *args, einsum_call=True, use_blas=True, optimize=_path_type(optimize)
    )
    steps = tuple((c[0], frozenset(c[1]), c[2]) for c in contractions)
    return _einsum(b, list(ops), steps, preferred_element_type, jnp_precision(precision))


@export
def einsum_path(subscripts: Any, /, *operands: Any, optimize: Any = "auto") -> Any:
    """``jax.numpy.einsum_path``: opt_einsum's contraction path (shapes only)."""
    return opt_einsum.contract_path(subscripts, *operands, optimize=_path_type(optimize))


def _removechars(s: str, chars: Any) -> str:
    return s.translate(str.maketrans(dict.fromkeys(chars)))


def _einsum(
    b: Context, ops: list[Tracer], steps: Sequence[Any], preferred: Any, precision: Any = None
) -> Any:
    if preferred is None:
        out_dt, weak = b.policy.result([o.aval for o in ops])
    else:
        out_dt, weak = b.policy.user_dtype(preferred), False

    def total(x: Tracer, axes: Sequence[int]) -> Tracer:
        if b.policy.result([x.aval, ((), out_dt, False)])[0] is not x.aval[1]:
            x = convert(b, x, out_dt, False)
        prim = P.reduce_or_p if x.aval[1] is BOOL else P.reduce_sum_p
        return emit(prim, x, axes=tuple(axes))

    def sum_uniques(x: Tracer, names: str, uniques: Sequence[str]) -> tuple[Tracer, str]:
        if uniques:
            x = total(x, [names.index(n) for n in uniques])
            names = _removechars(names, uniques)
        return x, names

    def sum_repeats(x: Tracer, names: str, counts: Any, keep: str) -> tuple[Tracer, str]:
        for name, count in counts.items():
            if count > 1:
                axes = [i for i, n in enumerate(names) if n == name]
                x = select(delta(b, x.aval.shape, axes), x, full_like_value(x, 0))
                if name not in keep:
                    x = total(x, axes)
                    names = names.replace(name, "")
                else:
                    x = total(x, axes[:-1])
                    names = names.replace(name, "", count - 1)
        return x, names

    for indices, contracted, einstr in steps:
        contracted_names = sorted(contracted)
        input_str, result_names = einstr.split("->")
        input_names = input_str.split(",")
        if len(indices) == 1:
            x = ops.pop(indices[0])
            (names,) = input_names
            counts = collections.Counter(names)
            uniques = [n for n in contracted_names if counts[n] == 1]
            x, names = sum_uniques(x, names, uniques)
            x, names = sum_repeats(x, names, counts, result_names)
        elif len(indices) == 2:
            lhs, rhs = (ops.pop(i) for i in indices)
            x, names = _pair(b, lhs, rhs, input_names, result_names, contracted_names,
                             sum_uniques, sum_repeats, out_dt, precision)  # fmt: skip
        else:
            raise NotImplementedError(
                "jax.numpy.einsum does not support simultaneous contraction of 3 or more "
                f"operands (the optimize= path has the step {tuple(indices)}); pass a path of "
                "pairwise contractions, or optimize='greedy'."
            )
        if names != result_names:
            x = emit(P.transpose_p, x, permutation=tuple(names.index(n) for n in result_names))
        ops.append(x)
    return convert(b, ops[0], out_dt, weak)


def _filter_singleton_dims(x: Tracer, names: str, other_shape: Sequence[int],
                           other_names: str) -> tuple[Tracer, str]:  # fmt: skip
    keep = [
        x.aval.shape[i] != 1 or j == -1 or other_shape[j] == 1
        for i, j in enumerate(map(other_names.find, names))
    ]
    squeeze = tuple(i for i, k in enumerate(keep) if not k)
    if squeeze:
        x = emit(P.squeeze_p, x, dimensions=squeeze)
    return x, "".join(n for n, k in zip(names, keep, strict=True) if k)


def _pair(b: Context, lhs: Tracer, rhs: Tracer, input_names: list[str], result_names: str,
          contracted_names: list[str], sum_uniques: Any, sum_repeats: Any,
          out_dt: DType, precision: Any = None) -> tuple[Tracer, str]:  # fmt: skip
    """One two-operand step of jax's ``_einsum``: one dot_general."""
    lhs_names, rhs_names = input_names
    lhs, lhs_names = _filter_singleton_dims(lhs, lhs_names, rhs.aval.shape, rhs_names)
    rhs, rhs_names = _filter_singleton_dims(rhs, rhs_names, lhs.aval.shape, lhs_names)
    lhs_counts = collections.Counter(lhs_names)
    rhs_counts = collections.Counter(rhs_names)
    lhs_uniques = [n for n in contracted_names if lhs_counts[n] == 1 and rhs_counts[n] == 0]
    lhs, lhs_names = sum_uniques(lhs, lhs_names, lhs_uniques)
    rhs_uniques = [n for n in contracted_names if rhs_counts[n] == 1 and lhs_counts[n] == 0]
    rhs, rhs_names = sum_uniques(rhs, rhs_names, rhs_uniques)
    lhs, lhs_names = sum_repeats(lhs, lhs_names, lhs_counts, result_names + rhs_names)
    rhs, rhs_names = sum_repeats(rhs, rhs_names, rhs_counts, result_names + lhs_names)
    both = set(lhs_names) | set(rhs_names)
    contracted_names = [n for n in contracted_names if n in both]
    shared = set(lhs_names) & set(rhs_names)
    batch_names = [n for n in result_names if n in shared]
    lhs_batch = tuple(lhs_names.find(n) for n in batch_names)
    rhs_batch = tuple(rhs_names.find(n) for n in batch_names)
    for n in contracted_names:
        if n not in lhs_names or n not in rhs_names:
            raise InvalidInputError(f"einsum: index {n!r} cannot be contracted here")
    lhs_cont = tuple(lhs_names.index(n) for n in contracted_names)
    rhs_cont = tuple(rhs_names.index(n) for n in contracted_names)
    batch_str = "".join(batch_names)
    deleted = batch_str + "".join(contracted_names)
    rem_lhs, rem_rhs = _removechars(lhs_names, deleted), _removechars(rhs_names, deleted)
    names = batch_str + rem_rhs + rem_lhs
    if names == result_names:
        dn = ((rhs_cont, lhs_cont), (rhs_batch, lhs_batch))
        x = emit(
            P.dot_general_p,
            rhs,
            lhs,
            dimension_numbers=dn,
            preferred_element_type=out_dt,
            **P.precision_param(precision),
        )
    else:
        names = batch_str + rem_lhs + rem_rhs
        dn = ((lhs_cont, rhs_cont), (lhs_batch, rhs_batch))
        x = emit(
            P.dot_general_p,
            lhs,
            rhs,
            dimension_numbers=dn,
            preferred_element_type=out_dt,
            **P.precision_param(precision),
        )
    return x, names
