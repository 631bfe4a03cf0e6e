"""Elementwise functions (jax.numpy's ufuncs), ``where`` and ``clip``, with jax.numpy's
promotion and its decompositions where values depend on them (floor_divide,
remainder, integer powers)."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from ml_dtypes import finfo

from weaktrace.core import primitives_window as W
from weaktrace.core.eager_jit import concrete_int
from weaktrace.dtypes.policies.base import int_bounds
from weaktrace.dtypes.registry import SUB_BYTE_INTS
from weaktrace.errors import InvalidInputError, OperandTypeError, OperandValueError
from weaktrace.ir.values import Literal
from weaktrace.numpy._core import (
    BOOL,
    F32,
    Context,
    P,
    Tracer,
    alias,
    bind,
    broadcast_to,
    const_like,
    context,
    convert,
    emit,
    export,
    export_as,
    full_like_value,
    kind,
    lit,
    operand,
    operands,
    promote,
    promote_args,
    promote_shapes,
    python_literal,
    result_shape,
    to_bool,
)
from weaktrace.numpy._core import N as _N
from weaktrace.numpy._scalar_checks import check_scalar_exponent, float_exponent, int_bound


def _unary(name: str, prim: Any, target: str | None = None) -> Callable[[Any], Any]:
    def fn(x: Any, /) -> Any:
        b = context(x)
        (x,) = promote(b, name, [operand(x, b)], target)
        return bind(prim, x)

    return export_as(fn, name, f"``jax.numpy.{name}``, traced with JAX's promotion.")


def _binary(name: str, prim: Any, target: str | None = None) -> Callable[[Any, Any], Any]:
    def fn(x: Any, y: Any, /) -> Any:
        b = context(x, y)
        return b.emit(prim, tuple(promote_args(b, name, (x, y), target)), {})

    return export_as(fn, name, f"``jax.numpy.{name}``, traced with JAX's promotion.")


exp = _unary("exp", P.exp_p, "inexact")
exp2 = _unary("exp2", P.exp2_p, "inexact")
expm1 = _unary("expm1", P.expm1_p, "inexact")
log = _unary("log", P.log_p, "inexact")
log1p = _unary("log1p", P.log1p_p, "inexact")
sin = _unary("sin", P.sin_p, "inexact")
cos = _unary("cos", P.cos_p, "inexact")
tan = _unary("tan", P.tan_p, "inexact")
arcsin = _unary("arcsin", P.asin_p, "inexact")
arccos = _unary("arccos", P.acos_p, "inexact")
arctan = _unary("arctan", P.atan_p, "inexact")
sinh = _unary("sinh", P.sinh_p, "inexact")
cosh = _unary("cosh", P.cosh_p, "inexact")
tanh = _unary("tanh", P.tanh_p, "inexact")
sqrt = _unary("sqrt", P.sqrt_p, "inexact")
cbrt = _unary("cbrt", P.cbrt_p, "inexact")
negative = _unary("negative", P.neg_p)


@export
def sign(x: Any, /) -> Any:
    """``jax.numpy.sign`` (bools are refused, or, where the policy says so, kept: torch)."""
    b = context(x)
    (x,) = promote(b, "sign", [operand(x, b)])
    return x if kind(x) == "b" and b.policy.bool_sign else bind(P.sign_p, x)


bitwise_not = _unary("bitwise_not", P.not_p)
invert = _unary("invert", P.not_p)

subtract = _binary("subtract", P.sub_p)


def _extremum(name: str, prim: Any, order: Any) -> Callable[[Any, Any], Any]:
    def fn(x: Any, y: Any, /) -> Any:
        b = context(x, y)
        x, y = promote_args(b, name, (x, y))
        if kind(x) == "c" and b.policy.numpy_complex_order:
            return _numpy_complex_pick(b, order, x, y)
        return b.emit(prim, (x, y), {})

    return export_as(fn, name, f"``jax.numpy.{name}``, traced with JAX's promotion.")


def _numpy_complex_pick(b: Context, order: Any, x: Any, y: Any) -> Any:
    """NumPy's complex maximum (order gt) / minimum (order lt): x where x has a NaN part
    or x comes first in the lexicographic order (real parts, then imaginary ones), else
    y, so a NaN on either side is kept."""
    xr, xi, yr, yi = (emit(p, v) for v in (x, y) for p in (P.real_p, P.imag_p))
    nan = [emit(P.ne_p, v, v) for v in (xr, xi, yr, yi)]
    no_nan_imag = emit(P.not_p, emit(P.or_p, nan[1], nan[3]))
    by_real = emit(P.and_p, emit(order, xr, yr), no_nan_imag)
    same_real = emit(P.eq_p, xr, yr)
    by_imag = emit(P.and_p, same_real, emit(P.or_p, emit(order, xi, yi), emit(P.eq_p, xi, yi)))
    keep_x = emit(P.or_p, emit(P.or_p, nan[0], nan[1]), emit(P.or_p, by_real, by_imag))
    return select(b, keep_x, x, y)


maximum = _extremum("maximum", P.max_p, P.gt_p)
minimum = _extremum("minimum", P.min_p, P.lt_p)


def _compare_args(b: Context, name: str, x: Any, y: Any) -> list[Any]:
    """Comparison operands. NumPy compares a Python int with an integer array exactly,
    even when the int does not fit the array's dtype (``np.int8(1) < 300`` is True):
    under a policy that raises on such ints, see `_exact_int_operands`."""
    ops = operands(b, (x, y))
    if b.policy.literal_overflow == "raise":
        ops = _exact_int_operands(b, ops)
    return promote_shapes(name, promote(b, name, ops))


def _exact_int_operands(b: Context, ops: list[Tracer]) -> list[Tracer]:
    """A Python int constant beyond the integer array's range compares as an infinity; a
    Python int argument compares as int64 (it holds every value), or with a uint64 array
    in uint64, a negative one standing in as 0 against 1 (every array value is above)."""
    arrays = [o for o in ops if not o.aval.weak_type and kind(o) in "iu"]
    if len(arrays) != 1:
        return ops
    x = arrays[0]
    lo, hi = int_bounds(x.aval.dt)
    out = list(ops)
    for i, o in enumerate(ops):
        if not (o.aval.weak_type and kind(o) == "i"):
            continue
        value = python_literal(o)
        if value is None and hi < 2**63:
            out[i] = convert(b, o, b.policy.defaults["i"], False)
        elif value is None:  # a Python int argument and a uint64 array
            negative_ = emit(P.lt_p, o, const_like(o, 0))
            as_u = convert(b, o, x.aval.dt, False, "wrap")
            out[i] = select(b, negative_, lit(b, 0, x.aval.dt), as_u)
            out[1 - i] = select(b, negative_, full_like_value(x, 1), x)
        elif not lo <= value <= hi:
            out[i] = lit(b, np.inf if value > hi else -np.inf, b.policy.defaults["f"])
    return out


def _comparison(name: str, prim: Any) -> Callable[[Any, Any], Any]:
    def fn(x: Any, y: Any, /) -> Any:
        b = context(x, y)
        return b.emit(prim, tuple(_compare_args(b, name, x, y)), {})

    return export_as(fn, name, f"``jax.numpy.{name}``.")


equal = _comparison("equal", P.eq_p)
not_equal = _comparison("not_equal", P.ne_p)
bitwise_and = _binary("bitwise_and", P.and_p)
bitwise_or = _binary("bitwise_or", P.or_p)
bitwise_xor = _binary("bitwise_xor", P.xor_p)
left_shift = _binary("left_shift", P.shift_left_p, "numeric")


@export
def true_divide(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.true_divide``: integers become floating."""
    b = context(x1, x2)
    x1, x2 = promote_args(b, "true_divide", (x1, x2), "inexact")
    return _divide(b, x1, x2)


