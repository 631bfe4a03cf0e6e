"""Primitives, named after ``jax.lax``, each with its shape/dtype/weak_type rule.

A primitive is a name (``add_p = Primitive("add")``); its abstract-eval rule is
registered right below it in ``abstract_eval_rules``. Rules take input avals and
the equation's params and return the output avals, or raise a named error.

Weak types follow ``jax.lax``: elementwise results are weak only when every
operand is; shape ops keep the operand's flag; ``convert_element_type`` sets it
explicitly; iota, argmax/argmin and comparisons of strong values are strong.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

import ml_dtypes
import numpy as np

from weaktrace.dtypes import registry
from weaktrace.dtypes.registry import DType
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue, Primitive, abstract_eval_rules

_D = registry.by_name
_BOOL = _D("bool")
_INT32 = _D("int32")
_make = AbstractValue.make
_av, _AV = tuple.__new__, AbstractValue  # the hot rules build avals inline (no call frame)
kind = registry.kind


def _def(
    name: str, rule: Callable[..., list[AbstractValue]], multiple_results: bool = False
) -> Primitive:
    p = Primitive(name, multiple_results)
    abstract_eval_rules[p] = rule
    return p


def _require(name: str, aval: AbstractValue, kinds: str, what: str) -> None:
    if aval[1].kind not in kinds:
        raise OperandTypeError(
            f"{name} does not accept dtype {aval[1]}: it needs {what}. "
            "Convert the operand first, e.g. x.astype('float32')."
        )


# Accepted dtype kinds, as jax.lax checks them.
NUMERIC = "uifc"
INEXACT = "fc"
FLOAT = "f"
INTEGER = "ui"
INT_OR_BOOL = "uib"
ANY = "buifc"
EQUATABLE = "buifcK"  # eq/ne also compare PRNG key arrays (kind "K"), as jax's do
ORDERED = "buif"
INT_OR_FLOAT = "uif"
COMPLEX = "c"
_KIND_TEXT = {
    ORDERED: "a real number or bool (complex values have no order)",
    INT_OR_FLOAT: "an integer or real floating dtype",
    COMPLEX: "a complex dtype",
    NUMERIC: "a number (not bool)",
    INEXACT: "a floating or complex dtype",
    FLOAT: "a real floating dtype",
    INTEGER: "an integer dtype",
    INT_OR_BOOL: "an integer or bool dtype",
    ANY: "any dtype",
    EQUATABLE: "any dtype",
}

# -- elementwise -----------------------------------------------------------------


def broadcast_shapes(name: str, shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """lax's implicit broadcasting: equal ranks with dims equal or 1, or rank-0 operands."""
    ranked = [s for s in shapes if s]
    if not ranked:
        return ()
    rank = len(ranked[0])
    if any(len(s) != rank for s in ranked):
        raise ShapeError(
            f"{name} got operands of ranks {[len(s) for s in shapes]} (shapes "
            f"{', '.join(map(str, shapes))}); lax operations need equal ranks. "
            "Broadcast explicitly first, e.g. with broadcast_to or expand_dims."
        )
    out = []
    for dims in zip(*ranked, strict=True):
        big = {d for d in dims if d != 1}
        if len(big) > 1:
            raise ShapeError(
                f"{name} got incompatible shapes {', '.join(map(str, shapes))}: "
                "dimensions must be equal or 1. Reshape, slice or broadcast the operands "
                "so that they match."
            )
        out.append(big.pop() if big else 1)
    return tuple(out)


def _same_dtypes(name: str, avals: Sequence[AbstractValue]) -> DType:
    dt = avals[0][1]
    for a in avals[1:]:
        if a[1] is not dt:
            raise OperandTypeError(
                f"lax.{name} requires arguments to have the same dtypes, got "
                f"{', '.join(str(a[1]) for a in avals)}: jax.lax does not promote. "
                "Promote them first (weaktrace.numpy does) or convert explicitly."
            )
    return dt


