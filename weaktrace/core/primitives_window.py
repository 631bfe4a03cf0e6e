"""Windowed and general reductions and the general convolution of ``jax.lax``:
``conv`` (any dimension numbers, feature and batch groups), ``reduce`` and
``reduce_window`` (a traced scalar computation, or a named monoid), ``reduce_xor``,
``optimization_barrier`` and the special functions lax offers beyond the core set
(zeta, polygamma, betainc, igamma_grad_a, random_gamma_grad, mulhi).

Dtype rules are lax's: operands of one dtype (no promotion), the result of a
reduction has its operands' dtypes, weak iff operand and initial value both are.
"""

from __future__ import annotations

from typing import Any

from weaktrace.core.primitives import (
    FLOAT,
    INT_OR_BOOL,
    INTEGER,
    _def,
    _nary,
    _require,
    _same_dtypes,
)
from weaktrace.core.primitives_conv import _check_preferred
from weaktrace.dtypes.registry import DType
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue, Program

_make = AbstractValue.make

zeta_p = _nary("zeta", FLOAT)
polygamma_p = _nary("polygamma", FLOAT)
betainc_p = _nary("regularized_incomplete_beta", FLOAT)
igamma_grad_a_p = _nary("igamma_grad_a", FLOAT)
random_gamma_grad_p = _nary("random_gamma_grad", FLOAT)
mulhi_p = _nary("mulhi", INTEGER)


def _barrier(*xs: AbstractValue) -> list[AbstractValue]:
    return list(xs)


optimization_barrier_p = _def("optimization_barrier", _barrier, multiple_results=True)


def _reduce_xor(x: AbstractValue, *, axes: tuple[int, ...]) -> list[AbstractValue]:
    _require("reduce_xor", x, INT_OR_BOOL, "a boolean or integer dtype")
    if any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
        raise ShapeError(f"reduce_xor axes {axes} do not fit shape {x.shape}")
    shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    return [_make(shape, x[1], x.weak_type)]


reduce_xor_p = _def("reduce_xor", _reduce_xor)


def window_out(
    n: int, window: int, stride: int, pad: tuple[int, int], base: int, dilation: int
) -> int:
    """XLA's windowed output size along one dimension."""
    if stride < 1 or base < 1 or dilation < 1:
        raise ShapeError("strides and dilations must be positive")
    size = (n - 1) * base + 1 if n else 0
    span = (window - 1) * dilation + 1 if window else 0
    padded = size + pad[0] + pad[1]
    return 0 if padded < span else (padded - span) // stride + 1


def _check_inits(
    name: str, operands: tuple[AbstractValue, ...], inits: tuple[AbstractValue, ...]
) -> None:
    for x, v in zip(operands, inits, strict=True):
        if x[1] is not v[1]:
            raise OperandTypeError(
                f"{name} operand dtypes should match corresponding initial value dtypes, got "
                f"operand {x} and initial value {v}"
            )
        if v.shape != ():
            raise ShapeError(f"{name} initial values must be scalars, got {v}")
    if any(x.shape != operands[0].shape for x in operands):
        raise ShapeError(f"{name} operands must share one shape, got {[x.shape for x in operands]}")


def _check_program(name: str, program: Program | None, inits: tuple[AbstractValue, ...]) -> None:
    if program is None:
        return
    outs = [v.aval for v in program.outvars]
    if [(o[0], o[1]) for o in outs] != [((), v[1]) for v in inits]:
        raise OperandTypeError(
            f"{name}: the computation must return scalars of its inputs' dtypes "
            f"{[str(v[1]) for v in inits]}, it returns {[str(o) for o in outs]}"
        )


def _reduce(
    *avals: AbstractValue,
    program: Program | None,
    monoid: str | None,
    dimensions: tuple[int, ...],
    policy: Any,
) -> list[AbstractValue]:
    k = len(avals) // 2
    operands, inits = avals[:k], avals[k:]
    _check_inits("reduce", operands, inits)
    _check_program("reduce", program, inits)
    x = operands[0]
    if any(not 0 <= d < x.ndim for d in dimensions) or len(set(dimensions)) != len(dimensions):
        raise ShapeError(f"reduce dimensions {dimensions} do not fit shape {x.shape}")
    shape = tuple(n for i, n in enumerate(x.shape) if i not in dimensions)
    return [
        _make(shape, o[1], o.weak_type and v.weak_type)
        for o, v in zip(operands, inits, strict=True)
    ]


reduce_p = _def("reduce", _reduce, multiple_results=True)


