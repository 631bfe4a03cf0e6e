"""A jax.numpy-like namespace: where promotion is applied.

Each function mirrors the jax.numpy function of the same name: the same implicit
promotion (``promote_args`` / ``promote_args_inexact`` / ``_numeric`` from
``jax._src.numpy.util``), the same weak-type outcome, and the same decomposition
into lax primitives where the values depend on it (floor_divide, remainder,
integer power). Inside a trace they record equations; outside one they call
jax.numpy itself, so eager results are JAX's by construction.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from weaktrace.core import primitives as P
from weaktrace.core.trace import (
    Builder,
    Promotion,
    Tracer,
    check_live,
    current,
    invalid_input,
    literal_value,
    operand,
    user_source,
)
from weaktrace.errors import InvalidInputError, OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue, Literal

_make = AbstractValue.make
_new_tuple = tuple.__new__
_NO_PARAMS: dict[str, Any] = {}
_BOOL = np.dtype(bool)
_INT32 = np.dtype("int32")
_F32 = np.dtype("float32")


def _kind(x: Any) -> str:
    return P.kind(x.aval.dtype)


# -- context -------------------------------------------------------------------------


def _builder(*args: Any) -> Builder | None:
    """The active trace, or None to run eagerly; a tracer outside its trace is a leak."""
    b = current()
    for a in args:
        if a.__class__ is Tracer and (b is None or a.builder is not b):
            check_live(a)
    if b is None:
        for a in args:
            if isinstance(a, list | tuple):
                _builder(*a)
    return b


def _operands(b: Builder, args: Sequence[Any]) -> list[Any]:
    return [a if a.__class__ is Tracer and a.builder is b else operand(a, b) for a in args]


# -- promotion -----------------------------------------------------------------------


def _convert(b: Builder, x: Any, dtype: np.dtype, weak: bool) -> Any:
    """``lax._convert_element_type(x, dtype, weak)``: literals fold, tracers get an equation."""
    av = x.aval
    if av.dtype == dtype and av.weak_type == weak:
        return x
    if x.var.__class__ is Literal:  # a constant: fold the conversion, as JAX does
        aval = _make((), dtype, weak)
        value = literal_value(x.var.value, dtype, b.rules.int_overflow)
        return Tracer(aval, Literal(value, aval), b)
    return b.emit(P.convert_element_type_p, (x,), {"new_dtype": dtype, "weak_type": weak})


def _promote(b: Builder, fn: str, ops: list[Any], target: str | None = None) -> list[Any]:
    """promote_dtypes{,_inexact,_numeric,_complex}: the policy decides the dtype the
    operation computes in (for JAX: join, then map to inexact/numeric/complex), and
    every operand is converted to it."""
    if target is None and not b.rules.checks_ops:
        if len(ops) < 2:
            return ops
        first = ops[0].aval
        same = len(ops) == 2 and ops[1].aval[1:] == first[1:]
        if same and (not first[2] or (b.rules.weak_results and first[1] != _BOOL)):
            return ops  # same dtype and weak flag: no-op (weak bools become strong)
    dt, weak = b.rules.promote(fn, [o.aval for o in ops], target)
    out = []
    for o in ops:
        c = _convert(b, o, dt, weak)
        if c is not o and o.aval.dtype != dt:
            record = (
                fn,
                tuple([p.aval for p in ops]),
                o.aval,
                c.aval,
                user_source(),
                _python_literal(o),
            )
            b.promotions.append(_new_tuple(Promotion, record))
        out.append(c)
    return out


def _python_literal(x: Tracer) -> Any:
    """The Python scalar behind an operand, if it is one (for explain)."""
    v = x.var
    if v.__class__ is Literal and not isinstance(v.value, np.generic):
        return v.value
    return None


def _is_literal(x: Tracer) -> bool:
    return x.var.__class__ is Literal


def _lit(b: Builder, value: Any, dt: np.dtype, weak: bool = False) -> Tracer:
    """A scalar constant of a given dtype, as a tracer holding a Literal."""
    aval = _make((), dt, weak)
    return Tracer(aval, Literal(np.asarray(value).astype(dt)[()], aval), b)


def _broadcast_rank(b: Builder, x: Any, rank: int) -> Any:
    """``lax.broadcast_to_rank``: prepend unit dimensions."""
    k = rank - x.aval.ndim
    if k == 0:
        return x
    shape = (1,) * k + x.aval.shape
    return b.emit(
        P.broadcast_in_dim_p,
        (x,),
        {"shape": shape, "broadcast_dimensions": tuple(range(k, rank))},
    )


def _result_shape(fn: str, shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShapeError(
            f"{fn}: shapes {', '.join(map(str, shapes))} cannot be broadcast together "
            "(each dimension must match or be 1). Reshape or slice the operands first."
        ) from None


def _promote_shapes(b: Builder, fn: str, ops: list[Any]) -> list[Any]:
    """``promote_shapes``: rank-promote only when two non-scalar ranks differ."""
    shapes = [o.aval.shape for o in ops]
    if len(shapes) == 2 and (len(shapes[0]) == len(shapes[1]) or not shapes[0] or not shapes[1]):
        return ops  # equal ranks, or a scalar: lax broadcasts these itself
    ranks = {len(s) for s in shapes}
    if len(ranks) == 1 or len({len(s) for s in shapes if s}) < 2:
        return ops
    rank = len(_result_shape(fn, shapes))
    return [_broadcast_rank(b, o, rank) for o in ops]


def _args(b: Builder, fn: str, args: Sequence[Any], target: str | None = None) -> list[Any]:
    return _promote_shapes(b, fn, _promote(b, fn, _operands(b, args), target))


def _const_like(b: Builder, x: Any, value: Any) -> Any:
    """``lax._const``: weak for a weak 0-d operand, else a strong literal of its dtype."""
    dt = x.aval.dtype
    weak = x.aval.weak_type and not x.aval.shape
    return _lit(b, value, dt, weak)


def _public(fn: Callable[..., Any], name: str, doc: str) -> Callable[..., Any]:
    """Name a generated function after the jax.numpy function it mirrors."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _strong_literal(b: Builder, value: Any, dt: np.dtype) -> Tracer:
    """A constant of a given dtype (``np.array(value, dtype)`` in jax's code)."""
    return _lit(b, value, dt, False)


def _emit(b: Builder, prim: Any, *ops: Any, **params: Any) -> Tracer:
    return b.emit(prim, ops, params)


def _full_like(b: Builder, x: Any, value: Any, dtype: np.dtype | None = None) -> Any:
    """``lax.full_like``: the fill broadcast to x's shape (weak iff dtype is None and x weak)."""
    dt = x.aval.dtype if dtype is None else dtype
    weak = dtype is None and x.aval.weak_type
    return _broadcast_scalar(b, _lit(b, value, dt, weak), x.aval.shape)


def _broadcast_scalar(b: Builder, x: Any, shape: tuple[int, ...]) -> Any:
    if x.aval.shape == shape:
        return x
    return _emit(b, P.broadcast_in_dim_p, x, shape=shape, broadcast_dimensions=())


def _to_bool(b: Builder, x: Any) -> Any:
    if x.aval.dtype == _BOOL:
        return x
    return _emit(b, P.ne_p, x, _const_like(b, x, 0))


# -- elementwise, by family ------------------------------------------------------------


def _unary(name: str, prim: Any, target: str | None = None) -> Callable[[Any], Any]:
    eager = getattr(jnp, name)

    def fn(x: Any, /) -> Any:
        b = _builder(x)
        if b is None:
            return eager(x)
        (x,) = _promote(b, name, [operand(x, b)], target)
        return b.emit(prim, (x,), _NO_PARAMS)

    return _public(fn, name, f"``jax.numpy.{name}``, traced with JAX's promotion.")