def _divide(b: Context, x: Any, y: Any) -> Any:
    """x / y. XLA makes a division by a constant or broadcast divisor x * (1 / y), and
    1 / y flushes to zero for ``abs(y) > 2**126`` (float32; 2**1022 for float64): max /
    max would be 0. Under policies with ieee_exact_lowering both sides are scaled by 1/8
    for such divisors (exact), the scale hidden from XLA behind an optimization barrier
    (the size of the divisor: a scalar, mostly) so that it cannot fold it back."""
    name = x.aval.dt.name
    shape = result_shape("true_divide", [x.aval.shape, y.aval.shape])
    exposed = y.atom.__class__ is Literal or y.aval.shape != shape
    if not (b.policy.ieee_exact_lowering and exposed and name in ("float32", "float64")):
        return emit(P.div_p, x, y)
    limit = 2.0 ** (125 if name == "float32" else 1021)
    if y.atom.__class__ is Literal and not builtins.abs(y.atom.value) > limit:
        return emit(P.div_p, x, y)  # a constant divisor with a normal reciprocal
    big = emit(P.gt_p, emit(P.abs_p, y), lit(b, limit, x.aval.dt))
    scale = select(b, big, full_like_value(y, 0.125), full_like_value(y, 1.0))
    (scale,) = b.emit_n(W.optimization_barrier_p, (scale,), {})
    return emit(P.div_p, emit(P.mul_p, x, scale), emit(P.mul_p, y, scale))