def _reduce_window(
    *avals: AbstractValue,
    program: Program | None,
    monoid: str | None,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    base_dilation: tuple[int, ...],
    window_dilation: tuple[int, ...],
    policy: Any,
) -> list[AbstractValue]:
    k = len(avals) // 2
    operands, inits = avals[:k], avals[k:]
    if monoid is None:
        _check_inits("reduce_window", operands, inits)
        _check_program("reduce_window", program, inits)
    x = operands[0]
    n = x.ndim
    # jax's _check_shapelike, first: windows and strides > 0, dilations >= 0
    for arg, dims, low in (
        ("window_dimensions", window_dimensions, 1),
        ("window_strides", window_strides, 1),
        ("base_dilation", base_dilation, 0),
        ("window_dilation", window_dilation, 0),
    ):
        if any(d < low for d in dims):
            bound = "strictly positive" if low else "nonnegative"
            raise ShapeError(f"reduce_window {arg} must have every element be {bound}, got {dims}.")
    params = (window_dimensions, window_strides, padding, base_dilation, window_dilation)
    if any(len(p) != n for p in params):
        raise ShapeError(
            f"reduce_window: window dimensions, strides, padding and dilations must have "
            f"{n} entries (the operand's rank), got {params}"
        )
    shape = tuple(window_out(*a) for a in zip(x.shape, *params, strict=True))
    if monoid is not None:
        return [_make(shape, x[1], x.weak_type)]
    return [
        _make(shape, o[1], o.weak_type and v.weak_type)
        for o, v in zip(operands, inits, strict=True)
    ]


reduce_window_p = _def("reduce_window", _reduce_window, multiple_results=True)

ConvSpec = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _conv(
    lhs: AbstractValue,
    rhs: AbstractValue,
    *,
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    lhs_dilation: tuple[int, ...],
    rhs_dilation: tuple[int, ...],
    dimension_numbers: ConvSpec,
    feature_group_count: int,
    batch_group_count: int,
    preferred_element_type: DType | None,
    precision: Any = None,  # for the lowering only
) -> list[AbstractValue]:
    """``lax.conv_general_dilated``'s shape and dtype rule, in any layout: the
    specs give (batch, feature, spatial...) of lhs, (out, in, spatial...) of rhs and
    (batch, feature, spatial...) of the output."""
    dt = _same_dtypes("conv_general_dilated", [lhs, rhs])
    if preferred_element_type is not None and preferred_element_type is not dt:
        _check_preferred(dt, preferred_element_type)
        dt = preferred_element_type
    lspec, rspec, ospec = dimension_numbers
    if lhs.ndim != rhs.ndim:  # jax's words
        raise ShapeError(
            "conv_general_dilated lhs and rhs must have the same number of dimensions, but "
            f"got {lhs.shape} and {rhs.shape}."
        )
    if lhs.ndim < 2 or len(lspec) != lhs.ndim:
        raise ShapeError(f"conv_general_dilated: ranks of {lhs} and {rhs} must agree (>= 2)")
    nsp = lhs.ndim - 2
    if not len(window_strides) == len(padding) == len(lhs_dilation) == len(rhs_dilation) == nsp:
        raise ShapeError(f"conv_general_dilated: parameters must give {nsp} spatial entries")
    lsh = [lhs.shape[d] for d in lspec]
    rsh = [rhs.shape[d] for d in rspec]
    g, b = feature_group_count, batch_group_count
    if g < 1 or b < 1 or (g > 1 and b > 1):
        raise ShapeError("feature_group_count and batch_group_count must be >= 1, not both > 1")
    if lsh[1] != rsh[1] * g:
        raise ShapeError(
            f"conv_general_dilated lhs feature dimension ({lsh[1]}) must equal the rhs input "
            f"feature dimension ({rsh[1]}) times feature_group_count ({g})"
        )
    if rsh[0] % g or rsh[0] % b or lsh[0] % b:
        raise ShapeError(
            f"conv_general_dilated: rhs output features ({rsh[0]}) must be a multiple of the "
            f"group counts, lhs batch ({lsh[0]}) of batch_group_count ({b})"
        )
    spatial = [
        window_out(
            lsh[2 + i], rsh[2 + i], window_strides[i], padding[i], lhs_dilation[i], rhs_dilation[i]
        )
        for i in range(nsp)
    ]
    logical = [lsh[0] // b, rsh[0], *spatial]
    shape = [0] * lhs.ndim
    for pos, d in enumerate(ospec):
        shape[d] = logical[pos]
    return [_make(tuple(shape), dt, lhs.weak_type and rhs.weak_type)]


conv_p = _def("conv", _conv)
