"""Per-call checks of Python number arguments that a function knows it needs (see
``weaktrace.dtypes.policies.base.ValueCheck``): NumPy's clip bounds, and the power
exponents NumPy and PyTorch refuse by value."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from weaktrace.dtypes.policies.base import ValueCheck, int_bounds
from weaktrace.errors import ArgumentOverflowError, OperandValueError
from weaktrace.numpy._core import Context, P, Tracer, emit, kind, lit


def int_bound(b: Context, v: Any, a: Tracer, side: str) -> Any:
    """A Python int argument as a bound of integer array `a`, under NumPy's rule: a min
    below a's range (a max above it) cannot change a value and is no bound; a min above
    it (a max below it) raises OverflowError as numpy does. The first is clamped into
    the range (in the int's own dtype, before it converts), the second is checked per
    call: the check of the argument is one-sided, which its conversion's cannot be."""
    if v.__class__ is not Tracer or not v.aval.weak_type or kind(v) not in "iu":
        return v
    lo, hi = int_bounds(a.aval.dt)
    own_lo, own_hi = int_bounds(v.aval.dt)
    if side == "min":  # must not exceed hi; below lo it is lo
        b.checks_int(v, ValueCheck(a.aval.dt, -math.inf, hi, _OUT_OF_BOUNDS))
        return emit(P.max_p, v, lit(b, lo, v.aval.dt, True)) if lo > own_lo else v
    b.checks_int(v, ValueCheck(a.aval.dt, lo, math.inf, _OUT_OF_BOUNDS))
    return emit(P.min_p, v, lit(b, hi, v.aval.dt, True)) if hi < own_hi else v


_OUT_OF_BOUNDS = "Python integer {value} out of bounds for {dtype}"  # numpy's wording


def check_scalar_exponent(b: Context, x2: Any, p1: Tracer) -> None:
    """A Python number exponent, where NumPy and PyTorch refuse it by its value: an
    integer base with a negative int ("Integers to negative integer powers are not
    allowed"; a constant one raises below, an argument per call), and PyTorch's checked
    conversion of the exponent to a float16/bfloat16 base's dtype (float16 ** 70000)."""
    dt = p1.aval.dt
    if dt.name in b.policy.pow_checked_exponent_dtypes:
        top = float(ml_dtypes.finfo(dt.numpy).max)
        if x2.__class__ is Tracer:
            if x2.aval.weak_type and kind(x2) in "iuf":
                b.checks_int(x2, ValueCheck(dt, -top, top, _NO_CONVERSION))
        elif type(x2) in (int, float) and math.isfinite(x2) and not -top <= x2 <= top:
            raise ArgumentOverflowError(_NO_CONVERSION.format(value=x2, dtype=dt))
    full = b.policy.int_pow_full_exponent or b.policy.numpy_power
    weak_int = x2.__class__ is Tracer and x2.aval.weak_type and kind(x2) in "iu"
    if full and weak_int and kind(p1) in "biu":
        b.checks_int(x2, ValueCheck(dt, 0, math.inf, _NEGATIVE_POWER, OperandValueError))


_NO_CONVERSION = "value {value} cannot be converted to {dtype} without overflow (as in PyTorch)"
_NEGATIVE_POWER = "Integers to negative integer powers are not allowed (exponent {value})."


def float_exponent(b: Context, x: Tracer, y: int) -> Tracer | None:
    """NumPy's ``float_array ** python_int``: the int becomes x's float dtype first, so
    an int that dtype cannot hold exactly (2**64 - 1 in float64 is 2**64, an even power)
    gives another answer than the exact integer power; a complex base takes the general
    complex power for exponents of 100 and more. That float exponent, or None
    where the integer power is the same answer."""
    if x.aval.dt.kind not in "fc":
        return None
    as_float = lit(b, float(y), x.aval.dt)
    if x.aval.dt.kind == "c" and not -100 < y < 100:
        return as_float  # NumPy's complex power multiplies out only |n| < 100 (npy_cpow)
    v = np.real(as_float.atom.value)
    return None if np.isfinite(v) and int(v) == y else as_float