arctan2 = _binary("arctan2", P.atan2_p, "inexact")


@export
def divide(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.divide``: true division (integers become floating), one mirror call."""
    return true_divide.__wrapped__(x1, x2)  # type: ignore[attr-defined]


@export
def add(x: Any, y: Any, /) -> Any:
    """``jax.numpy.add``; for bools it is logical or."""
    b = context(x, y)
    x, y = promote_args(b, "add", (x, y))
    return b.emit(P.or_p if x.aval.dt == BOOL else P.add_p, (x, y), {})


@export
def multiply(x: Any, y: Any, /) -> Any:
    """``jax.numpy.multiply``; for bools it is logical and."""
    b = context(x, y)
    x, y = promote_args(b, "multiply", (x, y))
    return b.emit(P.and_p if x.aval.dt == BOOL else P.mul_p, (x, y), {})


def _complex_compare(name: str, prim: Any) -> Callable[[Any, Any], Any]:
    def fn(x: Any, y: Any, /) -> Any:
        b = context(x, y)
        x, y = _compare_args(b, name, x, y)
        if kind(x) != "c":
            return emit(prim, x, y)
        # jnp orders complex numbers lexicographically: real parts, then imaginary.
        xr, yr = emit(P.real_p, x), emit(P.real_p, y)
        xi, yi = emit(P.imag_p, x), emit(P.imag_p, y)
        on_imag, on_real = emit(prim, xi, yi), emit(prim, xr, yr)
        same_real = emit(P.eq_p, xr, yr)
        return emit(P.select_n_p, same_real, on_real, on_imag)

    return export_as(fn, name, f"``jax.numpy.{name}`` (complex values compare lexicographically).")


less = _complex_compare("less", P.lt_p)
less_equal = _complex_compare("less_equal", P.le_p)
greater = _complex_compare("greater", P.gt_p)
greater_equal = _complex_compare("greater_equal", P.ge_p)


def _logical(name: str, prim: Any) -> Callable[[Any, Any], Any]:
    def fn(x: Any, y: Any, /) -> Any:
        b = context(x, y)
        x, y = (to_bool(v) for v in promote_args(b, name, (x, y)))
        return emit(prim, x, y)

    return export_as(fn, name, f"``jax.numpy.{name}``: operands become bool (x != 0) first.")


logical_and = _logical("logical_and", P.and_p)
logical_or = _logical("logical_or", P.or_p)
logical_xor = _logical("logical_xor", P.xor_p)


@export
def logical_not(x: Any, /) -> Any:
    """``jax.numpy.logical_not``."""
    b = context(x)
    return emit(P.not_p, to_bool(operand(x, b)))


@export
def right_shift(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.right_shift``: arithmetic for signed, logical for unsigned."""
    b = context(x1, x2)
    x1, x2 = promote_args(b, "right_shift", (x1, x2), "numeric")
    # jnp asks numpy whether the dtype is unsigned; numpy does not count ml_dtypes' uint4
    # (or uint1/uint2) as unsigned, so those shift arithmetically in JAX, and here too.
    dt = x1.aval.dt
    unsigned = (
        np.issubdtype(dt.numpy, np.unsignedinteger) if dt.numpy is not None else kind(x1) == "u"
    )
    prim = P.shift_right_logical_p if unsigned else P.shift_right_arithmetic_p
    return emit(prim, x1, x2)


@export
def positive(x: Any, /) -> Any:
    """``jax.numpy.positive``: the value itself."""
    return operand(x, context(x))


@export
def absolute(x: Any, /) -> Any:
    """``jax.numpy.absolute``; bool and unsigned values are returned as they are;
    the absolute value of a complex number is real."""
    b = context(x)
    (x,) = promote(b, "absolute", [operand(x, b)])  # a policy may reject the operand
    return x if kind(x) in "bu" else emit(P.abs_p, x)


abs = alias("abs", absolute)


def _identity_on_integers(name: str, prim: Any) -> Callable[[Any], Any]:
    def fn(x: Any, /) -> Any:
        b = context(x)
        x = operand(x, b)
        if kind(x) in "biu":
            return x
        (x,) = promote(b, name, [x], "inexact")
        return emit(prim, x)

    return export_as(fn, name, f"``jax.numpy.{name}``; integers and bools are returned unchanged.")


floor = _identity_on_integers("floor", P.floor_p)
ceil = _identity_on_integers("ceil", P.ceil_p)


@export
def trunc(x: Any) -> Any:
    """``jax.numpy.trunc``: ceil for negatives, floor otherwise."""
    b = context(x)
    x = operand(x, b)
    if kind(x) in "biu":
        return x
    negative_ = emit(P.lt_p, x, const_like(x, 0))
    return where(negative_, ceil(x), floor(x))


@export
def round(a: Any, decimals: int = 0, out: None = None) -> Any:
    """``jax.numpy.round`` (integers unchanged; floats to nearest, ties to even)."""
    b = context(a)
    decimals = operator.index(decimals)
    a = operand(a, b)
    if kind(a) == "b":
        raise OperandValueError("round does not accept bool values (as in JAX); cast first")
    if kind(a) in "iu":
        if decimals < 0:
            raise NotImplementedError("integer round with decimals < 0 is not implemented")
        return a
    if kind(a) in "fc" and decimals > np.log10(float(finfo(P._real_dtype(a.aval[1]).numpy).max)):
        return a  # rounding beyond the dtype's precision changes nothing (jax)
    if kind(a) == "c":
        return emit(P.complex_p, *(round(emit(p, a), decimals) for p in (P.real_p, P.imag_p)))
    (a,) = promote(b, "round", [a], "inexact")
    if decimals == 0:
        return emit(P.round_p, a, rounding_method=1)
    w = convert(b, a, F32, False) if a.aval[1].name == "float16" else a  # jax scales in f32
    factor = const_like(w, 10.0**decimals)
    r = emit(P.div_p, emit(P.round_p, emit(P.mul_p, w, factor), rounding_method=1), factor)
    return r if w is a else convert(b, r, a.aval[1], False)


@export
def square(x: Any, /) -> Any:
    """``jax.numpy.square``: x * x, bools as int32."""
    b = context(x)
    (x,) = promote(b, "square", [operand(x, b)], "numeric")
    return emit(P.square_p, x)


@export
def reciprocal(x: Any, /) -> Any:
    """``jax.numpy.reciprocal``: 1 / x, integers become floating."""
    b = context(x)
    (x,) = promote(b, "reciprocal", [operand(x, b)], "inexact")
    return emit(P.integer_pow_p, x, y=-1)


@export
def log2(x: Any, /) -> Any:
    """``jax.numpy.log2``: log(x) / log(2)."""
    b = context(x)
    (x,) = promote(b, "log2", [operand(x, b)], "inexact")
    if kind(x) == "c":
        r = emit(P.log_p, x)
        re, im = emit(P.real_p, r), emit(P.imag_p, r)
        ln2 = emit(P.log_p, lit(b, 2, re.aval.dt))
        return emit(P.complex_p, emit(P.div_p, re, ln2), emit(P.div_p, im, ln2))
    two = lit(b, 2, x.aval.dt)
    return emit(P.div_p, emit(P.log_p, x), emit(P.log_p, two))


@export
def log10(x: Any, /) -> Any:
    """``jax.numpy.log10``: log(x) * (1 / log(10))."""
    b = context(x)
    (x,) = promote(b, "log10", [operand(x, b)], "inexact")
    real_dt = P._real_dtype(x.aval.dt)
    k = lit(b, 0.4342944819032518, real_dt)
    r = emit(P.log_p, x)
    if kind(x) == "c":
        re, im = emit(P.real_p, r), emit(P.imag_p, r)
        return emit(P.complex_p, emit(P.mul_p, re, k), emit(P.mul_p, im, k))
    return emit(P.mul_p, r, k)


@export
def real(val: Any, /) -> Any:
    """``jax.numpy.real``."""
    b = context(val)
    val = operand(val, b)
    return emit(P.real_p, val) if kind(val) == "c" else val


@export
def imag(val: Any, /) -> Any:
    """``jax.numpy.imag``: zeros of the same dtype for real values (a policy may refuse
    them: torch)."""
    b = context(val)
    val = operand(val, b)
    b.policy.refuse("imag", [val.aval])
    return emit(P.imag_p, val) if kind(val) == "c" else full_like_value(val, 0)


@export
def conjugate(x: Any, /) -> Any:
    """``jax.numpy.conjugate``."""
    b = context(x)
    x = operand(x, b)
    return emit(P.conj_p, x) if kind(x) == "c" else x


conj = alias("conj", conjugate)


@export
def isfinite(x: Any, /) -> Any:
    """``jax.numpy.isfinite``."""
    b = context(x)
    x = operand(x, b)
    if kind(x) == "f":
        return emit(P.is_finite_p, x)
    if kind(x) == "c":
        return emit(P.and_p, emit(P.is_finite_p, emit(P.real_p, x)),
                     emit(P.is_finite_p, emit(P.imag_p, x)))  # fmt: skip
    return full_like_value(x, True, BOOL)


@export
def isinf(x: Any, /) -> Any:
    """``jax.numpy.isinf``."""
    b = context(x)
    x = operand(x, b)
    # jnp's _constant_like makes a strong array constant, whatever x's weak flag.
    if kind(x) == "f":
        inf = lit(b, np.inf, x.aval.dt)
        return emit(P.eq_p, emit(P.abs_p, x), inf)
    if kind(x) == "c":
        re, im = emit(P.real_p, x), emit(P.imag_p, x)
        inf = lit(b, np.inf, re.aval.dt)
        return emit(P.or_p, emit(P.eq_p, emit(P.abs_p, re), inf),
                     emit(P.eq_p, emit(P.abs_p, im), inf))  # fmt: skip
    return full_like_value(x, False, BOOL)


@export
def isnan(x: Any, /) -> Any:
    """``jax.numpy.isnan``: x != x."""
    b = context(x)
    x = operand(x, b)
    return emit(P.ne_p, x, x)


@export
def floor_divide(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.floor_divide``, with jax's integer and float algorithms."""
    b = context(x1, x2)
    x1, x2 = promote_args(b, "floor_divide", (x1, x2), "numeric")
    k = kind(x1)
    if k in "biu" and b.policy.int_division_by_zero_is_zero:
        # NumPy: x // 0 is 0. The divisor becomes 1 before the division, so XLA never
        # divides by zero (nor folds such a division of constants, which traps).
        zero = emit(P.eq_p, x2, const_like(x2, 0))
        safe = select(b, zero, full_like_value(x2, 1), x2)
        return select(b, zero, lit(b, 0, x1.aval.dt), _int_floor_divide(x1, safe))
    return _int_floor_divide(x1, x2)


def _int_floor_divide(x1: Any, x2: Any) -> Any:
    """jax.numpy's floor_divide of integers (XLA's values for a zero divisor)."""
    k = kind(x1)
    if k == "u" or k == "b":
        return emit(P.div_p, x1, x2)
    if k == "i":
        # jax writes these with jnp operators (x != y, q - 1), so weak flags follow jnp.
        quotient = emit(P.div_p, x1, x2)
        signs_differ = not_equal(emit(P.sign_p, x1), emit(P.sign_p, x2))
        select = logical_and(signs_differ, not_equal(emit(P.rem_p, x1, x2), 0))
        return where(select, subtract(quotient, 1), quotient)
    if k == "c":
        raise InvalidInputError("floor_divide does not accept complex operands (as in JAX)")
    return _float_divmod(x1.ctx, x1, x2)[0]


def _float_divmod(b: Context, x1: Any, x2: Any) -> tuple[Any, Any]:
    """``jax._src.numpy.ufuncs._float_divmod``."""
    mod = emit(P.rem_p, x1, x2)
    zero_divisor = emit(P.eq_p, x2, const_like(x2, 0))
    x1_corrected = where(zero_divisor, x1, emit(P.sub_p, x1, mod))
    div = _divide(b, x1_corrected, x2)
    ind = emit(P.and_p, emit(P.ne_p, mod, const_like(mod, 0)),
                emit(P.ne_p, emit(P.sign_p, x2), emit(P.sign_p, mod)))  # fmt: skip
    ind_b = promote_shapes("divmod", [ind, mod])[0]
    mod = select(b, ind_b, add(mod, x2), mod)
    div = select(b, ind_b, subtract(div, 1.0), div)
    return emit(P.round_p, div, rounding_method=0), mod


def select(b: Context, pred: Any, on_true: Any, on_false: Any) -> Any:
    """``lax.select``: select_n(pred, on_false, on_true), shapes already equal."""
    shape = result_shape("select", [pred.aval.shape, on_true.aval.shape, on_false.aval.shape])
    pred, on_true, on_false = (broadcast_to(v, shape) for v in (pred, on_true, on_false))
    return emit(P.select_n_p, pred, on_false, on_true)


@export
def remainder(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.remainder``: the result has the sign of the divisor."""
    b = context(x1, x2)
    x1, x2 = promote_args(b, "remainder", (x1, x2), "numeric")
    zero = lit(b, 0, x1.aval.dt)  # jnp's _constant_like: a strong array
    if kind(x2) in "iu":
        ones = full_like_value(x2, 1)
        x2 = where(equal(x2, 0), ones, x2)
    trunc_mod = emit(P.rem_p, x1, x2)
    not_zero = emit(P.ne_p, trunc_mod, zero)
    signs = emit(P.ne_p, emit(P.lt_p, trunc_mod, zero), emit(P.lt_p, x2, zero))
    do_plus = emit(P.and_p, signs, not_zero)
    return select(b, do_plus, emit(P.add_p, trunc_mod, x2), trunc_mod)


mod = alias("mod", remainder)


@export
def power(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.power``: a concrete integer exponent uses integer_pow; integer
    bases use binary exponentiation; float bases with integer exponents skip promotion."""
    b = context(x1, x2)
    y = concrete_int(x2)
    if y is not None and b.policy.integer_pow_literal:  # JAX: x1's dtype decides alone
        (x,) = promote(b, "power", [operand(x1, b)], "numeric")
        return emit(P.integer_pow_p, x, y=y)
    a1, a2 = promote_shapes("power", operands(b, (x1, x2)))
    p1, p2 = promote(b, "power", [a1, a2], "numeric")
    if kind(p1) == "b":  # a policy that keeps bools (torch): x ** 0 is True, x ** 1 is x
        return emit(P.or_p, p1, emit(P.not_p, p2))
    check_scalar_exponent(b, x2, p1)
    if y is not None:  # other policies: the literal joins the promotion, then integer_pow
        if y < 0 and kind(p1) in "biu":
            raise OperandTypeError("Integers to negative integer powers are not allowed.")
        f = float_exponent(b, p1, y)  # NumPy: y as p1's float (2**64 - 1 is even there)
        return emit(P.integer_pow_p, p1, y=y) if f is None else emit(P.pow_p, p1, f)
    if kind(p1) in "biu":
        if p1.aval.dt.name in SUB_BYTE_INTS:
            raise OperandValueError(  # jnp: np.iinfo rejects the dtype, a ValueError
                f"power of {p1.aval.dt} by a traced exponent is not supported (as in JAX); "
                "convert to int8 or wider first, or use a concrete integer exponent."
            )
        return _pow_int_int(b, p1, p2)
    keeps = b.policy.float_base_keeps_dtype or p1.aval[1:] == a1.aval[1:]
    if kind(a1) in "fc" and kind(a2) in "iu" and keeps:
        return emit(P.pow_p, a1, a2)  # a float base keeps an integer exponent (lax.pow)
    out = emit(P.pow_p, p1, p2)
    if b.policy.numpy_power and p1.aval.dt.name in ("float32", "float64"):
        return _numpy_sqrt_path(b, p1, p2, out)
    return out


def _numpy_sqrt_path(b: Context, x: Any, y: Any, out: Any) -> Any:
    """NumPy's float32/float64 power loop computes sqrt(x) when its exponent is 0.5 and
    repeats along the inner loop (a 0-d exponent, or one whose last axis broadcasts):
    (-inf) ** 0.5 is then nan where pow (XLA's, C's) gives inf."""
    shape = result_shape("power", [x.aval.shape, y.aval.shape])
    ys = y.aval.shape
    if ys and not (ys[-1] == 1 and shape[-1] != 1):
        return out
    if y.atom.__class__ is Literal:
        return emit(P.sqrt_p, x) if y.atom.value == 0.5 else out
    half = emit(P.eq_p, y, lit(b, 0.5, y.aval.dt))
    return select(b, half, emit(P.sqrt_p, x), out)


pow = alias("pow", power)


def _pow_int_int(b: Context, x1: Any, x2: Any) -> Any:
    """``jax._src.numpy.ufuncs._pow_int_int``: six steps of binary exponentiation, so
    exponents >= 64 give wrong values, as in JAX. Policies that raise to the whole
    exponent (NumPy's, PyTorch's) step through every bit of the exponent's dtype."""
    dt = x2.aval.dt
    zero, one = lit(b, 0, dt), lit(b, 1, dt)
    full = b.policy.int_pow_full_exponent or b.policy.numpy_power
    base, exponent = x1, x2
    start = emit(P.and_p, emit(P.eq_p, x1, zero), emit(P.ne_p, x2, zero))
    acc = where(start, zero, one)
    for _ in range(dt.bits if full else 6):
        acc = where(emit(P.and_p, x2, one), emit(P.mul_p, acc, x1), acc)
        x1 = emit(P.mul_p, x1, x1)
        x2 = emit(P.shift_right_logical_p, x2, one)
    if b.policy.int_pow_full_exponent and dt.kind == "i":
        # torch's powi: 1 ** -n = 1, (-1) ** -n = +-1, else 0
        minus_one = lit(b, -1, dt)
        odd = emit(P.ne_p, emit(P.and_p, exponent, one), zero)
        at_minus_one = where(odd, minus_one, one)
        negative = where(emit(P.eq_p, base, one), one,
                         where(emit(P.eq_p, base, minus_one), at_minus_one, zero))  # fmt: skip
        acc = where(emit(P.lt_p, exponent, zero), negative, acc)
    return acc


# -- selection -------------------------------------------------------------------------


@export
def where(
    condition: Any,
    x: Any = None,
    y: Any = None,
    /,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """``jax.numpy.where(condition, x, y)``; ``where(condition)`` is ``nonzero(condition)``
    (traced, it needs `size`, as jax)."""
    if x is None and y is None:
        return _N.nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise InvalidInputError(
            f"where requires ndarray or scalar arguments, got {type(None)} at position "
            f"{1 if x is None else 2}: pass both x and y, or neither (nonzero)."
        )
    if size is not None or fill_value is not None:
        raise InvalidInputError(
            "size and fill_value arguments cannot be used in three-term where function."
        )
    b = context(condition, x, y)
    c = to_bool(operand(condition, b))
    x, y = promote(b, "where", operands(b, (x, y)))
    shape = result_shape("where", [c.aval.shape, x.aval.shape, y.aval.shape])
    ops = (x, y) if not c.aval.shape else (c, x, y)  # a 0-d condition selects as it is
    *c_, x, y = (broadcast_to(v, shape) for v in ops)
    return emit(P.select_n_p, c_[0] if c_ else c, y, x)


@export
def clip(arr: Any = None, /, min: Any = None, max: Any = None) -> Any:
    """``jax.numpy.clip``: maximum(min, arr), then minimum(max, arr)."""
    if arr is None:
        raise OperandValueError("No input was provided to the clip function.")
    b = context(arr, min, max)
    complex_ = builtins.any(v is not None and kind(operand(v, b)) == "c" for v in (arr, min, max))
    if complex_ and not b.policy.numpy_complex_order:
        raise OperandValueError(
            "Clip received a complex value either through the input or the min/max "
            "keywords. Complex values have no ordering and cannot be clipped. Clip the real "
            "or imaginary part instead."
        )
    if b.policy.clip_drops_unreachable_int_bounds and arr is not None:
        a = operand(arr, b)  # NumPy: a Python int bound beyond the array's range is no bound
        if kind(a) in "iu":
            lo, hi = int_bounds(a.aval.dt)
            min = None if type(min) is int and min <= lo else int_bound(b, min, a, "min")
            max = None if type(max) is int and max >= hi else int_bound(b, max, a, "max")
    # The bounds and the array promote together (one join: PyTorch's clamp joins all
    # three at once; JAX's pairwise joins give the same answer on its lattice).
    present = [v for v in (arr, min, max) if v is not None]
    ops = promote(b, "clip", operands(b, present))
    x = ops[0]
    it = iter(ops[1:])
    if complex_:  # NumPy: minimum(maximum(x, min), max), NaNs of x first
        if min is not None:
            x = maximum(x, next(it))
        if max is not None:
            x = minimum(x, next(it))
        return x
    if min is not None:
        x = maximum(next(it), x)
    if max is not None:
        x = minimum(next(it), x)
    return x
