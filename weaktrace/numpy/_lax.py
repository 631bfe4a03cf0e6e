"""lax-level helpers the math mirrors share (jax.numpy's implementations call these
``lax`` functions directly, so they bind primitives without promoting)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from weaktrace.dtypes.registry import DType, by_name
from weaktrace.errors import OperandTypeError
from weaktrace.numpy._core import Context, P, Tracer, axis_arg, convert, emit, lit, operand

_INT32 = by_name("int32")
_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1


def iota(b: Context, dtype: DType, shape: tuple[int, ...], dimension: int) -> Tracer:
    """``lax.broadcasted_iota``."""
    return b.emit(P.iota_p, (), {"dtype": dtype, "shape": shape, "dimension": dimension})


def select(pred: Tracer, on_true: Tracer, on_false: Tracer) -> Tracer:
    """``lax.select`` (shapes already equal, or a scalar predicate)."""
    return emit(P.select_n_p, pred, on_false, on_true)


def delta(b: Context, shape: tuple[int, ...], axes: Sequence[int]) -> Tracer:
    """``lax._delta(bool, shape, axes)``: True where the indices along `axes` agree."""
    base = tuple(shape[a] for a in axes)
    u32 = by_name("uint32")
    iotas = [iota(b, u32, base, i) for i in range(len(base))]
    eyes = [emit(P.eq_p, i1, i2) for i1, i2 in itertools.pairwise(iotas)]
    eye = eyes[0]
    for e in eyes[1:]:
        eye = emit(P.and_p, eye, e)
    return emit(P.broadcast_in_dim_p, eye, shape=shape, broadcast_dimensions=tuple(axes))


def tri(b: Context, n: int, m: int, k: Any) -> Tracer:
    """``lax._tri(bool, (n, m), k)``: True on and below the k-th diagonal. The offset
    `k` may be traced; it counts in int32 unless its dtype needs int64."""
    if isinstance(k, np.integer):  # jax takes a numpy integer as the Python int it is
        k = int(k)
    if k.__class__ is int and _I32_MIN <= k <= _I32_MAX:
        dt, offset = _INT32, _int32(b, k)
    else:
        off = operand(k, b)  # a Python int beyond int32 raises OverflowError without x64
        if off.aval.dt.kind not in "iu":  # floats and bools too, as jnp.tri refuses them
            raise OperandTypeError(f"offset must be an integer, got {off.aval}")
        small = (off.aval.dt.bits or 64) < 32 or off.aval.dt == _INT32
        dt = _INT32 if small else b.policy.canonicalize(by_name("int64"))
        offset = convert(b, off, dt, False)
    return emit(P.ge_p, emit(P.add_p, iota(b, dt, (n, m), 0), offset), iota(b, dt, (n, m), 1))


def _int32(b: Context, k: int) -> Tracer:
    return lit(b, k, _INT32)


def moveaxis(x: Tracer, source: int, destination: int, fn: str = "moveaxis") -> Tracer:
    """``jnp.moveaxis`` for one axis (a transpose; none when nothing moves)."""
    nd = x.aval.ndim
    src, dst = axis_arg(source, nd, fn), axis_arg(destination, nd, fn)
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    if perm == list(range(nd)):
        return x
    return emit(P.transpose_p, x, permutation=tuple(perm))