def _nary(name: str, kinds: str, out_dtype: Callable[[DType], DType] | None = None) -> Primitive:
    # The hot rule of every trace: a plain loop, no generators, no per-call lookups.
    accepted = frozenset(kinds)

    def rule(*avals: AbstractValue) -> list[AbstractValue]:
        first = avals[0]
        shape, dt, weak = first
        if dt.kind not in accepted:
            _require(name, first, kinds, _KIND_TEXT[kinds])
        if len(avals) == 2:  # binary: equal shapes, or a rank-0 side
            a = avals[1]
            s = a[0]
            if a[1] is dt and (s == shape or not s):
                out = dt if out_dtype is None else out_dtype(dt)
                return [_av(_AV, (shape, out, weak and a[2]))]
        for a in avals[1:]:
            if a[1] is not dt:
                _same_dtypes(name, avals)
            s = a[0]
            if s != shape and s:  # a rank-0 operand broadcasts for free
                shape = s if not shape else broadcast_shapes(name, [x.shape for x in avals])
            weak = weak and a[2]
        return [_av(_AV, (shape, dt if out_dtype is None else out_dtype(dt), weak))]

    return _def(name, rule)


_KNOWN = {d.name for d in registry.ALL}  # complex32 exists only where ml_dtypes has it
_REAL = {_D(f"complex{2 * b}"): _D(f"float{b}") for b in (16, 32, 64)
         if f"complex{2 * b}" in _KNOWN}  # fmt: skip


def _real_dtype(dt: DType) -> DType:
    return _REAL.get(dt, dt)


def _bool(dt: DType) -> DType:
    return _BOOL


neg_p = _nary("neg", NUMERIC)
sign_p = _nary("sign", NUMERIC)


def _abs(x: AbstractValue) -> list[AbstractValue]:
    # lax.abs: signed ints, floats, complex; not unsigned, not 1/2/4-bit ints.
    if x[1].kind not in "ifc" or x[1].name in registry.SUB_BYTE_INTS:
        raise OperandTypeError(
            f"abs does not accept dtype {x[1]}: it needs a signed integer (8 bits or "
            "more), floating or complex dtype. (weaktrace.numpy.abs returns unsigned "
            "values unchanged.)"
        )
    return [_make(x.shape, _real_dtype(x[1]), x.weak_type)]


abs_p = _def("abs", _abs)
square_p = _nary("square", NUMERIC)
floor_p = _nary("floor", FLOAT)
ceil_p = _nary("ceil", FLOAT)


def _round(x: AbstractValue, *, rounding_method: int) -> list[AbstractValue]:
    """lax.round: rounding_method 0 rounds halves away from zero, 1 to even (jnp.round)."""
    _require("round", x, FLOAT, _KIND_TEXT[FLOAT])
    return [x]


round_p = _def("round", _round)
is_finite_p = _nary("is_finite", FLOAT, _bool)
exp_p = _nary("exp", INEXACT)
exp2_p = _nary("exp2", INEXACT)
log_p = _nary("log", INEXACT)
log1p_p = _nary("log1p", INEXACT)
expm1_p = _nary("expm1", INEXACT)
sin_p = _nary("sin", INEXACT)
cos_p = _nary("cos", INEXACT)
tan_p = _nary("tan", INEXACT)
asin_p = _nary("asin", INEXACT)
acos_p = _nary("acos", INEXACT)
atan_p = _nary("atan", INEXACT)
sinh_p = _nary("sinh", INEXACT)
cosh_p = _nary("cosh", INEXACT)
tanh_p = _nary("tanh", INEXACT)
sqrt_p = _nary("sqrt", INEXACT)
rsqrt_p = _nary("rsqrt", INEXACT)
cbrt_p = _nary("cbrt", FLOAT)
not_p = _nary("not", INT_OR_BOOL)
real_p = _nary("real", COMPLEX, _real_dtype)
imag_p = _nary("imag", COMPLEX, _real_dtype)


def _conj(x: AbstractValue) -> list[AbstractValue]:
    # lax.conj also takes float32/float64 (not float16/bfloat16) and gives the complex
    # dtype of their width, as jax's conj_p does (jax.numpy.conj keeps reals real).
    dt = _CONJ.get(x[1].name, x[1]) if x[1].kind == "f" else x[1]
    if dt.kind != "c":
        raise OperandTypeError(
            f"conj does not accept dtype {x[1]}. Accepted dtypes are subtypes of float32, "
            "complexfloating, float64. Convert the operand first, e.g. x.astype('complex64')."
        )
    return [_make(x.shape, dt, x.weak_type)]


_CONJ = {"float32": _D("complex64"), "float64": _D("complex128")}
conj_p = _def("conj", _conj)