def _binary(name: str, prim: Any, target: str | None = None) -> Callable[[Any, Any], Any]:
    eager = getattr(jnp, name)

    def fn(x: Any, y: Any, /) -> Any:
        b = _builder(x, y)
        if b is None:
            return eager(x, y)
        return b.emit(prim, tuple(_args(b, name, (x, y), target)), _NO_PARAMS)

    return _public(fn, name, f"``jax.numpy.{name}``, traced with JAX's promotion.")


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
sign = _unary("sign", P.sign_p)
bitwise_not = _unary("bitwise_not", P.not_p)
invert = _unary("invert", P.not_p)

subtract = _binary("subtract", P.sub_p)
maximum = _binary("maximum", P.max_p)
minimum = _binary("minimum", P.min_p)


def _compare_args(b: Builder, name: str, x: Any, y: Any) -> list[Any]:
    """Comparison operands. NumPy compares a Python int exactly even when it does not fit
    the array's dtype (``np.int8(1) < 300`` is True): under a policy that raises on such
    ints, the comparison then runs in the dtype the int needs (int64, as numpy does)."""
    try:
        return _args(b, name, (x, y))
    except OverflowError:
        ops = _operands(b, (x, y))
        if not builtins.any(_kind(o) in "iu" and _python_literal(o) is None for o in ops):
            raise  # numpy's exact path is for integer arrays only
        wide = [_widen_int_literal(b, o) for o in ops]
        return _promote_shapes(b, name, _promote(b, name, wide))


def _widen_int_literal(b: Builder, o: Tracer) -> Tracer:
    """A Python int operand as a strong int64, or float64 beyond int64's range."""
    value = _python_literal(o)
    if value.__class__ is not int:
        return o
    fits = -(2**63) <= value < 2**63
    return _convert(b, o, b.rules.defaults["i" if fits else "f"], False)


def _comparison(name: str, prim: Any) -> Callable[[Any, Any], Any]:
    eager = getattr(jnp, name)

    def fn(x: Any, y: Any, /) -> Any:
        b = _builder(x, y)
        if b is None:
            return eager(x, y)
        return b.emit(prim, tuple(_compare_args(b, name, x, y)), _NO_PARAMS)

    return _public(fn, name, f"``jax.numpy.{name}``.")


equal = _comparison("equal", P.eq_p)
not_equal = _comparison("not_equal", P.ne_p)
bitwise_and = _binary("bitwise_and", P.and_p)
bitwise_or = _binary("bitwise_or", P.or_p)
bitwise_xor = _binary("bitwise_xor", P.xor_p)
left_shift = _binary("left_shift", P.shift_left_p, "numeric")
true_divide = _binary("true_divide", P.div_p, "inexact")
arctan2 = _binary("arctan2", P.atan2_p, "inexact")


