"""Elementwise primitives the math mirrors need beyond ``primitives.py``: inverse
hyperbolics, ``nextafter``, ``population_count``, ``bessel_i0e``,
``bitcast_convert_type`` and ``gcd`` (Euclid's loop as one elementwise primitive).

Each is named after the ``jax.lax`` function it lowers to (``rules_math.py``) and
follows its dtype and weak-type rule.
"""

from __future__ import annotations

from weaktrace.core.primitives import FLOAT, INEXACT, INTEGER, _def, _nary, _require
from weaktrace.dtypes.registry import DType
from weaktrace.errors import OperandTypeError
from weaktrace.ir.values import AbstractValue

asinh_p = _nary("asinh", INEXACT)
acosh_p = _nary("acosh", INEXACT)
atanh_p = _nary("atanh", INEXACT)
nextafter_p = _nary("nextafter", FLOAT)
population_count_p = _nary("population_count", INTEGER)
bessel_i0e_p = _nary("bessel_i0e", FLOAT)
# gcd of integers of one dtype (jnp.gcd's while_loop over Euclid steps, lowered as jax
# writes it); the operands are already non-negative and of one shape.
gcd_p = _nary("gcd", INTEGER)


def _bitcast_convert_type(x: AbstractValue, *, new_dtype: DType) -> list[AbstractValue]:
    """``lax.bitcast_convert_type`` between dtypes of one width (weak type stripped)."""
    _require("bitcast_convert_type", x, "buifc", "a bool, integer or floating dtype")
    if x[1].bits != new_dtype.bits or x[1].kind == "c" or new_dtype.kind == "c":
        raise OperandTypeError(
            f"bitcast_convert_type from {x[1]} to {new_dtype} needs two real dtypes of one "
            "width here (jax.lax also reshapes between widths; weaktrace does not yet)."
        )
    return [AbstractValue.make(x.shape, new_dtype, False)]


bitcast_convert_type_p = _def("bitcast_convert_type", _bitcast_convert_type)