add_p = _nary("add", NUMERIC)
sub_p = _nary("sub", NUMERIC)
mul_p = _nary("mul", NUMERIC)
div_p = _nary("div", NUMERIC)
rem_p = _nary("rem", INT_OR_FLOAT)
max_p = _nary("max", ANY)
min_p = _nary("min", ANY)
atan2_p = _nary("atan2", INEXACT)
and_p = _nary("and", INT_OR_BOOL)
or_p = _nary("or", INT_OR_BOOL)
xor_p = _nary("xor", INT_OR_BOOL)
shift_left_p = _nary("shift_left", INTEGER)
shift_right_arithmetic_p = _nary("shift_right_arithmetic", INTEGER)
shift_right_logical_p = _nary("shift_right_logical", INTEGER)
eq_p = _nary("eq", EQUATABLE, _bool)
ne_p = _nary("ne", EQUATABLE, _bool)
lt_p = _nary("lt", ORDERED, _bool)
le_p = _nary("le", ORDERED, _bool)
gt_p = _nary("gt", ORDERED, _bool)
ge_p = _nary("ge", ORDERED, _bool)


def _pow(x: AbstractValue, y: AbstractValue) -> list[AbstractValue]:
    # lax.pow: a floating/complex base; the exponent may be an integer of any dtype.
    _require("pow", x, INEXACT, _KIND_TEXT[INEXACT])
    _require("pow", y, NUMERIC, _KIND_TEXT[NUMERIC])
    if y[1].kind in INEXACT and y[1] is not x[1]:
        _same_dtypes("pow", [x, y])
    shape = broadcast_shapes("pow", [x.shape, y.shape])
    return [_make(shape, x[1], x.weak_type and y.weak_type)]


pow_p = _def("pow", _pow)


def _integer_pow(x: AbstractValue, *, y: int) -> list[AbstractValue]:
    _require("integer_pow", x, NUMERIC, _KIND_TEXT[NUMERIC])
    if x[1].kind in INTEGER and y < 0:
        raise OperandTypeError(f"integer_pow of an integer dtype to the power {y} < 0")
    return [x]


integer_pow_p = _def("integer_pow", _integer_pow)


def _complex(x: AbstractValue, y: AbstractValue) -> list[AbstractValue]:
    dt = _same_dtypes("complex", [x, y])
    if dt.name not in ("float32", "float64"):
        raise OperandTypeError(f"complex needs float32 or float64 parts, got {dt}")
    shape = broadcast_shapes("complex", [x.shape, y.shape])
    out = _D("complex64") if dt.name == "float32" else _D("complex128")
    return [_make(shape, out, x.weak_type and y.weak_type)]


complex_p = _def("complex", _complex)


def _select_n(which: AbstractValue, *cases: AbstractValue) -> list[AbstractValue]:
    if not cases:
        raise ShapeError("select_n needs at least one case")
    dt = _same_dtypes("select_n", cases)
    shape = cases[0].shape
    if any(c.shape != shape for c in cases):
        raise ShapeError(f"select_n cases must share one shape, got {[c.shape for c in cases]}")
    if which.shape not in ((), shape):
        raise ShapeError(f"select_n predicate shape {which.shape} must be () or {shape}")
    if which[1] is not _BOOL and which[1].kind not in INTEGER:
        raise OperandTypeError(f"select_n predicate must be bool or an integer, got {which[1]}")
    if which[1] is _BOOL and len(cases) > 2:
        raise OperandTypeError(f"select_n with a bool predicate takes 2 cases, got {len(cases)}")
    return [_make(shape, dt, all(c.weak_type for c in cases))]


select_n_p = _def("select_n", _select_n)


def _clamp(lo: AbstractValue, x: AbstractValue, hi: AbstractValue) -> list[AbstractValue]:
    _same_dtypes("clamp", [lo, x, hi])
    for b in (lo, hi):
        if b.shape not in ((), x.shape):
            raise ShapeError(f"clamp bounds must be scalars or of shape {x.shape}, got {b.shape}")
    return [x]


clamp_p = _def("clamp", _clamp)


def _convert(x: AbstractValue, *, new_dtype: DType, weak_type: bool) -> list[AbstractValue]:
    return [_av(_AV, (x[0], new_dtype, weak_type))]


convert_element_type_p = _def("convert_element_type", _convert)

# -- shapes ------------------------------------------------------------------------


