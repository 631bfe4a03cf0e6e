"""``bitcast_convert_type``: reinterpret the bits of each element as another dtype
(``jax.lax.bitcast_convert_type``), the primitive behind ``x.view(dtype)``.

Same width: the shape stays. A narrower target adds a last dimension of the width
ratio; a wider one consumes a last dimension of that size. Bool and complex are not
accepted (``view`` goes through uint8 and real/imag parts for them, as jax does); the
result is never weak.
"""

from __future__ import annotations

import ml_dtypes

from weaktrace.core.primitives import _def
from weaktrace.dtypes.registry import DType
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue

_make = AbstractValue.make


def bits(dt: DType) -> int:
    """``jax.dtypes.itemsize_bits``: bool counts 8, sub-byte types their own width."""
    if dt.kind == "b":
        return 8
    if dt.kind in "iu":
        return int(ml_dtypes.iinfo(dt.numpy).bits)
    width = int(ml_dtypes.finfo(dt.numpy).bits)
    return 2 * width if dt.kind == "c" else width


def _bitcast(x: AbstractValue, *, new_dtype: DType) -> list[AbstractValue]:
    for dt in (x[1], new_dtype):
        if dt.kind in "bc" or dt.numpy is None:
            raise OperandTypeError(
                f"bitcast_convert_type does not accept dtype {dt} (bool and complex are "
                "not bitcast; view them through uint8 or their real parts)"
            )
    a, b = bits(x[1]), bits(new_dtype)
    shape = x.shape
    if a > b:
        if a % b:
            raise ShapeError(f"cannot bitcast {x[1]} ({a} bits) to {new_dtype} ({b} bits)")
        shape = (*shape, a // b)
    elif a < b:
        if b % a or not shape or shape[-1] != b // a:
            raise ShapeError(
                f"bitcast_convert_type from {x[1]} to {new_dtype} needs a last dimension "
                f"of size {b // a if b % a == 0 else '?'}, got shape {shape}"
            )
        shape = shape[:-1]
    return [_make(shape, new_dtype, False)]


bitcast_convert_type_p = _def("bitcast_convert_type", _bitcast)
