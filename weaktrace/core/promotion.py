"""Promotion: the one place operands are joined and converted.

`promote` asks the context's policy which (dtype, weak) an operation computes in,
converts every operand to it (literals fold, as JAX folds them; arrays get a
``convert_element_type`` equation) and records each implicit conversion for
``explain``. Shape helpers follow ``jax._src.numpy.util.promote_shapes``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core import primitives as P
from weaktrace.core.literals import literal_value
from weaktrace.core.operands import operand
from weaktrace.core.source import user_source
from weaktrace.core.trace import Context, Promotion, Tracer
from weaktrace.dtypes import registry
from weaktrace.dtypes.registry import DType
from weaktrace.dtypes.rounding import round_host
from weaktrace.errors import (
    ArgumentOverflowError,
    OperandTypeError,
    OperandValueError,
    RankPromotionError,
    ShapeError,
)
from weaktrace.ir.values import AbstractValue, Literal, Primitive

_make = AbstractValue.make
_new_tuple = tuple.__new__
_BOOL = registry.by_name("bool")
_UINT8 = registry.by_name("uint8")


def bind(prim: Primitive, *args: Tracer, **params: Any) -> Tracer:
    """Apply a primitive to operands of one context: traced, it records an equation;
    eager, it runs the primitive's lowering rule at once."""
    return args[0].ctx.emit(prim, args, params)


def bind_n(
    prim: Primitive, ctx: Context, args: Sequence[Tracer], params: Mapping[str, Any]
) -> list[Tracer]:
    """`bind` for primitives with several outputs (or none, or no operands)."""
    return ctx.emit_n(prim, tuple(args), params)


def operands(ctx: Context, args: Sequence[Any]) -> list[Tracer]:
    return [a if a.__class__ is Tracer and a.ctx is ctx else operand(a, ctx) for a in args]


def convert(
    ctx: Context, x: Tracer, dtype: DType, weak: bool, overflow: str | None = None
) -> Tracer:
    """``lax._convert_element_type(x, dtype, weak)``: literals fold, tracers convert.
    `overflow` ("wrap"/"raise") is what an out-of-range Python int does (default: the
    policy's rule)."""
    av = x.aval
    if av[1] is dtype and av[2] == weak:
        return x
    if (av[1].kind == "K" or dtype.kind == "K") and av[1] is not dtype:
        # key data is not a number: jax refuses (lowering would emit an invalid convert)
        raise OperandValueError(f"Cannot convert_element_type from {av[1]} to {dtype}")
    rule = ctx.policy.literal_overflow if overflow is None else overflow
    if x.atom.__class__ is Literal:  # a constant: fold the conversion, as JAX does
        aval = _new_tuple(AbstractValue, ((), dtype, weak))
        if rule == "raise" and x.atom.value.__class__ is int and dtype.kind in "iu":
            lo, hi = ctx.policy.int_range(dtype)
            if not lo <= x.atom.value <= hi:
                # NumPy's message (its tests compare it), as torch's check raises it too
                raise ArgumentOverflowError(
                    f"Python integer {x.atom.value} out of bounds for {dtype}"
                )
            rule = "wrap"  # in the policy's range: what is left wraps (torch's uint8 -1)
        mode = ctx.policy.roundings.get(dtype) if ctx.policy.roundings else None
        if mode is None:
            value = literal_value(x.atom.value, dtype, rule)
        else:  # the policy's library rounds into this dtype otherwise than XLA does
            value = round_host(x.atom.value, dtype, mode)
        return Tracer(aval, Literal(value, aval), ctx)
    if rule == "raise" and av[2] and av[1].kind in "iu" and dtype.kind in "iu":
        ctx.checks_int(x, dtype)  # a Python int argument: its value is checked per call
    return ctx.emit(P.convert_element_type_p, (x,), {"new_dtype": dtype, "weak_type": weak})