def _broadcast_in_dim(
    x: AbstractValue, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> list[AbstractValue]:
    if len(broadcast_dimensions) != x.ndim or any(
        not 0 <= d < len(shape) or x.shape[i] not in (1, shape[d])
        for i, d in enumerate(broadcast_dimensions)
    ):
        raise ShapeError(
            f"cannot broadcast {x.shape} to {shape} along dimensions {broadcast_dimensions}"
        )
    return [_make(shape, x[1], x.weak_type)]


broadcast_in_dim_p = _def("broadcast_in_dim", _broadcast_in_dim)


def _reshape(x: AbstractValue, *, new_sizes: tuple[int, ...]) -> list[AbstractValue]:
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise ShapeError(
            f"cannot reshape {x.shape} ({x.size} elements) to {new_sizes}: the new shape "
            f"must hold the same {x.size} elements (one dimension may be -1)."
        )
    return [_make(new_sizes, x[1], x.weak_type)]


reshape_p = _def("reshape", _reshape)


def _transpose(x: AbstractValue, *, permutation: tuple[int, ...]) -> list[AbstractValue]:
    if sorted(permutation) != list(range(x.ndim)):
        raise ShapeError(f"transpose permutation {permutation} does not fit rank {x.ndim}")
    return [_make(tuple(x.shape[p] for p in permutation), x[1], x.weak_type)]


transpose_p = _def("transpose", _transpose)


def _squeeze(x: AbstractValue, *, dimensions: tuple[int, ...]) -> list[AbstractValue]:
    if any(not 0 <= d < x.ndim or x.shape[d] != 1 for d in dimensions):
        raise ShapeError(
            "cannot select an axis to squeeze out which has size not equal to one, "
            f"got shape={x.shape} and dimensions={dimensions}"
        )
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dimensions)
    return [_make(shape, x[1], x.weak_type)]


squeeze_p = _def("squeeze", _squeeze)


def _expand_dims(x: AbstractValue, *, dimensions: tuple[int, ...]) -> list[AbstractValue]:
    shape = list(x.shape)
    for d in sorted(dimensions):
        if not 0 <= d <= len(shape):
            raise ShapeError(f"cannot insert dimension {d} into shape {x.shape}")
        shape.insert(d, 1)
    return [_make(tuple(shape), x[1], x.weak_type)]


expand_dims_p = _def("expand_dims", _expand_dims)


def _concatenate(*xs: AbstractValue, dimension: int) -> list[AbstractValue]:
    dt = _same_dtypes("concatenate", xs)
    first = xs[0].shape
    if not 0 <= dimension < len(first):
        raise ShapeError(f"concatenate dimension {dimension} out of range for rank {len(first)}")
    for x in xs:
        if len(x.shape) != len(first) or any(
            a != b for i, (a, b) in enumerate(zip(x.shape, first, strict=True)) if i != dimension
        ):
            raise ShapeError(
                f"concatenate needs equal shapes but for dimension {dimension}, got "
                f"{', '.join(str(x.shape) for x in xs)}"
            )
    shape = list(first)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return [_make(tuple(shape), dt, all(x.weak_type for x in xs))]


concatenate_p = _def("concatenate", _concatenate)


