"""Numerical helpers written on top of other weaktrace.numpy functions: trapezoid
(the trapezoidal rule) and unwrap (phase unwrapping), in jax's order of operations so
that dtypes, weak flags and rounding follow jax."""

from __future__ import annotations

import math
from typing import Any

from weaktrace.errors import OperandTypeError
from weaktrace.numpy._core import (
    P,
    context,
    emit,
    export,
    kind,
    operand,
    operands,
    promote,
    static_args,
)
from weaktrace.numpy.cumulative import cumsum
from weaktrace.numpy.indexing import getitem
from weaktrace.numpy.manipulation import moveaxis
from weaktrace.numpy.math_arrays import diff, slice_in_dim
from weaktrace.numpy.reductions import sum as sum_
from weaktrace.numpy.shapes import concatenate
from weaktrace.numpy.ufuncs import absolute, logical_and, mod, where


@export
@static_args("axis")
def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """``jax.numpy.trapezoid``: the integral of `y` along `axis` by the trapezoidal rule,
    with sample points `x` or a spacing `dx`."""
    if x is None:
        b = context(y, dx)
        (yy,) = promote(b, "trapezoid", [operand(y, b)], "inexact")
        dxa = operand(dx, b)
        if dxa.aval.ndim > 0:
            nd = yy.aval.ndim - dxa.aval.ndim
            dxa = emit(P.expand_dims_p, dxa, dimensions=tuple(range(nd))) if nd else dxa
            dxa = moveaxis(dxa, axis, -1)
    else:
        b = context(y, x)
        yy, xx = promote(b, "trapezoid", operands(b, (y, x)), "inexact")
        dxa = diff(xx) if xx.aval.ndim == 1 else moveaxis(diff(xx, axis=axis), axis, -1)
    yy = moveaxis(yy, axis, -1)
    if dxa.aval.ndim == 0 or dxa.aval.shape[-1] == 1:
        dxr: Any = dxa if dxa.aval.ndim == 0 else getitem(dxa, (..., 0))
        return dxr * (sum_(yy, -1) - 0.5 * (yy[..., 0] + yy[..., -1]))
    return 0.5 * sum_(dxa * (yy[..., 1:] + yy[..., :-1]), -1)


@export
@static_args("axis")
def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * math.pi) -> Any:
    """``jax.numpy.unwrap``: jumps along `axis` larger than `discont` (half the period by
    default) are replaced by their complement modulo `period`."""
    b = context(p, discont, period)
    pp, per_ = promote(b, "unwrap", operands(b, (p, period)), None)
    per: Any = per_
    if kind(pp) == "c":
        raise OperandTypeError("jnp.unwrap does not support complex inputs.")
    ax = axis + pp.aval.ndim if axis < 0 else axis
    if pp.aval.shape[axis] == 0:
        return pp
    if discont is None:
        discont = per / 2
    interval = per // 2 if kind(pp) in "iu" else per / 2
    dd = diff(pp, axis=axis)
    ddmod = mod(dd + interval, per) - interval
    ddmod = where(logical_and(ddmod == -interval, dd > 0), interval, ddmod)
    correct = where(absolute(dd) < discont, 0, ddmod - dd)
    first = slice_in_dim(pp, 0, 1, ax)
    rest = slice_in_dim(pp, 1, pp.aval.shape[ax], ax) + cumsum(correct, axis=axis)
    return concatenate((first, rest), axis=axis)


@export
@static_args("axis")
def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
    """``jax.numpy.packbits``: the nonzero-ness of `a` packed eight to a uint8 along
    `axis` (flattened by default), most significant bit first for ``bitorder="big"``."""
    from weaktrace.numpy.creation import arange, astype
    from weaktrace.numpy.manipulation import swapaxes
    from weaktrace.numpy.padding import pad
    from weaktrace.numpy.shapes import expand_dims, ravel, reshape
    from weaktrace.numpy.ufuncs import left_shift, not_equal

    b = context(a)
    x = operand(a, b)
    if kind(x) not in "iub":
        raise OperandTypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    # a bool array as it is: comparing it with 0 is a promotion strict mode forbids
    arr = astype(x if kind(x) == "b" else not_equal(x, 0), "uint8")
    bits = arange(8, dtype="uint8")
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    rem = arr.shape[-1] % 8
    if rem:
        arr = pad(arr, [*([(0, 0)] * (arr.ndim - 1)), (0, 8 - rem)])
    arr = reshape(arr, (*arr.shape[:-1], arr.shape[-1] // 8, 8))
    # bits at arr's rank: no implicit rank promotion, which
    # jax_numpy_rank_promotion='raise' forbids (jax's packbits works under it)
    bits = expand_dims(bits, tuple(range(arr.ndim - 1)))
    packed = astype(sum_(left_shift(arr, bits), -1), "uint8")
    return swapaxes(packed, axis, -1)


@export
@static_args("axis")
def unpackbits(a: Any, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Any:  # fmt: skip
    """``jax.numpy.unpackbits``: each uint8 of `a` as eight 0/1 uint8 values along
    `axis` (flattened by default), most significant first for ``bitorder="big"``;
    `count` keeps that many bits (padding with zeros) or drops ``-count`` from the end."""
    from weaktrace.numpy.creation import arange, astype
    from weaktrace.numpy.manipulation import swapaxes
    from weaktrace.numpy.padding import pad
    from weaktrace.numpy.shapes import expand_dims, ravel, reshape
    from weaktrace.numpy.ufuncs import bitwise_and, greater, left_shift

    b = context(a)
    x = operand(a, b)
    if x.aval[1].name != "uint8":
        raise OperandTypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = left_shift(operand(1, b), arange(8, dtype="uint8"))
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        x, axis = ravel(x), 0
    x = swapaxes(x, axis, -1)
    nd = x.aval.ndim
    hit = greater(bitwise_and(expand_dims(x, -1), expand_dims(bits, tuple(range(nd)))), 0)
    out = astype(hit, "uint8")
    out = reshape(out, (*out.aval.shape[:-2], -1))
    if count is not None:
        n = out.aval.shape[-1]
        if count > n:
            out = pad(out, [*([(0, 0)] * (out.aval.ndim - 1)), (0, count - n)])
        else:
            out = out[..., :count]
    return swapaxes(out, axis, -1)