def promote(ctx: Context, op: str, ops: list[Tracer], target: str | None = None) -> list[Tracer]:
    """promote_dtypes{,_inexact,_numeric,_complex}: the policy decides the dtype
    operation `op` computes in; every operand is converted to it."""
    pol = ctx.policy
    if target is None and pol.same_needs_no_join:
        if len(ops) < 2:
            return ops
        first = ops[0].aval
        if len(ops) == 2 and ops[1].aval[1:] == first[1:] and first[1] is not _BOOL:
            return ops  # one dtype and weak flag: nothing to join
    elif len(ops) == 1:  # unary math: the policy's answer, often the operand's own type
        av = ops[0].aval
        if av[1].kind not in "KV":  # (key arrays and float0: `_join_convert` says)
            joined = pol.promote(op, [av], target)
            if joined[0] is av[1] and joined[1] == av[2]:
                return ops
            return _join_convert(ctx, op, ops, target, joined)
    return _join_convert(ctx, op, ops, target)


def _join_convert(
    ctx: Context, op: str, ops: list[Tracer], target: str | None, joined: Any = None
) -> list[Tracer]:
    """`promote` after its shortcut: join under the policy (or take the policy's
    `joined` answer the shortcut already asked for), convert each operand."""
    pol = ctx.policy
    avals = [ops[0].aval, ops[1].aval] if len(ops) == 2 else [o.aval for o in ops]
    for av in avals:
        if av[1].kind in "KV":  # PRNG key arrays and float0 join nothing, as in jax
            if av[1].kind == "V":
                raise OperandTypeError(
                    f"Called {op} with a float0 array. float0 (the gradient dtype of integer "
                    "and bool values) has no data: no operation computes with it. Use "
                    "zeros of a numeric dtype instead, or drop the float0 gradient."
                )
            names = [str(a[1]) for a in avals]
            if len(set(names)) == 1 and target is None:
                return ops
            raise OperandTypeError(f"{op} does not accept dtypes {', '.join(names)}.")
    dt, weak = pol.promote(op, avals, target) if joined is None else joined
    out = []
    i = -1
    for o in ops:
        i += 1
        av = o.aval
        if av[1] is dt and av[2] == weak:  # already there (convert's own first test)
            out.append(o)
            continue
        overflow = pol.overflow(op, i)  # asked only when an operand converts
        if dt is _BOOL and av[1].kind == "c":  # a cast to bool: both parts count
            c = convert(ctx, _complex_truth(ctx, o), dt, weak, overflow)
        elif av[1] is _BOOL and dt.kind in "fc" and pol.ieee_exact_lowering:
            # convert(bool) * y is a select to XLA (False * inf would be 0, not nan)
            c = convert(ctx, convert(ctx, o, _UINT8, False), dt, weak, overflow)
        else:
            c = convert(ctx, o, dt, weak, overflow)
        if c is not o and av[1] is not dt and not ctx.eager:  # (eager keeps no record)
            # The convert equation just recorded knows the source line; a folded literal
            # recorded none.
            if c.atom.__class__ is Literal:
                src = ctx.src or user_source()
            else:
                src = ctx.equations[-1].source_info  # type: ignore[attr-defined]
            v = o.atom
            py = v.value if v.__class__ is Literal and not isinstance(v.value, np.generic) else None
            ctx.promoted(_new_tuple(Promotion, (op, tuple(avals), av, c.aval, src, py)))
        out.append(c)
    return out


def _complex_truth(ctx: Context, x: Tracer) -> Tracer:
    """x != 0 for a complex x: the truth NumPy and PyTorch give a complex value (XLA's
    convert to bool looks at the real part only, so 1j would be False)."""
    if x.atom.__class__ is Literal:
        aval = _make((), _BOOL, False)
        return Tracer(aval, Literal(np.bool_(x.atom.value != 0), aval), ctx)
    return bind(P.ne_p, x, const_like(x, 0))


def python_literal(x: Tracer) -> Any:
    """The Python scalar behind an operand, if it is one (for explain)."""
    v = x.atom
    if v.__class__ is Literal and not isinstance(v.value, np.generic):
        return v.value
    return None


def is_literal(x: Tracer) -> bool:
    return x.atom.__class__ is Literal


def lit(ctx: Context, value: Any, dt: DType, weak: bool = False) -> Tracer:
    """A scalar constant of a given dtype, as a tracer holding a Literal."""
    aval = _make((), dt, weak)
    mode = ctx.policy.roundings.get(dt) if ctx.policy.roundings else None
    if mode is not None:  # the policy's library rounds into dt its own way
        return Tracer(aval, Literal(round_host(value, dt, mode), aval), ctx)
    return Tracer(aval, Literal(np.asarray(value).astype(dt.numpy)[()], aval), ctx)


