"""More of jax.numpy's elementwise math: inverse hyperbolics, logaddexp, hypot,
copysign, nextafter, spacing, frexp/ldexp, modf, divmod, fmod, fmax/fmin, heaviside,
sinc, angle conversions, rint, i0, nan_to_num, isclose/allclose, the isreal family,
bitwise_count, gcd/lcm and jax.numpy's aliases (acos, asinh, bitwise_invert, ...).

Each follows its jax.numpy implementation step by step (``jax._src.numpy.ufuncs``,
``lax_numpy``, ``lax.other``): jnp calls become these mirrors (which promote), lax
calls become primitives (which do not), so dtypes and weak flags come out as jax's,
computed with the policy in force.
"""

from __future__ import annotations

import operator
from typing import Any

import ml_dtypes
import numpy as np

from weaktrace.core import primitives_math as M
from weaktrace.core import primitives_nn as N
from weaktrace.core.promotion import check_ranks, scalar_const
from weaktrace.dtypes.registry import by_name, key_dtype
from weaktrace.errors import OperandTypeError, OperandValueError
from weaktrace.numpy import ufuncs as U
from weaktrace.numpy._core import (
    BOOL,
    Context,
    P,
    Tracer,
    alias,
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
)
from weaktrace.numpy.reductions import all as _all

where = U.where

# -- jax.numpy's aliases (each is a promote_args that changes nothing, then the target) --
acos = alias("acos", U.arccos)
asin = alias("asin", U.arcsin)
atan = alias("atan", U.arctan)
atan2 = alias("atan2", U.arctan2)
bitwise_invert = alias("bitwise_invert", U.bitwise_not)
bitwise_left_shift = alias("bitwise_left_shift", U.left_shift)
bitwise_right_shift = alias("bitwise_right_shift", U.right_shift)


def _inexact(b: Context, name: str, *args: Any) -> list[Tracer]:
    """``promote_dtypes_inexact``: dtypes only (shapes broadcast later, if at all)."""
    return promote(b, name, operands(b, args), "inexact")


_COMPLEX_REFUSALS = {  # jax's own words, which its tests match
    "hypot": "jnp.hypot is not well defined for complex-valued inputs. Please convert to "
    "real values first, such as by using abs(x)",
    "spacing": "jnp.spacing is not defined for complex inputs.",
    "fabs": "ufunc 'fabs' does not support complex dtypes",
}


def _no_complex(name: str, x: Tracer, error: type[Exception] = OperandTypeError) -> None:
    if kind(x) == "c":
        jax_words = _COMPLEX_REFUSALS.get(name, f"{name} does not support complex-valued inputs")
        raise error(f"{jax_words} (got {x.aval[1]}).")


@export
def arcsinh(x: Any, /) -> Any:
    """``jax.numpy.arcsinh``."""
    b = context(x)
    return emit(M.asinh_p, *_inexact(b, "arcsinh", x))


@export
def arccosh(x: Any, /) -> Any:
    """``jax.numpy.arccosh`` (complex results on the branch with a non-negative real part)."""
    b = context(x)
    result = emit(M.acosh_p, *_inexact(b, "arccosh", x))
    if kind(result) == "c":
        result = where(U.less(U.real(result), 0), emit(P.neg_p, result), result)
    return result


@export
def arctanh(x: Any, /) -> Any:
    """``jax.numpy.arctanh``."""
    b = context(x)
    return emit(M.atanh_p, *_inexact(b, "arctanh", x))


asinh = alias("asinh", arcsinh)
acosh = alias("acosh", arccosh)
atanh = alias("atanh", arctanh)


@export
def fabs(x: Any, /) -> Any:
    """``jax.numpy.fabs``: absolute value in floating point (complex rejected)."""
    b = context(x)
    x = operand(x, b)
    _no_complex("fabs", x)
    return emit(P.abs_p, *promote(b, "fabs", [x], "inexact"))


@export
def float_power(x: Any, y: Any, /) -> Any:
    """``jax.numpy.float_power``: lax.pow in the promoted inexact dtype."""
    b = context(x, y)
    return emit(P.pow_p, *promote_args(b, "float_power", (x, y), "inexact"))


@export
def nextafter(x: Any, y: Any, /) -> Any:
    """``jax.numpy.nextafter``."""
    b = context(x, y)
    return emit(M.nextafter_p, *promote_args(b, "nextafter", (x, y), "inexact"))


