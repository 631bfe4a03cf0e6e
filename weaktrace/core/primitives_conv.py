"""``conv_general_dilated`` in jax.lax's default layout (lhs ``N,C,spatial...``, rhs
``O,I,spatial...``, out ``N,O,spatial...``), one feature group and one batch group.

Its dtype rule is lax's: both operands of one dtype, and ``preferred_element_type``
checked as ``lax._validate_preferred_element_type`` does; weak iff both are.
"""

from __future__ import annotations

from weaktrace.core.primitives import _def, _same_dtypes
from weaktrace.dtypes.registry import DType
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue


def _check_preferred(dt: DType, preferred: DType) -> None:
    k, pk = dt.kind, preferred.kind
    if k in "iu" and pk == "f":
        pass  # integer inputs may give floating results (of either signedness)
    else:
        groups = ("iu", "f", "c")
        if any(k in g and pk not in g for g in groups) or (k == "i" and pk != "i"):
            raise OperandTypeError(
                f"preferred_element_type {preferred} is incompatible with inputs of {dt}: "
                "the combinations are (integral, integral) of one signedness, "
                "(integral, floating), (floating, floating) and (complex, complex)."
            )
    if (preferred.bits or 0) < (dt.bits or 0):
        raise OperandTypeError(
            f"preferred_element_type {preferred} must not be narrower than the inputs' {dt}"
        )


def _conv(
    lhs: AbstractValue,
    rhs: AbstractValue,
    *,
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    lhs_dilation: tuple[int, ...],
    rhs_dilation: tuple[int, ...],
    preferred_element_type: DType | None,
    precision: object = None,  # for the lowering only
) -> list[AbstractValue]:
    dt = _same_dtypes("conv_general_dilated", [lhs, rhs])
    if preferred_element_type is not None and preferred_element_type is not dt:
        _check_preferred(dt, preferred_element_type)
        dt = preferred_element_type
    nsp = lhs.ndim - 2
    if nsp < 1 or rhs.ndim != lhs.ndim or lhs.shape[1] != rhs.shape[1]:
        raise ShapeError(
            f"conv_general_dilated: shapes {lhs.shape} and {rhs.shape} do not fit the layout "
            "(N, C, spatial...) x (O, C, spatial...)"
        )
    if not len(window_strides) == len(padding) == len(lhs_dilation) == len(rhs_dilation) == nsp:
        raise ShapeError(f"conv_general_dilated: parameters must give {nsp} spatial entries")
    spatial = []
    for i in range(nsp):
        n = (lhs.shape[2 + i] - 1) * lhs_dilation[i] + 1 if lhs.shape[2 + i] else 0
        k = (rhs.shape[2 + i] - 1) * rhs_dilation[i] + 1 if rhs.shape[2 + i] else 0
        lo, hi = padding[i]
        span = n + lo + hi - k
        spatial.append(0 if span < 0 else span // window_strides[i] + 1)
    shape = (lhs.shape[0], rhs.shape[0], *spatial)
    return [AbstractValue.make(shape, dt, lhs.weak_type and rhs.weak_type)]


conv_general_dilated_p = _def("conv_general_dilated", _conv)