def _slice(
    x: AbstractValue,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...] | None,
) -> list[AbstractValue]:
    steps = strides or (1,) * x.ndim
    if not (len(start_indices) == len(limit_indices) == len(steps) == x.ndim) or any(
        not 0 <= lo <= hi <= n or s < 1
        for lo, hi, n, s in zip(start_indices, limit_indices, x.shape, steps, strict=True)
    ):
        raise ShapeError(
            f"slice {start_indices}:{limit_indices}:{strides} does not fit shape {x.shape}"
        )
    shape = tuple(
        max(0, -(-(hi - lo) // s))
        for lo, hi, s in zip(start_indices, limit_indices, steps, strict=True)
    )
    return [_make(shape, x[1], x.weak_type)]


slice_p = _def("slice", _slice)


def _rev(x: AbstractValue, *, dimensions: tuple[int, ...]) -> list[AbstractValue]:
    if any(not 0 <= d < x.ndim for d in dimensions):
        raise ShapeError(f"rev dimensions {dimensions} do not fit shape {x.shape}")
    return [x]


rev_p = _def("rev", _rev)


def _same_index_dtypes(name: str, starts: Sequence[AbstractValue]) -> None:
    """jax takes a slice's start indices of any integer dtype, but one for all of them."""
    if len({s[1] for s in starts}) > 1:
        got = ", ".join(str(s[1]) for s in starts)
        raise OperandTypeError(
            f"index arguments to {name} must be integers of the same type, got {got}"
        )


def _dynamic_slice(
    x: AbstractValue, *starts: AbstractValue, slice_sizes: tuple[int, ...]
) -> list[AbstractValue]:
    if len(starts) != x.ndim or len(slice_sizes) != x.ndim:
        raise ShapeError(f"dynamic_slice needs {x.ndim} start indices and sizes")
    for s in starts:
        if s.shape != () or s[1].kind not in INTEGER:
            raise OperandTypeError(f"dynamic_slice start indices must be integer scalars, got {s}")
    _same_index_dtypes("dynamic_slice", starts)
    if any(not 0 <= z <= n for z, n in zip(slice_sizes, x.shape, strict=True)):
        raise ShapeError(f"dynamic_slice sizes {slice_sizes} do not fit shape {x.shape}")
    return [_make(tuple(slice_sizes), x[1], x.weak_type)]


dynamic_slice_p = _def("dynamic_slice", _dynamic_slice)


class GatherDims(tuple[tuple[int, ...], ...]):
    """``lax.GatherDimensionNumbers`` as a plain hashable record: offset_dims,
    collapsed_slice_dims, start_index_map (no batching dims)."""

    __slots__ = ()

    def __new__(cls, offset_dims: tuple[int, ...], collapsed_slice_dims: tuple[int, ...],
                start_index_map: tuple[int, ...]) -> GatherDims:  # fmt: skip
        return tuple.__new__(cls, (offset_dims, collapsed_slice_dims, start_index_map))

    offset_dims = property(lambda self: self[0])
    collapsed_slice_dims = property(lambda self: self[1])
    start_index_map = property(lambda self: self[2])

    def __repr__(self) -> str:
        return (f"GatherDims(offset_dims={self[0]}, collapsed_slice_dims={self[1]}, "
                f"start_index_map={self[2]})")  # fmt: skip


def _gather(
    x: AbstractValue,
    indices: AbstractValue,
    *,
    dimension_numbers: GatherDims,
    slice_sizes: tuple[int, ...],
    mode: str,
) -> list[AbstractValue]:
    """``lax.gather``'s shape rule: batch dims of `indices` (all but its last) fill the
    output positions not in offset_dims; the uncollapsed slice sizes fill the rest."""
    offset, collapsed, start_map = dimension_numbers
    if indices[1].kind not in INTEGER:
        raise OperandTypeError(f"gather indices must be integers, got {indices[1]}")
    if not indices.shape or indices.shape[-1] != len(start_map):
        raise ShapeError(f"gather indices {indices.shape} must end in {len(start_map)}")
    if (
        len(slice_sizes) != x.ndim
        or any(s < 0 for s in slice_sizes)
        # with no start index jax (and XLA) accept windows larger than the operand
        or (0 not in indices.shape and any(map(operator.gt, slice_sizes, x.shape)))
        or any(slice_sizes[d] != 1 for d in collapsed)
    ):
        raise ShapeError(f"gather slice sizes {slice_sizes} do not fit shape {x.shape}")
    kept = [s for i, s in enumerate(slice_sizes) if i not in collapsed]
    batch = list(indices.shape[:-1])
    rank = len(kept) + len(batch)
    if len(offset) != len(kept) or any(not 0 <= d < rank for d in offset):
        raise ShapeError(f"gather offset_dims {offset} do not fit output rank {rank}")
    kept_it, batch_it = iter(kept), iter(batch)
    shape = tuple(next(kept_it) if d in offset else next(batch_it) for d in range(rank))
    return [_make(shape, x[1], x.weak_type)]


gather_p = _def("gather", _gather)


def _iota(*, dtype: DType, shape: tuple[int, ...], dimension: int) -> list[AbstractValue]:
    if not 0 <= dimension < max(len(shape), 1):
        raise ShapeError(f"iota dimension {dimension} out of range for shape {shape}")
    if dtype.kind == "b":
        raise OperandTypeError(
            "iota does not accept dtype bool (as lax.iota): ask for an integer, floating "
            "or complex dtype"
        )
    return [_make(shape, dtype, False)]


iota_p = _def("iota", _iota)

# -- reductions and contractions -------------------------------------------------


def _reduced(x: AbstractValue, axes: tuple[int, ...]) -> tuple[int, ...]:
    if len(set(axes)) != len(axes):
        raise ShapeError(f"duplicate value in 'axes' of reduction: {axes}")
    if any(not 0 <= a < x.ndim for a in axes):
        raise ShapeError(f"reduction axes {axes} do not fit shape {x.shape}")
    return tuple(s for i, s in enumerate(x.shape) if i not in axes)


def _reduce(name: str, kinds: str) -> Primitive:
    def rule(x: AbstractValue, *, axes: tuple[int, ...]) -> list[AbstractValue]:
        _require(name, x, kinds, _KIND_TEXT[kinds])
        return [_make(_reduced(x, axes), x[1], x.weak_type)]

    return _def(name, rule)


reduce_sum_p = _reduce("reduce_sum", NUMERIC)
reduce_prod_p = _reduce("reduce_prod", NUMERIC)
reduce_max_p = _reduce("reduce_max", ANY)
reduce_min_p = _reduce("reduce_min", ANY)
reduce_and_p = _reduce("reduce_and", INT_OR_BOOL)
reduce_or_p = _reduce("reduce_or", INT_OR_BOOL)


def _arg_reduce(name: str) -> Primitive:
    def rule(x: AbstractValue, *, axes: tuple[int, ...], index_dtype: DType) -> list[AbstractValue]:
        if len(axes) != 1:
            raise ShapeError(f"{name} reduces exactly one axis, got {axes}")
        if index_dtype.kind not in INTEGER:
            raise OperandTypeError(f"index_dtype must be an integer type, but got {index_dtype}")
        return [_make(_reduced(x, axes), index_dtype, False)]

    return _def(name, rule)


argmax_p = _arg_reduce("argmax")
argmin_p = _arg_reduce("argmin")


def precision_param(precision: object) -> dict[str, object]:
    """The ``precision`` param of a dot or conv, for jax's lowering (hashable; absent
    when not given, so programs print as before)."""
    if precision is None:
        return {}
    return {"precision": tuple(precision) if isinstance(precision, list) else precision}


def _dot_general(
    x: AbstractValue,
    y: AbstractValue,
    *,
    dimension_numbers: tuple[
        tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]
    ],
    preferred_element_type: DType | None,
    precision: object = None,  # for the lowering only
) -> list[AbstractValue]:
    (xc, yc), (xb, yb) = dimension_numbers
    dt = _dot_dtype(x[1], y[1], preferred_element_type)
    if [x.shape[i] for i in xc] != [y.shape[i] for i in yc] or [x.shape[i] for i in xb] != [
        y.shape[i] for i in yb
    ]:
        raise ShapeError(
            f"dot_general contracting/batch dimensions do not match for shapes {x.shape} and "
            f"{y.shape} (dimension_numbers={dimension_numbers})"
        )
    free_x = [s for i, s in enumerate(x.shape) if i not in xc and i not in xb]
    free_y = [s for i, s in enumerate(y.shape) if i not in yc and i not in yb]
    shape = tuple([x.shape[i] for i in xb] + free_x + free_y)
    return [_make(shape, dt, x.weak_type and y.weak_type)]


def _dot_type_properties(dt: DType) -> tuple[bool, int, int, int, bool]:
    """XLA's HigherPrecisionType order, as lax.dot_general mirrors it."""
    k = dt.kind
    c = _real_dtype(dt).numpy
    floating = k in "fc"
    fi = ml_dtypes.finfo(c) if floating else None
    bits = int(fi.bits) if fi is not None else (1 if k == "b" else int(ml_dtypes.iinfo(c).bits))
    return (k == "c", int(fi.maxexp) if fi else -1, int(fi.nmant) if fi else -1, bits, k != "u")


def _dot_dtype(a: DType, b: DType, preferred: DType | None) -> DType:
    pa, pb = _dot_type_properties(a), _dot_type_properties(b)
    if pa == pb and a is not b:
        raise OperandTypeError(f"dot_general argument type error: {a}, {b}")
    result = a if pa >= pb else b
    if preferred is None or preferred is result:
        return result
    if result.kind != "f" and _dot_type_properties(preferred)[3] < _dot_type_properties(result)[3]:
        raise OperandTypeError(
            f"preferred_element_type {preferred} must not be narrower than the type of the "
            f"product, {result} (as in jax.lax.dot_general)."
        )
    return preferred


dot_general_p = _def("dot_general", _dot_general)