def divide(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.divide``: true division (integers become floating)."""
    return true_divide(x1, x2)


def add(x: Any, y: Any, /) -> Any:
    """``jax.numpy.add``; for bools it is logical or."""
    b = _builder(x, y)
    if b is None:
        return jnp.add(x, y)
    x, y = _args(b, "add", (x, y))
    return b.emit(P.or_p if x.aval.dtype == _BOOL else P.add_p, (x, y), _NO_PARAMS)


def multiply(x: Any, y: Any, /) -> Any:
    """``jax.numpy.multiply``; for bools it is logical and."""
    b = _builder(x, y)
    if b is None:
        return jnp.multiply(x, y)
    x, y = _args(b, "multiply", (x, y))
    return b.emit(P.and_p if x.aval.dtype == _BOOL else P.mul_p, (x, y), _NO_PARAMS)


def _complex_compare(name: str, prim: Any) -> Callable[[Any, Any], Any]:
    eager = getattr(jnp, name)

    def fn(x: Any, y: Any, /) -> Any:
        b = _builder(x, y)
        if b is None:
            return eager(x, y)
        x, y = _compare_args(b, name, x, y)
        if _kind(x) != "c":
            return _emit(b, prim, x, y)
        # jnp orders complex numbers lexicographically: real parts, then imaginary.
        xr, yr = _emit(b, P.real_p, x), _emit(b, P.real_p, y)
        xi, yi = _emit(b, P.imag_p, x), _emit(b, P.imag_p, y)
        on_imag, on_real = _emit(b, prim, xi, yi), _emit(b, prim, xr, yr)
        same_real = _emit(b, P.eq_p, xr, yr)
        return _emit(b, P.select_n_p, same_real, on_real, on_imag)

    return _public(fn, name, f"``jax.numpy.{name}`` (complex values compare lexicographically).")


less = _complex_compare("less", P.lt_p)
less_equal = _complex_compare("less_equal", P.le_p)
greater = _complex_compare("greater", P.gt_p)
greater_equal = _complex_compare("greater_equal", P.ge_p)


def _logical(name: str, prim: Any) -> Callable[[Any, Any], Any]:
    eager = getattr(jnp, name)

    def fn(x: Any, y: Any, /) -> Any:
        b = _builder(x, y)
        if b is None:
            return eager(x, y)
        x, y = (_to_bool(b, v) for v in _args(b, name, (x, y)))
        return _emit(b, prim, x, y)

    return _public(fn, name, f"``jax.numpy.{name}``: operands become bool (x != 0) first.")


logical_and = _logical("logical_and", P.and_p)
logical_or = _logical("logical_or", P.or_p)
logical_xor = _logical("logical_xor", P.xor_p)


def logical_not(x: Any, /) -> Any:
    """``jax.numpy.logical_not``."""
    b = _builder(x)
    if b is None:
        return jnp.logical_not(x)
    return _emit(b, P.not_p, _to_bool(b, operand(x, b)))


def right_shift(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.right_shift``: arithmetic for signed, logical for unsigned."""
    b = _builder(x1, x2)
    if b is None:
        return jnp.right_shift(x1, x2)
    x1, x2 = _args(b, "right_shift", (x1, x2), "numeric")
    # jnp asks numpy whether the dtype is unsigned; numpy does not count ml_dtypes' uint4
    # (or uint1/uint2) as unsigned, so those shift arithmetically in JAX, and here too.
    dt = x1.aval.dtype
    unsigned = (
        np.issubdtype(dt, np.unsignedinteger) if isinstance(dt, np.dtype) else _kind(x1) == "u"
    )
    prim = P.shift_right_logical_p if unsigned else P.shift_right_arithmetic_p
    return _emit(b, prim, x1, x2)


def positive(x: Any, /) -> Any:
    """``jax.numpy.positive``: the value itself."""
    b = _builder(x)
    return jnp.positive(x) if b is None else operand(x, b)


def absolute(x: Any, /) -> Any:
    """``jax.numpy.absolute``; bool and unsigned values are returned as they are;
    the absolute value of a complex number is real."""
    b = _builder(x)
    if b is None:
        return jnp.absolute(x)
    (x,) = _promote(b, "absolute", [operand(x, b)])  # a policy may reject the operand
    return x if _kind(x) in "bu" else _emit(b, P.abs_p, x)


abs = absolute


def _identity_on_integers(name: str, prim: Any) -> Callable[[Any], Any]:
    eager = getattr(jnp, name)

    def fn(x: Any, /) -> Any:
        b = _builder(x)
        if b is None:
            return eager(x)
        x = operand(x, b)
        if _kind(x) in "biu":
            return x
        (x,) = _promote(b, name, [x], "inexact")
        return _emit(b, prim, x)

    return _public(fn, name, f"``jax.numpy.{name}``; integers and bools are returned unchanged.")


floor = _identity_on_integers("floor", P.floor_p)
ceil = _identity_on_integers("ceil", P.ceil_p)


def trunc(x: Any) -> Any:
    """``jax.numpy.trunc``: ceil for negatives, floor otherwise."""
    b = _builder(x)
    if b is None:
        return jnp.trunc(x)
    x = operand(x, b)
    if _kind(x) in "biu":
        return x
    negative_ = _emit(b, P.lt_p, x, _const_like(b, x, 0))
    return where(negative_, ceil(x), floor(x))


def round(a: Any, decimals: int = 0, out: None = None) -> Any:
    """``jax.numpy.round`` (integers unchanged; floats to nearest, ties to even)."""
    b = _builder(a)
    if b is None:
        return jnp.round(a, decimals)
    decimals = operator.index(decimals)
    a = operand(a, b)
    if _kind(a) == "b":
        raise OperandTypeError("round does not accept bool values (as in JAX); cast first")
    if _kind(a) in "iu":
        if decimals < 0:
            raise NotImplementedError("integer round with decimals < 0 is not implemented")
        return a
    if _kind(a) == "c":
        return _emit(b, P.complex_p, round(_emit(b, P.real_p, a), decimals),
                     round(_emit(b, P.imag_p, a), decimals))  # fmt: skip
    (a,) = _promote(b, "round", [a], "inexact")
    if decimals == 0:
        return _emit(b, P.round_p, a, rounding_method=1)
    factor = _const_like(b, a, 10.0**decimals)
    scaled = _emit(b, P.round_p, _emit(b, P.mul_p, a, factor), rounding_method=1)
    return _emit(b, P.div_p, scaled, factor)


def square(x: Any, /) -> Any:
    """``jax.numpy.square``: x * x, bools as int32."""
    b = _builder(x)
    if b is None:
        return jnp.square(x)
    (x,) = _promote(b, "square", [operand(x, b)], "numeric")
    return _emit(b, P.square_p, x)


def reciprocal(x: Any, /) -> Any:
    """``jax.numpy.reciprocal``: 1 / x, integers become floating."""
    b = _builder(x)
    if b is None:
        return jnp.reciprocal(x)
    (x,) = _promote(b, "reciprocal", [operand(x, b)], "inexact")
    return _emit(b, P.integer_pow_p, x, y=-1)


def log2(x: Any, /) -> Any:
    """``jax.numpy.log2``: log(x) / log(2)."""
    b = _builder(x)
    if b is None:
        return jnp.log2(x)
    (x,) = _promote(b, "log2", [operand(x, b)], "inexact")
    if _kind(x) == "c":
        r = _emit(b, P.log_p, x)
        re, im = _emit(b, P.real_p, r), _emit(b, P.imag_p, r)
        ln2 = _emit(b, P.log_p, _strong_literal(b, 2, re.aval.dtype))
        return _emit(b, P.complex_p, _emit(b, P.div_p, re, ln2), _emit(b, P.div_p, im, ln2))
    two = _strong_literal(b, 2, x.aval.dtype)
    return _emit(b, P.div_p, _emit(b, P.log_p, x), _emit(b, P.log_p, two))


def log10(x: Any, /) -> Any:
    """``jax.numpy.log10``: log(x) * (1 / log(10))."""
    b = _builder(x)
    if b is None:
        return jnp.log10(x)
    (x,) = _promote(b, "log10", [operand(x, b)], "inexact")
    real_dt = np.finfo(x.aval.dtype).dtype if _kind(x) == "c" else x.aval.dtype
    k = _strong_literal(b, 0.4342944819032518, real_dt)
    r = _emit(b, P.log_p, x)
    if _kind(x) == "c":
        re, im = _emit(b, P.real_p, r), _emit(b, P.imag_p, r)
        return _emit(b, P.complex_p, _emit(b, P.mul_p, re, k), _emit(b, P.mul_p, im, k))
    return _emit(b, P.mul_p, r, k)


def real(val: Any, /) -> Any:
    """``jax.numpy.real``."""
    b = _builder(val)
    if b is None:
        return jnp.real(val)
    val = operand(val, b)
    return _emit(b, P.real_p, val) if _kind(val) == "c" else val


def imag(val: Any, /) -> Any:
    """``jax.numpy.imag``: zeros of the same dtype for real values."""
    b = _builder(val)
    if b is None:
        return jnp.imag(val)
    val = operand(val, b)
    return _emit(b, P.imag_p, val) if _kind(val) == "c" else _full_like(b, val, 0)


def conjugate(x: Any, /) -> Any:
    """``jax.numpy.conjugate``."""
    b = _builder(x)
    if b is None:
        return jnp.conjugate(x)
    x = operand(x, b)
    return _emit(b, P.conj_p, x) if _kind(x) == "c" else x


conj = conjugate


def isfinite(x: Any, /) -> Any:
    """``jax.numpy.isfinite``."""
    b = _builder(x)
    if b is None:
        return jnp.isfinite(x)
    x = operand(x, b)
    if _kind(x) == "f":
        return _emit(b, P.is_finite_p, x)
    if _kind(x) == "c":
        return _emit(b, P.and_p, _emit(b, P.is_finite_p, _emit(b, P.real_p, x)),
                     _emit(b, P.is_finite_p, _emit(b, P.imag_p, x)))  # fmt: skip
    return _full_like(b, x, True, _BOOL)


def isinf(x: Any, /) -> Any:
    """``jax.numpy.isinf``."""
    b = _builder(x)
    if b is None:
        return jnp.isinf(x)
    x = operand(x, b)
    # jnp's _constant_like makes a strong array constant, whatever x's weak flag.
    if _kind(x) == "f":
        inf = _strong_literal(b, np.inf, x.aval.dtype)
        return _emit(b, P.eq_p, _emit(b, P.abs_p, x), inf)
    if _kind(x) == "c":
        re, im = _emit(b, P.real_p, x), _emit(b, P.imag_p, x)
        inf = _strong_literal(b, np.inf, re.aval.dtype)
        return _emit(b, P.or_p, _emit(b, P.eq_p, _emit(b, P.abs_p, re), inf),
                     _emit(b, P.eq_p, _emit(b, P.abs_p, im), inf))  # fmt: skip
    return _full_like(b, x, False, _BOOL)


def isnan(x: Any, /) -> Any:
    """``jax.numpy.isnan``: x != x."""
    b = _builder(x)
    if b is None:
        return jnp.isnan(x)
    x = operand(x, b)
    return _emit(b, P.ne_p, x, x)


def floor_divide(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.floor_divide``, with jax's integer and float algorithms."""
    b = _builder(x1, x2)
    if b is None:
        return jnp.floor_divide(x1, x2)
    x1, x2 = _args(b, "floor_divide", (x1, x2), "numeric")
    k = _kind(x1)
    if k == "u" or k == "b":
        return _emit(b, P.div_p, x1, x2)
    if k == "i":
        # jax writes these with jnp operators (x != y, q - 1), so weak flags follow jnp.
        quotient = _emit(b, P.div_p, x1, x2)
        signs_differ = not_equal(_emit(b, P.sign_p, x1), _emit(b, P.sign_p, x2))
        select = logical_and(signs_differ, not_equal(_emit(b, P.rem_p, x1, x2), 0))
        return where(select, subtract(quotient, 1), quotient)
    if k == "c":
        raise InvalidInputError("floor_divide does not accept complex operands (as in JAX)")
    return _float_divmod(b, x1, x2)[0]


def _float_divmod(b: Builder, x1: Any, x2: Any) -> tuple[Any, Any]:
    """``jax._src.numpy.ufuncs._float_divmod``."""
    mod = _emit(b, P.rem_p, x1, x2)
    zero_divisor = _emit(b, P.eq_p, x2, _const_like(b, x2, 0))
    x1_corrected = where(zero_divisor, x1, _emit(b, P.sub_p, x1, mod))
    div = _emit(b, P.div_p, x1_corrected, x2)
    ind = _emit(b, P.and_p, _emit(b, P.ne_p, mod, _const_like(b, mod, 0)),
                _emit(b, P.ne_p, _emit(b, P.sign_p, x2), _emit(b, P.sign_p, mod)))  # fmt: skip
    ind_b = _promote_shapes(b, "divmod", [ind, mod])[0]
    mod = _select(b, ind_b, add(mod, x2), mod)
    div = _select(b, ind_b, subtract(div, 1.0), div)
    return _emit(b, P.round_p, div, rounding_method=0), mod


def _select(b: Builder, pred: Any, on_true: Any, on_false: Any) -> Any:
    """``lax.select``: select_n(pred, on_false, on_true), shapes already equal."""
    shape = _result_shape("select", [pred.aval.shape, on_true.aval.shape, on_false.aval.shape])
    pred, on_true, on_false = (_broadcast_to_shape(b, v, shape) for v in (pred, on_true, on_false))
    return _emit(b, P.select_n_p, pred, on_false, on_true)


def remainder(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.remainder``: the result has the sign of the divisor."""
    b = _builder(x1, x2)
    if b is None:
        return jnp.remainder(x1, x2)
    x1, x2 = _args(b, "remainder", (x1, x2), "numeric")
    zero = _strong_literal(b, 0, x1.aval.dtype)  # jnp's _constant_like: a strong array
    if _kind(x2) in "iu":
        ones = _full_like(b, x2, 1)
        x2 = where(equal(x2, 0), ones, x2)
    trunc_mod = _emit(b, P.rem_p, x1, x2)
    not_zero = _emit(b, P.ne_p, trunc_mod, zero)
    signs = _emit(b, P.ne_p, _emit(b, P.lt_p, trunc_mod, zero), _emit(b, P.lt_p, x2, zero))
    do_plus = _emit(b, P.and_p, signs, not_zero)
    return _select(b, do_plus, _emit(b, P.add_p, trunc_mod, x2), trunc_mod)


mod = remainder


def power(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.power``: a concrete integer exponent uses integer_pow; integer
    bases use binary exponentiation; float bases with integer exponents skip promotion."""
    b = _builder(x1, x2)
    if b is None:
        return jnp.power(x1, x2)
    if x2.__class__ is not Tracer and not isinstance(x2, float | complex):
        try:
            y = operator.index(x2)
        except TypeError:
            pass
        else:
            (x,) = _promote(b, "power", [operand(x1, b)], "numeric")
            return _emit(b, P.integer_pow_p, x, y=y)
    a1, a2 = _promote_shapes(b, "power", _operands(b, (x1, x2)))
    p1, p2 = _promote(b, "power", [a1, a2], "numeric")
    if _kind(p1) in "biu":
        if p1.aval.dtype.name in P._NARROW_INTS:
            raise OperandTypeError(
                f"power of {p1.aval.dtype} by a traced exponent is not supported (as in JAX); "
                "convert to int8 or wider first, or use a concrete integer exponent."
            )
        return _pow_int_int(b, p1, p2)
    if _kind(a1) in "fc" and _kind(a2) in "iu":
        return b.emit(P.pow_p, (a1, a2), {})
    return _emit(b, P.pow_p, p1, p2)


pow = power


def _pow_int_int(b: Builder, x1: Any, x2: Any) -> Any:
    """``jax._src.numpy.ufuncs._pow_int_int``: six steps of binary exponentiation."""
    zero, one = _strong_literal(b, 0, x2.aval.dtype), _strong_literal(b, 1, x2.aval.dtype)
    start = _emit(b, P.and_p, _emit(b, P.eq_p, x1, zero), _emit(b, P.ne_p, x2, zero))
    acc = where(start, zero, one)
    for _ in range(6):
        acc = where(_emit(b, P.and_p, x2, one), _emit(b, P.mul_p, acc, x1), acc)
        x1 = _emit(b, P.mul_p, x1, x1)
        x2 = _emit(b, P.shift_right_logical_p, x2, one)
    return acc


# -- selection -------------------------------------------------------------------------


def _broadcast_to_shape(b: Builder, x: Any, shape: tuple[int, ...]) -> Any:
    """``lax.broadcast_to`` semantics: numpy-style right-aligned broadcasting."""
    s = x.aval.shape
    if s == shape:
        return x
    if len(s) > len(shape) or builtins.any(
        a not in (1, c) for a, c in zip(s[::-1], shape[::-1], strict=False)
    ):
        raise ShapeError(f"cannot broadcast shape {s} to {shape}")
    k = len(shape) - len(s)
    keep = tuple(i + k for i, d in enumerate(s) if d == shape[i + k])
    if len(keep) != len(s):  # squeeze the unit dims that grow
        x = _emit(b, P.reshape_p, x, new_sizes=tuple(d for i, d in enumerate(s) if i + k in keep))
    return _emit(b, P.broadcast_in_dim_p, x, shape=shape, broadcast_dimensions=keep)


def where(condition: Any, x: Any = None, y: Any = None, /) -> Any:
    """``jax.numpy.where(condition, x, y)`` (the one-argument form needs concrete
    values and is not traceable)."""
    if x is None or y is None:
        raise InvalidInputError(
            "where(condition) without x and y returns data-dependent shapes and cannot be "
            "traced; pass both x and y."
        )
    b = _builder(condition, x, y)
    if b is None:
        return jnp.where(condition, x, y)
    c = _to_bool(b, operand(condition, b))
    x, y = _promote(b, "where", _operands(b, (x, y)))
    shape = _result_shape("where", [c.aval.shape, x.aval.shape, y.aval.shape])
    if not c.aval.shape:
        x, y = (_broadcast_to_shape(b, v, shape) for v in (x, y))
        return _emit(b, P.select_n_p, c, y, x)
    c, x, y = (_broadcast_to_shape(b, v, shape) for v in (c, x, y))
    return _emit(b, P.select_n_p, c, y, x)


def clip(arr: Any = None, /, min: Any = None, max: Any = None) -> Any:
    """``jax.numpy.clip``: maximum(min, arr), then minimum(max, arr)."""
    b = _builder(arr, min, max)
    if b is None:
        return jnp.clip(arr, min, max)
    if builtins.any(v is not None and _kind(operand(v, b)) == "c" for v in (arr, min, max)):
        raise OperandTypeError(
            "clip received a complex value (as the array or a bound); complex numbers have "
            "no order and cannot be clipped. Clip the real or imaginary part instead."
        )
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return operand(arr, b)


# -- shapes --------------------------------------------------------------------------


def _axis(axis: int, ndim: int, fn: str) -> int:
    try:
        a = operator.index(axis)
    except TypeError:
        raise InvalidInputError(f"{fn}: axis must be an integer, got {axis!r}") from None
    if not -ndim <= a < ndim:
        raise ShapeError(f"{fn}: axis {a} is out of bounds for an array of dimension {ndim}")
    return a % ndim


def _axes(axis: Any, ndim: int, fn: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    items = tuple(axis) if isinstance(axis, tuple | list) else (axis,)
    out = tuple(_axis(a, ndim, fn) for a in items)
    if len(set(out)) != len(out):
        raise ShapeError(f"{fn}: repeated axis in {axis!r}; name each axis once")
    return out


def reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None) -> Any:
    """``jax.numpy.reshape`` (one dimension may be -1)."""
    shape = newshape if shape is None else shape
    b = _builder(a)
    if b is None:
        return jnp.reshape(a, shape, order=order)
    if order != "C":
        raise NotImplementedError("reshape(order=...) other than 'C' is not supported")
    a = operand(a, b)
    dims = [operator.index(d) for d in (shape if isinstance(shape, tuple | list) else (shape,))]
    if dims.count(-1) > 1:
        raise ShapeError(
            f"reshape: only one dimension can be -1, got {tuple(dims)}; give all but one size"
        )
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or a.aval.size % known:
            raise ShapeError(
                f"cannot reshape {a.aval.shape} into {tuple(dims)}: {a.aval.size} elements do "
                "not divide into that shape; pick sizes whose product matches"
            )
        dims[dims.index(-1)] = a.aval.size // known
    new = tuple(dims)
    return a if new == a.aval.shape else _emit(b, P.reshape_p, a, new_sizes=new)


def ravel(a: Any, order: str = "C") -> Any:
    """``jax.numpy.ravel``."""
    b = _builder(a)
    if b is None:
        return jnp.ravel(a, order)
    return reshape(operand(a, b), (-1,))


def transpose(a: Any, axes: Sequence[int] | None = None) -> Any:
    """``jax.numpy.transpose``."""
    b = _builder(a)
    if b is None:
        return jnp.transpose(a, axes)
    a = operand(a, b)
    nd = a.aval.ndim
    perm = (
        tuple(range(nd))[::-1] if axes is None else tuple(_axis(x, nd, "transpose") for x in axes)
    )
    if sorted(perm) != list(range(nd)):
        raise ShapeError(f"transpose: axes {axes} are not a permutation of {nd} dimensions")
    return a if perm == tuple(range(nd)) else _emit(b, P.transpose_p, a, permutation=perm)


def broadcast_to(array: Any, shape: Any) -> Any:
    """``jax.numpy.broadcast_to``."""
    b = _builder(array)
    if b is None:
        return jnp.broadcast_to(array, shape)
    shape = tuple(
        operator.index(d) for d in (shape if isinstance(shape, tuple | list) else (shape,))
    )
    return _broadcast_to_shape(b, operand(array, b), shape)


def expand_dims(a: Any, axis: int | Sequence[int]) -> Any:
    """``jax.numpy.expand_dims``."""
    b = _builder(a)
    if b is None:
        return jnp.expand_dims(a, axis)
    a = operand(a, b)
    items = tuple(axis) if isinstance(axis, tuple | list) else (axis,)
    nd = a.aval.ndim + len(items)
    dims = tuple(sorted(_axis(x, nd, "expand_dims") for x in items))
    if len(set(dims)) != len(dims):
        raise ShapeError(f"expand_dims: repeated axis in {axis!r}; name each new axis once")
    return _emit(b, P.expand_dims_p, a, dimensions=dims)


def squeeze(a: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``jax.numpy.squeeze``."""
    b = _builder(a)
    if b is None:
        return jnp.squeeze(a, axis)
    a = operand(a, b)
    shape = a.aval.shape
    if axis is None:
        dims = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        dims = tuple(sorted(_axes(axis, len(shape), "squeeze")))
        bad = [d for d in dims if shape[d] != 1]
        if bad:
            raise ShapeError(f"squeeze: cannot select an axis to squeeze out which has size "
                             f"not equal to one (axis {bad[0]} of shape {shape})")  # fmt: skip
    return a if not dims else _emit(b, P.squeeze_p, a, dimensions=dims)


def concatenate(arrays: Sequence[Any], axis: int | None = 0, dtype: Any = None) -> Any:
    """``jax.numpy.concatenate`` (operands are promoted together)."""
    b = _builder(*arrays) if isinstance(arrays, list | tuple) else _builder(arrays)
    if b is None:
        return jnp.concatenate(arrays, axis=axis, dtype=dtype)
    if not isinstance(arrays, list | tuple) or not arrays:
        raise InvalidInputError("concatenate needs a non-empty list or tuple of arrays")
    ops = _operands(b, arrays)
    if axis is None:
        ops = [reshape(o, (-1,)) for o in ops]
        axis = 0
    if builtins.any(o.aval.ndim == 0 for o in ops):
        raise ShapeError("zero-dimensional arrays cannot be concatenated")
    if dtype is not None:
        dt = b.rules.user_dtype(dtype)
        ops = [_convert(b, o, dt, False) for o in ops]
    else:
        ops = _promote(b, "concatenate", ops)
    ax = _axis(axis, ops[0].aval.ndim, "concatenate")
    if len(ops) == 1:
        return ops[0]
    return b.emit(P.concatenate_p, tuple(ops), {"dimension": ax})


def stack(arrays: Sequence[Any], axis: int = 0, dtype: Any = None) -> Any:
    """``jax.numpy.stack``."""
    b = _builder(*arrays) if isinstance(arrays, list | tuple) else _builder(arrays)
    if b is None:
        return jnp.stack(arrays, axis=axis, dtype=dtype)
    if not isinstance(arrays, list | tuple) or not arrays:
        raise InvalidInputError("stack needs a non-empty list or tuple of arrays")
    ops = _operands(b, arrays)
    shapes = {o.aval.shape for o in ops}
    if len(shapes) != 1:
        raise ShapeError(f"stack: all input arrays must have the same shape, got {sorted(shapes)}")
    ax = _axis(axis, ops[0].aval.ndim + 1, "stack")
    return concatenate([expand_dims(o, ax) for o in ops], axis=ax, dtype=dtype)


# -- reductions ------------------------------------------------------------------------


def _upcast_f16(dt: np.dtype) -> np.dtype:
    return _F32 if dt in (np.dtype("float16"), np.dtype("bfloat16")) else dt


def _reduction(
    name: str,
    prim: Any,
    bool_prim: Any,
    *,
    promote_integers: bool = False,
    upcast: bool = False,
    preproc: str | None = None,
    has_identity: bool = True,
) -> Callable[..., Any]:
    eager = getattr(jnp, name)

    def fn(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
           keepdims: bool = False, **kwargs: Any) -> Any:  # fmt: skip
        b = _builder(a)
        if b is None:
            extra = {} if dtype is None else {"dtype": dtype}
            return eager(a, axis=axis, keepdims=keepdims, **extra, **kwargs)
        if kwargs:
            raise NotImplementedError(f"{name}: {sorted(kwargs)} are not supported when tracing")
        x = operand(a, b)
        if preproc == "bool":  # jax's _cast_to_bool: a convert (complex: real part != 0)
            x = _convert(b, x, _BOOL, False)
        elif preproc == "numeric" and x.aval.dtype == _BOOL:
            x = _convert(b, x, b.rules.defaults["i"], False)
        dims = _axes(axis, x.aval.ndim, name)
        if not has_identity and builtins.any(x.aval.shape[d] == 0 for d in dims):
            raise ShapeError(f"zero-size array to reduction operation {name} which has no identity")
        if dtype is None:
            result = b.rules.sum_dtype(x.aval.dtype) if promote_integers else x.aval.dtype
        else:
            result = b.rules.user_dtype(dtype)
        compute = _upcast_f16(result) if upcast and P.kind(result) in "fc" else result
        x = _convert(b, x, compute, False)
        p = bool_prim if compute == _BOOL else prim
        r = _emit(b, p, x, axes=dims)
        if keepdims:
            r = _emit(b, P.expand_dims_p, r, dimensions=dims)
        return _convert(b, r, result, False)

    return _public(fn, name, f"``jax.numpy.{name}``, with jax's accumulation dtype.")


sum = _reduction("sum", P.reduce_sum_p, P.reduce_or_p, promote_integers=True, upcast=True,
                 preproc="numeric")  # fmt: skip
prod = _reduction("prod", P.reduce_prod_p, P.reduce_and_p, promote_integers=True, upcast=True,
                  preproc="numeric")  # fmt: skip
max = _reduction("max", P.reduce_max_p, P.reduce_or_p, has_identity=False)
min = _reduction("min", P.reduce_min_p, P.reduce_and_p, has_identity=False)
all = _reduction("all", P.reduce_and_p, P.reduce_and_p, preproc="bool")
any = _reduction("any", P.reduce_or_p, P.reduce_or_p, preproc="bool")


def mean(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
         keepdims: bool = False) -> Any:  # fmt: skip
    """``jax.numpy.mean``: integers average in floating point."""
    b = _builder(a)
    if b is None:
        return jnp.mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    x = operand(a, b)
    result = b.rules.mean_dtype(x.aval.dtype) if dtype is None else b.rules.user_dtype(dtype)
    compute = _upcast_f16(result) if P.kind(result) in "fc" else result
    dims = _axes(axis, x.aval.ndim, "mean")
    count = math.prod(x.aval.shape[d] for d in dims)
    total = sum(x, axis=dims, dtype=compute, keepdims=keepdims)
    n = _strong_literal(b, count, compute)
    return _convert(b, _emit(b, P.div_p, total, n), result, False)


def _arg_reduction(name: str, prim: Any) -> Callable[..., Any]:
    eager = getattr(jnp, name)

    def fn(a: Any, axis: int | None = None, out: None = None, keepdims: bool = False) -> Any:
        b = _builder(a)
        if b is None:
            return eager(a, axis=axis, keepdims=keepdims)
        x = operand(a, b)
        if axis is None:
            x, ax = reshape(x, (-1,)), 0
        else:
            ax = _axis(axis, x.aval.ndim, name)
        if x.aval.shape[ax] == 0:
            raise ShapeError(f"attempt to get {name} of an empty sequence")
        r = _emit(b, prim, x, axes=(ax,), index_dtype=b.rules.defaults["i"])
        if keepdims:
            dims = tuple(range(operand(a, b).aval.ndim)) if axis is None else (ax,)
            r = _emit(b, P.expand_dims_p, r, dimensions=dims)
        return r

    return _public(fn, name, f"``jax.numpy.{name}``: indices in the default int dtype.")


argmax = _arg_reduction("argmax", P.argmax_p)
argmin = _arg_reduction("argmin", P.argmin_p)

# -- contractions ------------------------------------------------------------------------


def _contract(b: Builder, x: Any, y: Any, dn: Any, preferred: np.dtype, weak: bool) -> Any:
    out = _emit(b, P.dot_general_p, x, y, dimension_numbers=dn, preferred_element_type=preferred)
    return _convert(b, out, preferred, weak)


def matmul(a: Any, b_: Any, /) -> Any:
    """``jax.numpy.matmul``: dot_general in result_type(a, b), batch dimensions broadcast."""
    b = _builder(a, b_)
    if b is None:
        return jnp.matmul(a, b_)
    x, y = _operands(b, (a, b_))
    if x.aval.ndim == 0 or y.aval.ndim == 0:
        raise ShapeError("matmul: operands must be at least 1-dimensional; use multiply")
    preferred, weak = b.rules.result([x.aval, y.aval])
    x_vec, y_vec = x.aval.ndim == 1, y.aval.ndim == 1
    if x_vec:
        x = _emit(b, P.expand_dims_p, x, dimensions=(0,))
    if y_vec:
        y = _emit(b, P.expand_dims_p, y, dimensions=(1,))
    batch = _result_shape("matmul", [x.aval.shape[:-2], y.aval.shape[:-2]])
    x = _broadcast_to_shape(b, x, batch + x.aval.shape[-2:])
    y = _broadcast_to_shape(b, y, batch + y.aval.shape[-2:])
    nb = len(batch)
    if x.aval.shape[-1] != y.aval.shape[-2]:
        raise ShapeError(
            f"matmul: contracting dimensions differ: {x.aval.shape[-1]} and {y.aval.shape[-2]} "
            f"(shapes {x.aval.shape} and {y.aval.shape})"
        )
    dn = (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    out = _contract(b, x, y, dn, preferred, weak)
    squeeze_dims = ((nb,) if x_vec else ()) + ((out.aval.ndim - 1,) if y_vec else ())
    return _emit(b, P.squeeze_p, out, dimensions=squeeze_dims) if squeeze_dims else out


def dot(a: Any, b_: Any) -> Any:
    """``jax.numpy.dot``: contract a's last axis with b's second-to-last (or only)
    axis, in result_type(a, b); with a scalar it is an outer product."""
    b = _builder(a, b_)
    if b is None:
        return jnp.dot(a, b_)
    x, y = _operands(b, (a, b_))
    preferred, weak = b.rules.result([x.aval, y.aval])
    if x.aval.ndim == 0 or y.aval.ndim == 0:
        contract: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    else:
        yc = 0 if y.aval.ndim == 1 else y.aval.ndim - 2
        if x.aval.shape[-1] != y.aval.shape[yc]:
            raise ShapeError(f"dot: shapes {x.aval.shape} and {y.aval.shape} are not aligned")
        contract = ((x.aval.ndim - 1,), (yc,))
    return _contract(b, x, y, (contract, ((), ())), preferred, weak)


# -- creation --------------------------------------------------------------------------


def _shape_arg(shape: Any) -> tuple[int, ...]:
    try:
        dims = tuple(
            operator.index(d) for d in (shape if isinstance(shape, tuple | list) else (shape,))
        )
    except TypeError:
        raise InvalidInputError(
            f"a shape must be an int or a sequence of ints, got {shape!r}"
        ) from None
    if builtins.any(d < 0 for d in dims):
        raise ShapeError(f"negative dimensions are not allowed, got shape {dims}")
    return dims


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """``jax.numpy.full``: weak when no dtype is given and the fill is weak."""
    b = _builder(fill_value)
    if b is None:
        return jnp.full(shape, fill_value, dtype)
    dims = _shape_arg(shape)
    v = operand(fill_value, b)
    if dtype is not None:
        v = _convert(b, v, b.rules.user_dtype(dtype), False)
    elif v.aval.shape:
        return _broadcast_to_shape(b, v, dims)
    return _broadcast_scalar(b, v, dims)


def zeros(shape: Any, dtype: Any = None) -> Any:
    """``jax.numpy.zeros`` (default float dtype)."""
    return _filled(shape, 0, dtype, "zeros")


def ones(shape: Any, dtype: Any = None) -> Any:
    """``jax.numpy.ones`` (default float dtype)."""
    return _filled(shape, 1, dtype, "ones")


def _filled(shape: Any, value: int, dtype: Any, name: str) -> Any:
    b = current()
    if b is None:
        return getattr(jnp, name)(shape, dtype)
    dt = b.rules.defaults["f"] if dtype is None else b.rules.user_dtype(dtype)
    return _broadcast_scalar(b, _strong_literal(b, value, dt), _shape_arg(shape))


def _like(name: str, value: Any) -> Callable[..., Any]:
    eager = getattr(jnp, name)

    def fn(a: Any, dtype: Any = None, shape: Any = None) -> Any:
        b = _builder(a)
        if b is None:
            return eager(a, dtype=dtype, shape=shape)
        x = operand(a, b)
        dt = x.aval.dtype if dtype is None else b.rules.user_dtype(dtype)
        target = x.aval.shape if shape is None else _shape_arg(shape)
        return _broadcast_scalar(b, _lit(b, value, dt, dtype is None and x.aval.weak_type), target)

    return _public(
        fn, name, f"``jax.numpy.{name}``: x's dtype and weak flag unless a dtype is given."
    )


zeros_like = _like("zeros_like", 0)
ones_like = _like("ones_like", 1)


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
    """``jax.numpy.full_like``: the fill takes a's dtype (and weak flag, with no dtype)."""
    b = _builder(a, fill_value)
    if b is None:
        return jnp.full_like(a, fill_value, dtype=dtype, shape=shape)
    x, fill = operand(a, b), operand(fill_value, b)
    target = x.aval.shape if shape is None else _shape_arg(shape)
    if fill.aval.ndim:  # an array fill: asarray(fill, result_type(a)), broadcast
        dt = b.rules.result([x.aval])[0] if dtype is None else b.rules.user_dtype(dtype)
        return _broadcast_to_shape(b, _convert(b, fill, dt, False), target)
    dt = x.aval.dtype if dtype is None else b.rules.user_dtype(dtype)
    weak = dtype is None and x.aval.weak_type
    if not weak:
        _check_complex_fill(fill, dt)
    return _broadcast_to_shape(b, _convert(b, fill, dt, weak), target)


def _check_complex_fill(fill: Tracer, dt: np.dtype) -> None:
    """jax fills a strong array with ``int(value)`` / ``float(value)``: a Python complex
    cannot fill a real (non-bool) array."""
    value = _python_literal(fill)
    if isinstance(value, complex) and P.kind(dt) in "iuf":
        raise OperandTypeError(
            f"cannot fill an array of dtype {dt} with the complex value {value!r}; "
            "take its real part, or use a complex dtype."
        )


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    """``jax.numpy.arange`` with concrete bounds (a constant, or iota for 0..n)."""
    b = current()
    if b is None:
        return jnp.arange(start, stop, step, dtype=dtype)
    for v in (start, stop, step):
        if v.__class__ is Tracer:
            raise InvalidInputError(
                "arange needs concrete bounds: its length must be known while tracing. "
                "Mark the argument static (static_argnums) or compute the bound outside."
            )
    bounds = [v for v in (start, stop, step) if v is not None]
    dt = b.rules.user_dtype(dtype) if dtype is not None else b.rules.values_dtype(bounds)
    if stop is None and step is None and P.kind(dt) in "iu":
        return _emit(b, P.iota_p, dtype=dt, shape=(operator.index(start),), dimension=0)
    values = np.arange(start, stop, step).astype(dt)
    return b.const(values, _make(values.shape, dt, False))


def asarray(
    a: Any, dtype: Any = None, order: str | None = None, *, copy: bool | None = None
) -> Any:
    """``jax.numpy.asarray``: Python scalars stay weak; sequences are stacked."""
    b = current()
    if b is None:
        return jnp.asarray(a, dtype=dtype, order=order, copy=copy)
    x = _array_operand(b, a)
    if dtype is None:
        return x
    return astype(x, dtype)


def array(object: Any, dtype: Any = None, copy: bool = True, order: str | None = "K",
          ndmin: int = 0) -> Any:  # fmt: skip
    """``jax.numpy.array`` (see asarray)."""
    b = current()
    if b is None:
        return jnp.array(object, dtype=dtype, copy=copy, order=order, ndmin=ndmin)
    out = asarray(object, dtype=dtype)
    while out.aval.ndim < ndmin:
        out = expand_dims(out, 0)
    return out


def _array_operand(b: Builder, a: Any) -> Any:
    if isinstance(a, list | tuple):
        if not a:
            raise InvalidInputError("cannot make an array from an empty sequence while tracing")
        if not builtins.any(_has_tracer(v) for v in a):
            leaves = np.asarray(a, dtype=object).ravel().tolist()
            dt = b.rules.values_dtype(leaves)
            value = np.asarray(a, dtype=dt)
            return b.const(value, _make(value.shape, dt, False))
        return stack([_array_operand(b, v) for v in a])
    if a is None or isinstance(a, str | bytes):
        raise invalid_input(a)
    return operand(a, b)


def _has_tracer(v: Any) -> bool:
    if v.__class__ is Tracer:
        return True
    return isinstance(v, list | tuple) and builtins.any(_has_tracer(x) for x in v)


def astype(x: Any, dtype: Any, /, *, copy: bool = False, device: Any = None) -> Any:
    """``jax.numpy.astype``: an explicit, strong conversion."""
    b = _builder(x)
    if b is None:
        return jnp.astype(x, dtype, copy=copy, device=device)
    x = operand(x, b)
    dt = b.rules.user_dtype(dtype)
    if dt == _BOOL and _kind(x) == "c":  # convert(complex, bool) has the wrong semantics
        x = _emit(b, P.ne_p, x, _const_like(b, x, 0))
    return _convert(b, x, dt, False)


def isscalar(element: Any) -> bool:
    """``jax.numpy.isscalar``."""
    if element.__class__ is Tracer:
        return element.aval.ndim == 0
    return bool(jnp.isscalar(element))


# -- indexing ------------------------------------------------------------------------


def _getitem(x: Tracer, key: Any) -> Any:
    b = check_live(x)
    items = key if isinstance(key, tuple) else (key,)
    if builtins.sum(1 for k in items if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = builtins.sum(1 for k in items if k is not None and k is not Ellipsis)
    if consumed > x.aval.ndim:
        raise IndexError(f"too many indices for array: array is {x.aval.ndim}-dimensional, "
                         f"but {consumed} were indexed")  # fmt: skip
    if Ellipsis in [k for k in items if not _is_array_like(k)]:
        at = next(i for i, k in enumerate(items) if k is Ellipsis)
        items = items[:at] + (slice(None),) * (x.aval.ndim - consumed) + items[at + 1 :]
    items = items + (slice(None),) * (x.aval.ndim - builtins.sum(1 for k in items if k is not None))
    return _index(b, x, items)


def _is_array_like(k: Any) -> bool:
    return k.__class__ is Tracer or isinstance(k, np.ndarray)


def _index(b: Builder, x: Any, items: tuple[Any, ...]) -> Any:
    """Static ints and slices become slice (+ rev) + squeeze, None becomes expand_dims,
    a traced integer scalar a dynamic_slice, an integer array a gather."""
    dim, starts, limits, strides, squeeze_dims, new_axes, reverse = 0, [], [], [], [], [], []
    dynamic: list[tuple[int, Any]] = []
    gathers: list[tuple[int, Any]] = []
    out_dim = 0
    for k in items:
        if k is None:
            new_axes.append(out_dim)
            out_dim += 1
            continue
        n = x.aval.shape[dim]
        if isinstance(k, slice):
            lo, hi, st = k.indices(n)
            if st < 0:  # slice the same elements forwards, then reverse them
                count = len(range(lo, hi, st))
                first = lo + st * (count - 1) if count else 0
                lo, hi, st = first, (lo + 1 if count else 0), -st
                reverse.append(dim)
            starts.append(lo)
            limits.append(builtins.max(lo, hi))
            strides.append(st)
            out_dim += 1
        elif isinstance(k, list):
            raise InvalidInputError(
                "using a list as an index is not allowed (as in JAX): write "
                "x[weaktrace.numpy.asarray(seq)] for integer-array indexing, or x[tuple(seq)] "
                "to index several dimensions"
            )
        elif k.__class__ is Tracer or isinstance(k, np.ndarray):
            idx = operand(k, b)
            if P.kind(idx.aval.dtype) not in "iu":
                raise IndexError(f"indices must be integers, got dtype {idx.aval.dtype}")
            starts.append(0)
            limits.append(n)
            strides.append(1)
            (dynamic if idx.aval.ndim == 0 else gathers).append((dim, idx))
            if idx.aval.ndim == 0:
                squeeze_dims.append(dim)
            else:
                out_dim += idx.aval.ndim
        else:
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError(
                    f"only integers, slices (`:`), ellipsis (`...`), None and integer arrays "
                    f"are valid indices, got {k!r}"
                ) from None
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
            i %= n
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
            squeeze_dims.append(dim)
        dim += 1
    shape = x.aval.shape
    if (tuple(starts), tuple(limits)) != ((0,) * len(shape), shape) or builtins.any(
        s != 1 for s in strides
    ):
        steps = None if builtins.all(s == 1 for s in strides) else tuple(strides)
        x = _emit(b, P.slice_p, x, start_indices=tuple(starts), limit_indices=tuple(limits),
                  strides=steps)  # fmt: skip
    if reverse:
        x = _emit(b, P.rev_p, x, dimensions=tuple(reverse))
    for d, idx in dynamic:
        x = _dynamic_index(b, x, d, idx)
    for d, idx in gathers:
        x = _gather(b, x, d, idx)
    if squeeze_dims:
        x = _emit(b, P.squeeze_p, x, dimensions=tuple(squeeze_dims))
    if new_axes:
        x = _emit(b, P.expand_dims_p, x, dimensions=tuple(new_axes))
    return x


def _normalized_index(b: Builder, idx: Any, n: int) -> Any:
    """Negative indices count from the end: where(i < 0, i + n, i)."""
    if P.kind(idx.aval.dtype) == "u":
        return idx
    zero, size = _strong_literal(b, 0, idx.aval.dtype), _strong_literal(b, n, idx.aval.dtype)
    neg = _emit(
        b, P.lt_p, idx, _broadcast_scalar(b, zero, idx.aval.shape) if idx.aval.shape else zero
    )
    shifted = _emit(b, P.add_p, idx, size)
    return _select(b, neg, shifted, idx)


def _dynamic_index(b: Builder, x: Any, d: int, idx: Any) -> Any:
    idx = _normalized_index(b, idx, x.aval.shape[d])
    zero = _strong_literal(b, 0, idx.aval.dtype)
    starts = tuple(idx if i == d else zero for i in range(x.aval.ndim))
    sizes = tuple(1 if i == d else s for i, s in enumerate(x.aval.shape))
    return b.emit(P.dynamic_slice_p, (x, *starts), {"slice_sizes": sizes})


def _gather(b: Builder, x: Any, d: int, idx: Any) -> Any:
    idx = _normalized_index(b, idx, x.aval.shape[d])
    return _emit(b, P.gather_p, x, idx, axis=d)


# -- tracer methods and operators ------------------------------------------------------


def _swap(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda self, other: f(other, self)


def _reject_scalar_types(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """Operators return NotImplemented for operands we cannot take (str, None, objects),
    so Python raises its usual TypeError naming both types."""
    fast = _OPERABLE_CLASSES

    def op(self: Any, other: Any) -> Any:
        if other.__class__ not in fast and not _operable(other):
            return NotImplemented
        return f(self, other)

    return op


_OPERABLE_CLASSES = frozenset({Tracer, bool, int, float, complex, np.ndarray})


def _operable(v: Any) -> bool:
    return v.__class__ in _OPERABLE_CLASSES or isinstance(v, np.generic | jnp.ndarray)


_OPERATORS: dict[str, Callable[..., Any]] = {
    "__add__": add, "__radd__": _swap(add),  # other + self
    "__sub__": subtract, "__rsub__": _swap(subtract),
    "__mul__": multiply, "__rmul__": _swap(multiply),
    "__truediv__": true_divide, "__rtruediv__": _swap(true_divide),
    "__floordiv__": floor_divide, "__rfloordiv__": _swap(floor_divide),
    "__mod__": remainder, "__rmod__": _swap(remainder),
    "__pow__": power, "__rpow__": _swap(power),
    "__matmul__": matmul, "__rmatmul__": _swap(matmul),
    "__and__": bitwise_and, "__rand__": _swap(bitwise_and),
    "__or__": bitwise_or, "__ror__": _swap(bitwise_or),
    "__xor__": bitwise_xor, "__rxor__": _swap(bitwise_xor),
    "__lshift__": left_shift, "__rlshift__": _swap(left_shift),
    "__rshift__": right_shift, "__rrshift__": _swap(right_shift),
    "__lt__": less, "__le__": less_equal, "__gt__": greater, "__ge__": greater_equal,
    "__eq__": equal, "__ne__": not_equal,
}  # fmt: skip


def _install_tracer_methods() -> None:
    """Operators and array methods on Tracer (as jax installs them on its arrays)."""
    methods: dict[str, Any] = {name: _reject_scalar_types(f) for name, f in _OPERATORS.items()}
    methods.update(
        __neg__=lambda self: negative(self),
        __pos__=lambda self: positive(self),
        __abs__=lambda self: absolute(self),
        __invert__=lambda self: invert(self),
        __getitem__=_getitem,
        astype=lambda self, dtype: astype(self, dtype),
        T=property(lambda self: transpose(self)),
        reshape=lambda self, *shape, order="C": reshape(
            self, shape[0] if len(shape) == 1 else shape, order
        ),
        sum=lambda self, axis=None, dtype=None, keepdims=False: sum(
            self, axis, dtype, keepdims=keepdims
        ),
        mean=lambda self, axis=None, dtype=None, keepdims=False: mean(
            self, axis, dtype, keepdims=keepdims
        ),
        max=lambda self, axis=None, keepdims=False: max(self, axis, keepdims=keepdims),
        min=lambda self, axis=None, keepdims=False: min(self, axis, keepdims=keepdims),
    )
    for name, method in methods.items():
        setattr(Tracer, name, method)


_install_tracer_methods()

__all__ = [
    "abs",
    "absolute",
    "add",
    "all",
    "any",
    "arange",
    "arccos",
    "arcsin",
    "arctan",
    "arctan2",
    "argmax",
    "argmin",
    "array",
    "asarray",
    "astype",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "broadcast_to",
    "cbrt",
    "ceil",
    "clip",
    "concatenate",
    "conj",
    "conjugate",
    "cos",
    "cosh",
    "divide",
    "dot",
    "equal",
    "exp",
    "exp2",
    "expand_dims",
    "expm1",
    "floor",
    "floor_divide",
    "full",
    "full_like",
    "greater",
    "greater_equal",
    "imag",
    "invert",
    "isfinite",
    "isinf",
    "isnan",
    "isscalar",
    "left_shift",
    "less",
    "less_equal",
    "log",
    "log1p",
    "log2",
    "log10",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "ones",
    "ones_like",
    "positive",
    "pow",
    "power",
    "prod",
    "ravel",
    "real",
    "reciprocal",
    "remainder",
    "reshape",
    "right_shift",
    "round",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "subtract",
    "sum",
    "tan",
    "tanh",
    "transpose",
    "true_divide",
    "trunc",
    "where",
    "zeros",
    "zeros_like",
]  # fmt: skip