@export
def signbit(x: Any, /) -> Any:
    """``jax.numpy.signbit``: the sign bit of floats (read through a bitcast)."""
    b = context(x)
    x = operand(x, b)
    k = kind(x)
    if k in "iu":
        return emit(P.lt_p, x, lit(b, 0, x.aval[1]))
    if k == "b":
        return full_like_value(x, False, BOOL)
    if k != "f":
        raise OperandTypeError(f"signbit is not well defined for {x.aval[1]} (as in JAX)")
    info = ml_dtypes.finfo(x.aval[1].numpy)
    as_int = emit(M.bitcast_convert_type_p, x, new_dtype=_int_of_width(x))
    shifted = U.right_shift(as_int, int(info.nexp + info.nmant))
    return convert(b, shifted, BOOL, False)


def _int_of_width(x: Tracer) -> Any:
    bits = x.aval[1].bits
    if bits not in (16, 32, 64):
        raise NotImplementedError(
            f"{x.aval[1]}: only 16, 32 and 64-bit floats can be bitcast here (as in JAX)"
        )
    return by_name(f"int{bits}")


@export
def copysign(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.copysign``: abs(x1) with the sign bit of x2."""
    b = context(x1, x2)
    x1, x2 = promote_args(b, "copysign", (x1, x2), "inexact")
    _no_complex("copysign", x1)
    magnitude = emit(P.abs_p, x1)
    return where(signbit(x2), U.negative(magnitude), magnitude)


@export
def spacing(x: Any, /) -> Any:
    """``jax.numpy.spacing``: the distance to the next float away from zero."""
    b = context(x)
    (arr,) = promote_args(b, "spacing", (x,), "inexact")
    _no_complex("spacing", arr, OperandValueError)
    inf = const_like(arr, np.inf)
    if arr.aval[1].name == "float16":
        return U.subtract(emit(M.nextafter_p, arr, inf), arr)
    tiny = lit(b, ml_dtypes.finfo(arr.aval[1].numpy).smallest_subnormal, arr.aval[1])
    result = U.subtract(emit(M.nextafter_p, arr, copysign(inf, arr)), arr)
    return where(U.equal(result, 0), copysign(tiny, arr), result)


# -- frexp / ldexp / modf / divmod / fmod ------------------------------------------------


def _normalize_float(b: Context, x: Tracer) -> tuple[Tracer, Tracer]:
    """``ufuncs._normalize_float``: subnormals scaled up, with the exponent correction."""
    info = ml_dtypes.finfo(x.aval[1].numpy)
    int_dt = _int_of_width(x)
    cond = U.less(emit(P.abs_p, x), lit(b, info.tiny, x.aval[1]))
    x1 = where(cond, emit(P.mul_p, x, const_like(x, 1 << int(info.nmant))), x)
    x2 = where(cond, lit(b, -int(info.nmant), int_dt), lit(b, 0, int_dt))
    return emit(M.bitcast_convert_type_p, x1, new_dtype=int_dt), x2


def _frexp(b: Context, x: Tracer) -> tuple[Tracer, Tracer]:
    info = ml_dtypes.finfo(x.aval[1].numpy)
    nmant, mask, bias = int(info.nmant), (1 << int(info.nexp)) - 1, 1 - int(info.minexp)
    x1, x2 = _normalize_float(b, x)
    field = U.bitwise_and(U.right_shift(x1, nmant), mask)
    x2 = U.add(x2, U.add(U.subtract(field, bias), 1))
    x1 = U.bitwise_and(x1, ~(mask << nmant))
    x1 = U.bitwise_or(x1, (bias - 1) << nmant)
    x1 = emit(M.bitcast_convert_type_p, x1, new_dtype=x.aval[1])
    cond = U.logical_or(U.logical_or(U.isinf(x), U.isnan(x)), U.equal(x, 0))
    x2 = where(cond, full_like_value(x2, 0), x2)
    # A normal x's mantissa is also x * 2**-e, scaled in two exact power-of-two steps:
    # the same value as the bits, with the derivative jax's custom JVP gives it
    # (t * 2**-e) where the bits alone give zero. Subnormals keep the bits (XLA on CPU
    # flushes them in products).
    k = U.negative(x2)
    half = U.right_shift(k, 1)
    scaled = U.multiply(x, _pow2(half, x, nmant, bias))
    scaled = U.multiply(scaled, _pow2(U.subtract(k, half), x, nmant, bias))
    normal = U.greater_equal(emit(P.abs_p, x), lit(b, info.tiny, x.aval[1]))
    m = where(cond, x, where(normal, scaled, x1))
    return m, convert(b, x2, by_name("int32"), False)


def _pow2(k: Tracer, x: Tracer, nmant: int, bias: int) -> Tracer:
    """2.0 ** k in x's float dtype, built from its exponent bits (exact; k in the
    normal range)."""
    bits = U.left_shift(U.add(k, bias), nmant)
    return emit(M.bitcast_convert_type_p, bits, new_dtype=x.aval[1])


@export
def frexp(x: Any, /) -> Any:
    """``jax.numpy.frexp``: mantissa in [0.5, 1) and an int32 exponent."""
    b = context(x)
    (x,) = _inexact(b, "frexp", x)
    _no_complex("frexp", x)
    return _frexp(b, x)


@export
def ldexp(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.ldexp``: x1 * 2**x2, x2 an integer."""
    b = context(x1, x2)
    x1, x2 = operands(b, (x1, x2))
    if kind(x1) == "c" or kind(x2) in "fc":
        raise OperandTypeError(f"ldexp not supported for input types {(x1.dtype, x2.dtype)}")
    (x1,) = promote(b, "ldexp", [x1], "inexact")
    x2 = convert(b, x2, x1.aval[1], False)
    m, e = _frexp(b, x1)
    e = convert(b, U.add(convert(b, e, x2.aval[1], False), x2), x1.aval[1], False)
    positive = U.greater(e, 0)
    m = where(positive, U.multiply(m, 2), m)
    e = where(positive, U.subtract(e, 1), e)
    x = U.multiply(m, U.power(2, convert(b, e, m.aval[1], False)))
    return where(U.logical_or(U.isinf(x1), U.equal(x1, 0)), x1, x)


