"""jax.lax's convolutions and reductions with a computation: conv_general_dilated
(any dimension numbers, feature/batch groups, preferred_element_type), conv,
conv_with_general_padding, conv_transpose, reduce and reduce_window (a named monoid
with its identity, as jax detects it, or any traced scalar computation), and the
padding helpers. jax's static shape helpers (functions of shapes and strings only)
are re-exported as they are (``DATA``)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np
from jax import lax as _jlax

from weaktrace.core import primitives as P
from weaktrace.core import primitives_window as W
from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context, operand
from weaktrace.core.program import eager_program, make_program
from weaktrace.core.promotion import convert
from weaktrace.core.trace import Context, Tracer
from weaktrace.errors import ShapeError, WeaktraceError
from weaktrace.ir.values import AbstractValue
from weaktrace.lax import ops, ops_more
from weaktrace.lax.ops import _ops

EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.lax")
_tree = jax.tree_util

# Static shape helpers: functions of shapes and strings (no arrays, no dtypes).
DATA: dict[str, Any] = {
    n: getattr(_jlax, n)
    for n in (
        "conv_dimension_numbers",
        "conv_general_permutations",
        "conv_general_shape_tuple",
        "conv_shape_tuple",
        "conv_transpose_shape_tuple",
    )
}


class PaddingTypeError(WeaktraceError, RuntimeError):
    """An unknown padding name (jax raises RuntimeError)."""


def padtype_to_pads(
    in_shape: Sequence[int],
    window_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
) -> list[tuple[int, int]]:
    """``jax.lax.padtype_to_pads``: 'VALID', 'SAME' or 'SAME_LOWER' as (low, high) pairs."""
    if isinstance(padding, str):
        name = padding.upper()
        if name not in ("VALID", "SAME", "SAME_LOWER"):
            raise PaddingTypeError(
                "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', "
                f"got {padding}."
            )
    elif getattr(padding, "name", None) in ("VALID", "SAME", "SAME_LOWER"):
        name = padding.name
    else:
        raise TypeError(f"Unknown padding type: {padding}.")
    if name == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, w, s in zip(in_shape, window_shape, window_strides, strict=True):
        out = -(-int(n) // int(s))
        p = max((out - 1) * int(s) + int(w) - int(n), 0)
        pads.append((p // 2, p - p // 2) if name == "SAME" else (p - p // 2, p // 2))
    return pads


def reduce_window_shape_tuple(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """``jax.lax.reduce_window_shape_tuple``."""
    n = len(operand_shape)
    base = base_dilation or (1,) * n
    wdil = window_dilation or (1,) * n
    return tuple(
        W.window_out(int(a), int(w), int(s), (int(p[0]), int(p[1])), int(b), int(d))
        for a, w, s, p, b, d in zip(
            operand_shape, window_dimensions, window_strides, padding, base, wdil, strict=True
        )
    )


def _dilate(n: int, d: int) -> int:
    return 0 if n == 0 else 1 + d * (n - 1)


def _pairs(padding: Sequence[Any]) -> tuple[tuple[int, int], ...]:
    try:
        return tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"padding must be a string or a sequence of (low, high) pairs: {padding}"
        ) from err


@export
def conv_general_dilated(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Any,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> Any:
    """``jax.lax.conv_general_dilated``."""
    ctx, (x, k) = _ops(lhs, rhs)
    xs, ks = x.aval[0], k.aval[0]
    dn = _jlax.conv_dimension_numbers(xs, ks, dimension_numbers)
    nsp = len(xs) - 2
    if lhs_dilation is None:
        lhs_dilation = (1,) * nsp
    elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError(
            "String padding is not implemented for transposed convolution using this op. "
            "Please either exactly specify the required padding or use conv_transpose."
        )
    rhs_dilation = (1,) * nsp if rhs_dilation is None else rhs_dilation
    if isinstance(padding, str):
        kernel = [_dilate(ks[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation, strict=True)]
        pads = tuple(
            padtype_to_pads([xs[d] for d in dn.lhs_spec[2:]], kernel, window_strides, padding)
        )
    else:
        pads = _pairs(padding)
    pref = None if preferred_element_type is None else ctx.policy.user_dtype(preferred_element_type)
    params = {
        "window_strides": tuple(map(operator.index, window_strides)),
        "padding": pads,
        "lhs_dilation": tuple(map(operator.index, lhs_dilation)),
        "rhs_dilation": tuple(map(operator.index, rhs_dilation)),
        "dimension_numbers": (tuple(dn.lhs_spec), tuple(dn.rhs_spec), tuple(dn.out_spec)),
        "feature_group_count": operator.index(feature_group_count),
        "batch_group_count": operator.index(batch_group_count),
        "preferred_element_type": pref,
        **P.precision_param(precision),
    }
    return ctx.emit(W.conv_p, (x, k), params)


@export
def conv(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: str,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """``jax.lax.conv``: NCHW/OIHW, no dilation."""
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


@export
def conv_with_general_padding(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Any,
    lhs_dilation: Sequence[int] | None,
    rhs_dilation: Sequence[int] | None,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """``jax.lax.conv_with_general_padding``."""
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def _transpose_pads(k: int, s: int, padding: Any) -> tuple[int, int]:
    """jax's _conv_transpose_padding: the padding of the transposed convolution."""
    if padding == "SAME":
        total = k + s - 2
        low = k - 1 if s > k - 1 else math.ceil(total / 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        low = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        low, total = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return low, total - low


_DEFAULT_TRANSPOSE_DN = {
    2: ("NC", "IO", "NC"),
    3: ("NHC", "HIO", "NHC"),
    4: ("NHWC", "HWIO", "NHWC"),
    5: ("NHWDC", "HWDIO", "NHWDC"),
}


@export
def conv_transpose(
    lhs: Any,
    rhs: Any,
    strides: Sequence[int],
    padding: Any,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    transpose_kernel: bool = False,
    precision: Any = None,
    preferred_element_type: Any = None,
    use_consistent_padding: bool = False,
) -> Any:
    """``jax.lax.conv_transpose``: a convolution with lhs dilated by the strides."""
    _, (x, k) = _ops(lhs, rhs)
    n = x.aval.ndim
    if n != k.aval.ndim or n < 2:
        raise ValueError(f"conv_transpose needs operands of one rank >= 2: {x.aval}, {k.aval}")
    if dimension_numbers is None:
        if n not in _DEFAULT_TRANSPOSE_DN:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _DEFAULT_TRANSPOSE_DN[n]
    dn = _jlax.conv_dimension_numbers(x.aval[0], k.aval[0], dimension_numbers)
    ksp = [k.aval[0][d] for d in dn.rhs_spec[2:]]
    rhs_dilation = (1,) * (n - 2) if rhs_dilation is None else rhs_dilation
    if use_consistent_padding or (isinstance(padding, str) and padding in {"SAME", "VALID"}):
        eff = [_dilate(a, r) for a, r in zip(ksp, rhs_dilation, strict=True)]
        rep = [padding] * len(strides) if isinstance(padding, str) else padding
        pads: Any = tuple(
            _transpose_pads(a, s, p) for a, s, p in zip(eff, strides, rep, strict=False)
        )
    else:
        pads = padding
    if transpose_kernel:
        k = ops.rev(k, tuple(dn.rhs_spec[2:]))
        perm = list(range(n))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        k = ops.transpose(k, perm)
    return conv_general_dilated(
        x,
        k,
        (1,) * (n - 2),
        pads,
        strides,
        rhs_dilation,
        dn,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


# A computation jax recognizes as a monoid (when its initial value is the identity).
_MONOIDS = {"add", "mul", "max", "min", "bitwise_and", "bitwise_or", "bitwise_xor"}


def _monoid_name(computation: Any) -> str | None:
    for name in _MONOIDS:
        if computation is getattr(_jlax, name) or computation is ops.EXPORTS.get(name):
            return name
    return None


def _concrete(v: Any) -> np.ndarray | None:
    """A concrete scalar initial value, as jax sees one (a traced value is not)."""
    if isinstance(v, Tracer | jax.core.Tracer):
        return None
    try:
        a = np.asarray(v)
    except Exception:
        return None
    return a if a.shape == () else None


def _is_identity(name: str, v: np.ndarray, dt: np.dtype) -> bool:
    intlike = dt.kind in "biu"
    if name == "add":
        return bool(np.equal(v, 0))
    if name == "mul":
        return bool(np.equal(v, 1))
    if name in ("bitwise_or", "bitwise_xor"):
        return intlike and bool(np.equal(v, np.array(0).astype(dt)))
    if name == "bitwise_and":
        return intlike and bool(np.equal(v, np.array(-1).astype(dt)))
    low = name == "max"
    if dt.kind == "b":
        ident: Any = not low
    elif dt.kind in "iu":
        ident = np.iinfo(dt).min if low else np.iinfo(dt).max
    else:
        ident = -np.inf if low else np.inf
    return bool(np.equal(v, ident))


def _trees(what: str, operands: Any, init_values: Any) -> tuple[list[Any], list[Any], Any]:
    xs, tree = _tree.tree_flatten(operands)
    vs, vtree = _tree.tree_flatten(init_values)
    if tree != vtree:  # type: ignore[operator]
        raise ValueError(
            f"Operands must have the same tree structure as init_values: {tree} vs. {vtree}"
        )
    if not xs:
        raise ValueError(f"{what} must have at least one operand.")
    return xs, vs, tree


def _program(
    ctx: Context, computation: Any, inits: list[Tracer], tree: Any, what: str = "reduce"
) -> Any:
    avals = [AbstractValue.make((), v.aval[1], v.aval[2]) for v in inits]
    k = len(avals)
    name = _monoid_name(computation)
    if name is not None:  # jax's own lax.add etc. cannot take weaktrace tracers: ours can
        computation = ops.EXPORTS[name]

    def comp(*a: Any) -> Any:
        return computation(_tree.tree_unflatten(tree, a[:k]), _tree.tree_unflatten(tree, a[k:]))

    def make() -> Any:
        return make_program(comp, avals + avals, ctx.policy, nested=not ctx.eager)

    key = (tuple(avals), tree, ctx.policy)
    made = eager_program(computation, key, make) if ctx.eager else make()
    if made.captures:
        raise NotImplementedError("Reduction computations can't close over Tracers.")
    if made.out_tree != tree and what == "reduce_window":  # jax's ValueError, its words
        raise ShapeError(
            "reduce_window output must have the same tree structure as the operands "
            f"{tree} vs. {made.out_tree}"
        )
    if made.out_tree != tree:
        raise TypeError(
            f"the reduction computation must return the structure {tree}, got {made.out_tree}"
        )
    return made.program


@export
def reduce(
    operands: Any,
    init_values: Any,
    computation: Callable[[Any, Any], Any],
    dimensions: Sequence[int],
    out_sharding: Any = None,
) -> Any:
    """``jax.lax.reduce``: a named monoid with its identity becomes reduce_sum etc."""
    flat, inits, tree = _trees("reduce", operands, init_values)
    if len(flat) != len(inits):
        raise ValueError("Must have same total number of operands as init_values")
    ctx = context(*flat, *inits)
    shapes = [np.shape(v) for v in inits]
    if any(shapes):  # jax's check and words, before any tracing
        raise ShapeError(f"reduce found non-scalar initial value: {shapes}")
    name = _monoid_name(computation)
    conc = _concrete(inits[0]) if len(inits) == 1 else None
    if name is not None and conc is not None:
        x = operand(flat[0], ctx)
        v = operand(inits[0], ctx)
        if _is_identity(name, conc, conc.dtype if conc.dtype != object else np.dtype(float)):
            fn = {
                "add": "reduce_sum",
                "mul": "reduce_prod",
                "max": "reduce_max",
                "min": "reduce_min",
                "bitwise_and": "reduce_and",
                "bitwise_or": "reduce_or",
                "bitwise_xor": "reduce_xor",
            }[name]
            red = ops.EXPORTS.get(fn) or ops_more.EXPORTS[fn]
            out = red(x, dimensions)
            return convert(ctx, out, out.aval[1], x.aval[2] and v.aval[2])
    xs = [operand(a, ctx) for a in flat]
    vs = [operand(a, ctx) for a in inits]
    dims = tuple(operator.index(d) for d in dimensions)
    program = _program(ctx, computation, vs, tree)
    outs = ctx.emit_n(
        W.reduce_p,
        (*xs, *vs),
        {"program": program, "monoid": None, "dimensions": dims, "policy": ctx.policy},
    )
    return _tree.tree_unflatten(tree, outs)


@export
def reduce_window(
    operand: Any,  # jax's parameter names: callers pass them by keyword
    init_value: Any,
    computation: Callable[..., Any],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: Any = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Any:
    """``jax.lax.reduce_window``: add/max/min with their identity as jax's
    reduce_window_sum/max/min, any other computation traced once."""
    flat, inits, tree = _trees("reduce_window", operand, init_value)
    if len(flat) != len(inits):
        raise ValueError("Must have same total number of operands as init_values")
    shapes = [np.shape(v) for v in inits]
    if any(shapes):
        raise ShapeError(
            "reduce_window expected init_values to be scalars but init_values have shapes "
            f"{shapes}."
        )
    ctx = context(*flat, *inits)
    xs = [_as_operand(a, ctx) for a in flat]
    vs = [_as_operand(a, ctx) for a in inits]
    wd = tuple(map(operator.index, window_dimensions))
    n = len(wd)
    if isinstance(padding, str):
        eff = (
            wd
            if window_dilation is None
            else tuple(_dilate(w, d) for w, d in zip(wd, window_dilation, strict=True))
        )
        pads = tuple(padtype_to_pads(xs[0].aval[0], eff, window_strides or [1] * n, padding))
    else:
        pads = _pairs(padding)
    params: dict[str, Any] = {
        "window_dimensions": wd,
        "window_strides": tuple(map(operator.index, window_strides or (1,) * n)),
        "padding": pads,
        "base_dilation": tuple(map(operator.index, base_dilation or (1,) * n)),
        "window_dilation": tuple(map(operator.index, window_dilation or (1,) * n)),
        "policy": ctx.policy,
    }
    name = _monoid_name(computation)
    conc = _concrete(inits[0]) if len(inits) == 1 else None
    if name in ("add", "max", "min") and conc is not None:
        dt = xs[0].aval[1].numpy
        if _is_identity(name, conc, np.dtype(vs[0].aval[1].numpy or dt)):
            params.update(program=None, monoid=name)
            return ctx.emit_n(W.reduce_window_p, (xs[0], vs[0]), params)[0]
    params.update(program=_program(ctx, computation, vs, tree, "reduce_window"), monoid=None)
    outs = ctx.emit_n(W.reduce_window_p, (*xs, *vs), params)
    return _tree.tree_unflatten(tree, outs)


_as_operand = operand  # reduce_window's `operand` parameter shadows it

EXPORTS["padtype_to_pads"] = padtype_to_pads
EXPORTS["reduce_window_shape_tuple"] = reduce_window_shape_tuple