def convert_fill(ctx: Context, value: Any, dtype: DType, weak: bool) -> Tracer:
    """A ``full``/``full_like`` fill converted to `dtype` as jax's ``convert_element_type``
    converts a Python scalar: a Python int goes straight to `dtype` (wrapping with a
    warning, or the policy's overflow rule), never first to the weak int type it may not
    fit (``full_like(uint32_keys, 2**32 - 1)`` with x64 off is uint32 max in jax)."""
    if value.__class__ is int and dtype.kind != "K":
        if ctx.policy.roundings and dtype in ctx.policy.roundings:
            return lit(ctx, value, dtype, weak)  # rounds as the policy's library does
        return lit(ctx, literal_value(value, dtype, ctx.policy.literal_overflow), dtype, weak)
    return convert(ctx, operand(value, ctx), dtype, weak)


def default_fill(ctx: Context, value: Any) -> Tracer:
    """The fill of ``full(shape, value)`` with no dtype: a Python int that does not fit
    the weak default int wraps into it there (jax converts the fill, it does not check it
    as an argument: ``full((2,), 2**32 - 1)`` is weak int32 -1 with x64 off)."""
    try:
        return operand(value, ctx)
    except ArgumentOverflowError:
        if value.__class__ is not int:
            raise
        dt, weak = ctx.policy.scalar(int)
        return lit(ctx, literal_value(value, dt, "wrap"), dt, weak)


def const_like(x: Tracer, value: Any) -> Tracer:
    """``lax._const``: weak for a weak 0-d operand of the default dtype of its kind (a
    Python scalar of that kind is exactly it), else a strong literal of its dtype (a weak
    float32 value with x64 on compares with a strong zero)."""
    aval = x.aval
    return lit(x.ctx, value, aval[1], aval[2] and not aval[0] and scalar_const(x.ctx, aval[1]))


def scalar_const(ctx: Context, dt: DType) -> bool:
    """Whether ``lax._const`` of a weak 0-d value of dtype `dt` is weak: a Python scalar
    of the value's kind (bool, int, float, complex) when it has that dtype in this mode,
    a numpy array of `dt` otherwise (a weak uint: a Python int is signed)."""
    return ctx.policy.defaults.get("i" if dt.kind == "u" else dt.kind) is dt