@export
def modf(x: Any, /, out: None = None) -> Any:
    """``jax.numpy.modf``: (fractional part, integral part)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to modf is not supported.")
    b = context(x)
    (x,) = _inexact(b, "modf", x)
    zero = lit(b, 0, x.aval[1], x.aval[2])  # lax._zero(x): 0-d, x's dtype and weak flag
    whole = where(emit(P.ge_p, x, zero), U.floor(x), U.ceil(x))
    return U.subtract(x, whole), whole


@export
def divmod(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.divmod``: (floor_divide, remainder)."""
    b = context(x1, x2)
    x1, x2 = promote_args(b, "divmod", (x1, x2), "numeric")
    if kind(x1) in "iu":
        return U.floor_divide(x1, x2), U.remainder(x1, x2)
    return U._float_divmod(b, x1, x2)


@export
def fmod(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.fmod``: the remainder with the sign of the dividend (C's fmod)."""
    b = context(x1, x2)
    x1, x2 = operands(b, (x1, x2))
    if b.policy.result([x1.aval, x2.aval])[0].kind in "iu":
        x2 = where(U.equal(x2, 0), full_like_value(x2, 1), x2)
    return emit(P.rem_p, *promote_args(b, "fmod", (x1, x2), "numeric"))


# -- selections and comparisons ----------------------------------------------------------


@export
def fmax(x1: Any, x2: Any) -> Any:
    """``jax.numpy.fmax``: maximum that ignores NaNs."""
    b = context(x1, x2)
    x1, x2 = operands(b, (x1, x2))
    check_ranks("fmax", [x1.aval.shape, x2.aval.shape])
    return where(U.bitwise_or(U.greater(x1, x2), U.isnan(x2)), x1, x2)


@export
def fmin(x1: Any, x2: Any) -> Any:
    """``jax.numpy.fmin``: minimum that ignores NaNs."""
    b = context(x1, x2)
    x1, x2 = operands(b, (x1, x2))
    check_ranks("fmin", [x1.aval.shape, x2.aval.shape])
    return where(U.bitwise_or(U.less(x1, x2), U.isnan(x2)), x1, x2)


@export
def heaviside(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.heaviside``: 0 below zero, 1 above, x2 at zero."""
    b = context(x1, x2)
    x1, x2 = _inexact(b, "heaviside", x1, x2)
    zero = const_like(x1, 0)
    at_zero = where(emit(P.ne_p, x1, x1), x1, x2)
    above = where(emit(P.gt_p, x1, zero), const_like(x1, 1), at_zero)
    return where(emit(P.lt_p, x1, zero), zero, above)


def _isposneginf(name: str, infinity: float, x: Any, out: Any) -> Any:
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to {name} is not supported.")
    b = context(x)
    x = operand(x, b)
    if kind(x) == "f":
        return emit(P.eq_p, x, lit(b, infinity, x.aval[1]))
    if kind(x) == "c":
        raise OperandTypeError(f"{name} is not well defined for complex types (as in JAX)")
    return full_like_value(x, False, BOOL)


@export
def isposinf(x: Any, /, out: None = None) -> Any:
    """``jax.numpy.isposinf``."""
    return _isposneginf("isposinf", np.inf, x, out)


@export
def isneginf(x: Any, /, out: None = None) -> Any:
    """``jax.numpy.isneginf``."""
    return _isposneginf("isneginf", -np.inf, x, out)


@export
def isreal(x: Any) -> Any:
    """``jax.numpy.isreal``: imag(x) == 0."""
    i = U.imag(operand(x, context(x)))
    return emit(P.eq_p, i, const_like(i, 0))


@export
def iscomplex(x: Any) -> Any:
    """``jax.numpy.iscomplex``: imag(x) != 0."""
    i = U.imag(operand(x, context(x)))
    return emit(P.ne_p, i, const_like(i, 0))


@export
def iscomplexobj(x: Any) -> bool:
    """``jax.numpy.iscomplexobj``: a Python bool from the dtype alone."""
    if isinstance(x, complex | np.complexfloating):
        return True
    if x is None or isinstance(x, bool | int | float | str | np.generic):
        return False
    dt = getattr(x, "dtype", None)
    if dt is None and isinstance(x, list | tuple):
        dts = [getattr(v, "dtype", None) for v in x]  # a jax tracer has no numpy value
        dt = (
            np.result_type(
                *[np.asarray(v).dtype if d is None else d for v, d in zip(x, dts, strict=True)]
            )
            if x
            else np.float64
        )
    if dt is None:
        dt = operand(x, context(x)).dtype
    if key_dtype(dt) is not None:
        return False  # a PRNG key array (key<fry>): numpy cannot read its dtype
    return bool(np.issubdtype(dt, np.complexfloating))


@export
def isrealobj(x: Any) -> bool:
    """``jax.numpy.isrealobj``."""
    return not iscomplexobj(x)


@export
def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """``jax.numpy.isclose``: abs(a - b) <= atol + rtol * abs(b) (and equal or both-inf)."""
    ctx = context(a, b, rtol, atol)
    a, b = promote_args(ctx, "isclose", (a, b))
    if a.aval[1].kind == "K":  # PRNG key arrays: equal key data, as jax compares them
        return emit(P.eq_p, a, b)
    a, b = promote_args(ctx, "isclose", (a, b), "inexact")
    real_dt = P._real_dtype(a.aval[1])
    rtol, atol = (convert(ctx, operand(t, ctx), real_dt, False) for t in (rtol, atol))
    both_nan = U.logical_and(U.isnan(a), U.isnan(b))
    check_fin = U.isfinite(b)
    scale = emit(P.add_p, atol, emit(P.mul_p, rtol, emit(P.abs_p, b)))
    in_range = emit(P.le_p, emit(P.abs_p, emit(P.sub_p, a, b)), scale)
    out = U.logical_or(emit(P.eq_p, a, b), U.logical_and(check_fin, in_range))
    return U.logical_or(out, both_nan) if equal_nan else out


@export
def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """``jax.numpy.allclose``: all(isclose(...)), as a 0-d bool array."""
    check_ranks("allclose", [np.shape(a), np.shape(b)])
    return _all(isclose(a, b, rtol, atol, equal_nan))


# -- exponentials, angles, rounding ---------------------------------------------------------


def _logaddexp(name: str, x1: Any, x2: Any, base2: bool) -> Any:
    """``jax.numpy.logaddexp{,2}``: promote_args_inexact, then ``lax.other.logaddexp{,2}``
    as one primitive, so that its derivative is jax's custom JVP (``exp(x - out)``: 0.5
    for each operand where they are equal) rather than the composition's."""
    b = context(x1, x2)
    x1, x2 = promote_args(b, name, (x1, x2), "inexact")
    out = emit(N.logaddexp2_p if base2 else N.logaddexp_p, x1, x2)
    av = out.aval
    if av[2] and (base2 or av[1].kind == "c") and (av[0] or not scalar_const(b, av[1])):
        # jax scales by lax._const(amax, 1/ln 2) (complex: by _const(amax, 2)), strong
        # unless amax is a weak 0-d value of its kind's default dtype: the result too
        out = convert(b, out, av[1], False)
    return out


def _ufunc_keywords(name: str, out: Any, where: Any) -> None:
    """jnp.ufunc.__call__ refuses out= and where=."""
    if out is not None:
        raise NotImplementedError(f"out argument of {name}")
    if where is not None:
        raise NotImplementedError(f"where argument of {name}")


@export
def logaddexp(x1: Any, x2: Any, /, *, out: None = None, where: None = None) -> Any:
    """``jax.numpy.logaddexp``: log(exp(x1) + exp(x2)) without overflow."""
    _ufunc_keywords("logaddexp", out, where)
    return _logaddexp("logaddexp", x1, x2, base2=False)


@export
def logaddexp2(x1: Any, x2: Any, /, *, out: None = None, where: None = None) -> Any:
    """``jax.numpy.logaddexp2``: log2(2**x1 + 2**x2) without overflow."""
    _ufunc_keywords("logaddexp2", out, where)
    return _logaddexp("logaddexp2", x1, x2, base2=True)


@export
def hypot(x1: Any, x2: Any, /) -> Any:
    """``jax.numpy.hypot``: sqrt(x1**2 + x2**2) without overflow."""
    b = context(x1, x2)
    x1, x2 = promote_args(b, "hypot", (x1, x2), "inexact")
    _no_complex("hypot", x1, OperandValueError)
    x1, x2 = emit(P.abs_p, x1), emit(P.abs_p, x2)
    idx_inf = emit(P.or_p, *promote_shapes("hypot", [isposinf(x1), isposinf(x2)]))
    x1, x2 = U.maximum(x1, x2), U.minimum(x1, x2)
    x1_is_zero = U.equal(x1, 0)
    safe = where(x1_is_zero, full_like_value(x1, 1), x1)
    ratio = emit(P.square_p, emit(P.div_p, x2, safe))
    x = where(x1_is_zero, x1, U.multiply(x1, emit(P.sqrt_p, U.add(1, ratio))))
    return where(idx_inf, const_like(x, np.inf), x)


@export
def sinc(x: Any, /) -> Any:
    """``jax.numpy.sinc``: sin(pi x) / (pi x), 1 at 0."""
    b = context(x)
    (x,) = _inexact(b, "sinc", x)
    eq_zero = emit(P.eq_p, x, const_like(x, 0))
    pi_x = emit(P.mul_p, const_like(x, np.pi), x)
    safe = where(eq_zero, const_like(x, 1), pi_x)
    # At 0: sin(t)/t's Maclaurin series in t = pi x, whose derivatives at 0 are those of
    # jax's custom JVP (_sinc_maclaurin) to the eighth order; its value there is 1.
    u = U.multiply(pi_x, pi_x)
    at_zero = const_like(pi_x, 1.0 / 362880)
    for c in (-1.0 / 5040, 1.0 / 120, -1.0 / 6, 1.0):
        at_zero = U.add(U.multiply(u, at_zero), const_like(pi_x, c))
    return where(eq_zero, at_zero, emit(P.div_p, emit(P.sin_p, safe), safe))


def _scale(name: str, factor: float, doc: str) -> Any:
    def fn(x: Any, /) -> Any:
        b = context(x)
        (x,) = promote_args(b, name, (x,), "inexact")
        return emit(P.mul_p, x, const_like(x, factor))

    return export_as(fn, name, doc)


deg2rad = _scale("deg2rad", np.pi / 180, "``jax.numpy.deg2rad``: x * pi / 180.")
rad2deg = _scale("rad2deg", 180 / np.pi, "``jax.numpy.rad2deg``: x * 180 / pi.")


@export
def degrees(x: Any, /) -> Any:
    """``jax.numpy.degrees`` (rad2deg)."""
    return rad2deg(x)


@export
def radians(x: Any, /) -> Any:
    """``jax.numpy.radians`` (deg2rad)."""
    return deg2rad(x)


@export
def rint(x: Any, /) -> Any:
    """``jax.numpy.rint``: round half to even; integers and bools become floats."""
    b = context(x)
    x = operand(x, b)
    if kind(x) in "biu":
        return convert(b, x, b.policy.defaults["f"], False)
    if kind(x) == "c":
        return emit(P.complex_p, rint(emit(P.real_p, x)), rint(emit(P.imag_p, x)))
    return emit(P.round_p, x, rounding_method=1)


@export
def around(a: Any, decimals: int = 0, out: None = None) -> Any:
    """``jax.numpy.around`` (jax's round): half to even at `decimals` digits; float16
    scales in float32; values whose scale would overflow the dtype come back unchanged."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to around is not supported.")
    b = context(a)
    decimals = operator.index(decimals)
    x = operand(a, b)
    if kind(x) in "iu":
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return x
    if kind(x) == "b":
        raise OperandTypeError("around does not accept bool values (as in JAX); cast first")
    dt = x.aval[1]
    if decimals > np.log10(float(ml_dtypes.finfo(P._real_dtype(dt).numpy).max)):
        return x

    def round_float(v: Tracer) -> Tracer:
        if decimals == 0:
            return emit(P.round_p, v, rounding_method=1)
        f16 = v.aval[1].name == "float16"
        w = convert(b, v, by_name("float32"), False) if f16 else v
        factor = const_like(w, 10**decimals)
        r = emit(P.div_p, emit(P.round_p, emit(P.mul_p, w, factor), rounding_method=1), factor)
        return convert(b, r, v.aval[1], False) if f16 else r

    if kind(x) == "c":
        return emit(P.complex_p, round_float(emit(P.real_p, x)), round_float(emit(P.imag_p, x)))
    return round_float(x)


@export
def angle(z: Any, deg: bool = False) -> Any:
    """``jax.numpy.angle``: atan2(imag, real); a real 0-d float is taken at the
    default float dtype, as jax does."""
    b = context(z)
    z = operand(z, b)
    re, im = U.real(z), U.imag(z)
    if kind(re) not in "fc" or (kind(z) == "f" and not z.aval[0]):
        dt = b.policy.defaults["f"]
        re, im = convert(b, re, dt, False), convert(b, im, dt, False)
    result = emit(P.atan2_p, im, re)
    return degrees(result) if deg else result


@export
def i0(x: Any) -> Any:
    """``jax.numpy.i0``: the modified Bessel function of order 0, exp(abs(x)) * i0e(abs(x))."""
    b = context(x)
    (x,) = promote_args(b, "i0", (x,), "inexact")
    if kind(x) != "f":
        raise OperandValueError(f"Unsupported input type to jax.numpy.i0: {x.aval[1]}")
    # jax's custom JVP makes the derivative 0 at x == 0 (abs's would be 1 there): abs(x)
    # with a constant 0 selected at 0 has derivatives of every order 0 there, as jax's
    # (a Python 0.0 in the select keeps a weak input weak, as jax's i0 is)
    abs_x = where(emit(P.eq_p, x, const_like(x, 0)), 0.0, emit(P.abs_p, x))
    return emit(P.mul_p, emit(P.exp_p, abs_x), emit(M.bessel_i0e_p, abs_x))


@export
def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.nan_to_num``: NaN and infinities replaced by finite values."""
    b = context(x, nan, posinf, neginf)
    x = operand(x, b)
    if kind(x) not in "fc":
        return x
    if kind(x) == "c":
        parts = (emit(P.real_p, x), emit(P.imag_p, x))
        re, im = (nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf) for p in parts)
        return emit(P.complex_p, re, im)
    dt = x.aval[1]
    info = ml_dtypes.finfo(dt.numpy)

    def fill(v: Any, default: Any) -> Tracer:
        return convert(b, operand(default if v is None else v, b), dt, False)

    out = where(U.isnan(x), fill(nan, 0.0), x)
    out = where(isposinf(out), fill(posinf, info.max), out)
    return where(isneginf(out), fill(neginf, info.min), out)