def result_shape(fn: str, shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShapeError(
            f"{fn}: shapes {', '.join(map(str, shapes))} cannot be broadcast together "
            "(each dimension must match or be 1). Reshape or slice the operands first."
        ) from None


def broadcast_rank(x: Tracer, rank: int) -> Tracer:
    """``lax.broadcast_to_rank``: prepend unit dimensions."""
    k = rank - len(x.aval[0])
    if k == 0:
        return x
    shape = (1,) * k + x.aval[0]
    return bind(P.broadcast_in_dim_p, x, shape=shape, broadcast_dimensions=tuple(range(k, rank)))


# jax's ``jax_numpy_rank_promotion`` ("allow", "warn" or "raise"); ``.value`` follows
# jax.config.update and the ``jax.numpy_rank_promotion(...)`` context manager.
RANK_PROMOTION: Any = jax.numpy_rank_promotion
_RANK_DOC = "https://docs.jax.dev/en/latest/rank_promotion_warning.html"


def rank_promotion_check(shapes: Sequence[Any], where: str) -> None:
    """jax.numpy's rank-promotion setting, for operands of different non-zero ranks:
    a UserWarning ("warn") or a RankPromotionError ("raise"), as jax's."""
    what = f"operands with shapes {' '.join(map(str, shapes))} require rank promotion for {where}"
    if RANK_PROMOTION.value == "raise":
        raise RankPromotionError(
            f"{what}, which the config option jax_numpy_rank_promotion='raise' forbids: "
            "add the leading dimensions explicitly (expand_dims, reshape), or set the "
            f"option to 'allow'; see {_RANK_DOC}."
        )
    if RANK_PROMOTION.value == "warn":
        warnings.warn(
            f"{what}: following NumPy automatic rank promotion. Set the "
            "jax_numpy_rank_promotion config option to 'allow' to disable this warning; "
            f"see {_RANK_DOC}.",
            stacklevel=3,
        )


def check_ranks(fn: str, shapes: Sequence[tuple[int, ...]]) -> None:
    """`rank_promotion_check` for a call of `fn` whose operands have different non-zero
    ranks. As in jax, the setting holds for every call, also one a mirror makes inside
    another (jnp.clip's maximum, jnp.linspace's subtract): under 'raise' those raise too."""
    ranks = {len(s) for s in shapes if s}
    if len(ranks) > 1 and RANK_PROMOTION.value != "allow":
        rank_promotion_check(shapes, fn)


def check_loop_ranks(
    signature: str, shapes: Sequence[tuple[int, ...]], cores: Sequence[int]
) -> None:
    """`rank_promotion_check` for a function jax builds with ``jnp.vectorize(signature=...)``
    (vecdot, matvec, linalg.solve): operands (not rank 0) whose loop dimensions, the
    ones left of their `cores` core dimensions, differ in number."""
    loops = {len(s) - c for s, c in zip(shapes, cores, strict=True) if s}
    if len(loops) > 1 and RANK_PROMOTION.value != "allow":
        rank_promotion_check(shapes, f"jnp.vectorize function with signature {signature}")


def promote_shapes(fn: str, ops: list[Tracer]) -> list[Tracer]:
    """``promote_shapes``: rank-promote only when two non-scalar ranks differ."""
    shapes = [o.aval[0] for o in ops]
    if len(shapes) == 2 and (len(shapes[0]) == len(shapes[1]) or not shapes[0] or not shapes[1]):
        return ops  # equal ranks, or a scalar: lax broadcasts these itself
    if len({len(s) for s in shapes if s}) < 2:
        return ops
    check_ranks(fn, shapes)
    rank = len(result_shape(fn, shapes))
    return [broadcast_rank(o, rank) for o in ops]


def promote_args(
    ctx: Context, fn: str, args: Sequence[Any], target: str | None = None
) -> list[Tracer]:
    """``promote_args{,_inexact,_numeric}``: operands, promoted dtypes, promoted ranks."""
    if len(args) == 2:  # the hot path of every binary operation: fewer calls, no lists
        x, y = args
        if x.__class__ is not Tracer or x.ctx is not ctx:
            x = operand(x, ctx)
        if y.__class__ is not Tracer or y.ctx is not ctx:
            y = operand(y, ctx)
        ax, ay = x.aval, y.aval
        if (
            target is None
            and ctx.policy.same_needs_no_join
            and ax[1] is ay[1]
            and ax[2] == ay[2]
            and ax[1] is not _BOOL
        ):
            ops = [x, y]  # one dtype and weak flag: nothing to join (as `promote`)
        else:
            ops = _join_convert(ctx, fn, [x, y], target)
        sx, sy = ops[0].aval[0], ops[1].aval[0]
        if len(sx) == len(sy) or not sx or not sy:
            return ops
        return promote_shapes(fn, ops)
    return promote_shapes(fn, promote(ctx, fn, operands(ctx, args), target))


def broadcast_to(x: Tracer, shape: tuple[int, ...]) -> Tracer:
    """``lax.broadcast_to`` semantics: numpy-style right-aligned broadcasting."""
    s = x.aval[0]
    if s == shape:
        return x
    if len(s) > len(shape) or any(
        a not in (1, c) for a, c in zip(s[::-1], shape[::-1], strict=False)
    ):
        if len(s) > len(shape):
            raise ShapeError(
                f"Cannot broadcast to shape with fewer dimensions: arr_shape={s} "
                f"shape={shape}; reduce or reshape the array first."
            )
        raise ShapeError(
            f"Incompatible types for broadcasting: input shape={s} and requested shape="
            f"{shape} (each dimension must match or be 1)."
        )
    k = len(shape) - len(s)
    keep = tuple(i + k for i, d in enumerate(s) if d == shape[i + k])
    if len(keep) != len(s):  # squeeze the unit dims that grow
        x = bind(P.reshape_p, x, new_sizes=tuple(d for i, d in enumerate(s) if i + k in keep))
    return bind(P.broadcast_in_dim_p, x, shape=shape, broadcast_dimensions=keep)
