"""Primitives, named after ``jax.lax``, each with its shape/dtype/weak_type rule.

A primitive is a name (``add_p = Primitive("add")``); its abstract-eval rule is
registered right below it in ``abstract_eval_rules``. Rules take input avals and
the equation's params and return the output avals, or raise a named error.

Weak types follow ``jax.lax``: elementwise results are weak only when every
operand is; shape ops keep the operand's flag; ``convert_element_type`` sets it
explicitly; iota, argmax/argmin and comparisons of strong values are strong.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np

from weaktrace.dtypes import registry
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue, Primitive, abstract_eval_rules

_BOOL = np.dtype(bool)
_make = AbstractValue.make


_KIND_OF: dict[Any, str] = {d.numpy: d.kind for d in registry.ALL if d.numpy is not None}


def kind(dtype: Any) -> str:
    """'b', 'u', 'i', 'f' or 'c' for any dtype weaktrace knows (bfloat16 is 'f')."""
    k = _KIND_OF.get(dtype)
    if k is not None:
        return k
    d = registry.from_numpy(dtype) if isinstance(dtype, np.dtype) else None
    if d is not None:
        return d.kind
    if isinstance(dtype, registry.DType):
        return dtype.kind
    return str(np.dtype(dtype).kind)


def _def(name: str, rule: Callable[..., list[AbstractValue]]) -> Primitive:
    p = Primitive(name)
    abstract_eval_rules[p] = rule
    return p


def _require(name: str, aval: AbstractValue, kinds: str, what: str) -> None:
    if kind(aval.dtype) not in kinds:
        raise OperandTypeError(
            f"{name} does not accept dtype {aval.dtype}: it needs {what}. "
            "Convert the operand first, e.g. x.astype('float32')."
        )


# Accepted dtype kinds, as jax.lax checks them.
NUMERIC = "uifc"
INEXACT = "fc"
FLOAT = "f"
INTEGER = "ui"
INT_OR_BOOL = "uib"
ANY = "buifc"
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


def _same_dtypes(name: str, avals: Sequence[AbstractValue]) -> np.dtype:
    dt = avals[0].dtype
    for a in avals[1:]:
        if a.dtype != dt:
            raise OperandTypeError(
                f"{name} requires operands of one dtype, got "
                f"{', '.join(str(a.dtype) for a in avals)}. Promote them first "
                "(weaktrace.numpy does) or convert explicitly."
            )
    return dt


def _nary(name: str, kinds: str, out_dtype: Callable[[np.dtype], Any] | None = None) -> Primitive:
    # The hot rule of every trace: a plain loop, no generators, no per-call lookups.
    accepted = frozenset(kinds)

    def rule(*avals: AbstractValue) -> list[AbstractValue]:
        first = avals[0]
        shape, dt, weak = first
        if _KIND_OF.get(dt) not in accepted:
            _require(name, first, kinds, _KIND_TEXT[kinds])
        for a in avals[1:]:
            if a[1] != dt:
                _same_dtypes(name, avals)
            s = a[0]
            if s != shape and s:  # a rank-0 operand broadcasts for free
                shape = s if not shape else broadcast_shapes(name, [x.shape for x in avals])
            weak = weak and a[2]
        return [_make(shape, dt if out_dtype is None else out_dtype(dt), weak)]

    return _def(name, rule)


def _real_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(np.finfo(dt).dtype) if kind(dt) == "c" else dt


def _bool(dt: np.dtype) -> np.dtype:
    return _BOOL


neg_p = _nary("neg", NUMERIC)
sign_p = _nary("sign", NUMERIC)
_NARROW_INTS = {"int1", "int2", "int4", "uint1", "uint2", "uint4"}


def _abs(x: AbstractValue) -> list[AbstractValue]:
    # lax.abs: signed ints, floats, complex; not unsigned, not 1/2/4-bit ints.
    if kind(x.dtype) not in "ifc" or str(x.dtype) in _NARROW_INTS:
        raise OperandTypeError(
            f"abs does not accept dtype {x.dtype}: it needs a signed integer (8 bits or "
            "more), floating or complex dtype. (weaktrace.numpy.abs returns unsigned "
            "values unchanged.)"
        )
    return [_make(x.shape, _real_dtype(x.dtype), x.weak_type)]


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
conj_p = _nary("conj", COMPLEX)

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
eq_p = _nary("eq", ANY, _bool)
ne_p = _nary("ne", ANY, _bool)
lt_p = _nary("lt", ORDERED, _bool)
le_p = _nary("le", ORDERED, _bool)
gt_p = _nary("gt", ORDERED, _bool)
ge_p = _nary("ge", ORDERED, _bool)


def _pow(x: AbstractValue, y: AbstractValue) -> list[AbstractValue]:
    # lax.pow: a floating/complex base; the exponent may be an integer of any dtype.
    _require("pow", x, INEXACT, _KIND_TEXT[INEXACT])
    _require("pow", y, NUMERIC, _KIND_TEXT[NUMERIC])
    if kind(y.dtype) in INEXACT and y.dtype != x.dtype:
        _same_dtypes("pow", [x, y])
    shape = broadcast_shapes("pow", [x.shape, y.shape])
    return [_make(shape, x.dtype, x.weak_type and y.weak_type)]


pow_p = _def("pow", _pow)


def _integer_pow(x: AbstractValue, *, y: int) -> list[AbstractValue]:
    _require("integer_pow", x, NUMERIC, _KIND_TEXT[NUMERIC])
    if kind(x.dtype) in INTEGER and y < 0:
        raise OperandTypeError(f"integer_pow of an integer dtype to the power {y} < 0")
    return [x]


integer_pow_p = _def("integer_pow", _integer_pow)


def _complex(x: AbstractValue, y: AbstractValue) -> list[AbstractValue]:
    dt = _same_dtypes("complex", [x, y])
    if dt not in (np.dtype("float32"), np.dtype("float64")):
        raise OperandTypeError(f"complex needs float32 or float64 parts, got {dt}")
    shape = broadcast_shapes("complex", [x.shape, y.shape])
    out = np.dtype("complex64") if dt == np.dtype("float32") else np.dtype("complex128")
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
    if which.dtype != _BOOL and which.dtype != np.dtype("int32"):
        raise OperandTypeError(f"select_n predicate must be bool or int32, got {which.dtype}")
    return [_make(shape, dt, all(c.weak_type for c in cases))]


select_n_p = _def("select_n", _select_n)


def _clamp(lo: AbstractValue, x: AbstractValue, hi: AbstractValue) -> list[AbstractValue]:
    _same_dtypes("clamp", [lo, x, hi])
    for b in (lo, hi):
        if b.shape not in ((), x.shape):
            raise ShapeError(f"clamp bounds must be scalars or of shape {x.shape}, got {b.shape}")
    return [x]


clamp_p = _def("clamp", _clamp)


def _convert(x: AbstractValue, *, new_dtype: np.dtype, weak_type: bool) -> list[AbstractValue]:
    return [_make(x.shape, new_dtype, weak_type)]


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
    return [_make(shape, x.dtype, x.weak_type)]


broadcast_in_dim_p = _def("broadcast_in_dim", _broadcast_in_dim)


def _reshape(x: AbstractValue, *, new_sizes: tuple[int, ...]) -> list[AbstractValue]:
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise ShapeError(
            f"cannot reshape {x.shape} ({x.size} elements) to {new_sizes}: the new shape "
            f"must hold the same {x.size} elements (one dimension may be -1)."
        )
    return [_make(new_sizes, x.dtype, x.weak_type)]


reshape_p = _def("reshape", _reshape)


def _transpose(x: AbstractValue, *, permutation: tuple[int, ...]) -> list[AbstractValue]:
    if sorted(permutation) != list(range(x.ndim)):
        raise ShapeError(f"transpose permutation {permutation} does not fit rank {x.ndim}")
    return [_make(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)]


transpose_p = _def("transpose", _transpose)


def _squeeze(x: AbstractValue, *, dimensions: tuple[int, ...]) -> list[AbstractValue]:
    if any(not 0 <= d < x.ndim or x.shape[d] != 1 for d in dimensions):
        raise ShapeError(f"cannot squeeze dimensions {dimensions} of shape {x.shape}")
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dimensions)
    return [_make(shape, x.dtype, x.weak_type)]


squeeze_p = _def("squeeze", _squeeze)


def _expand_dims(x: AbstractValue, *, dimensions: tuple[int, ...]) -> list[AbstractValue]:
    shape = list(x.shape)
    for d in sorted(dimensions):
        if not 0 <= d <= len(shape):
            raise ShapeError(f"cannot insert dimension {d} into shape {x.shape}")
        shape.insert(d, 1)
    return [_make(tuple(shape), x.dtype, x.weak_type)]


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
    return [_make(shape, x.dtype, x.weak_type)]


slice_p = _def("slice", _slice)


def _rev(x: AbstractValue, *, dimensions: tuple[int, ...]) -> list[AbstractValue]:
    if any(not 0 <= d < x.ndim for d in dimensions):
        raise ShapeError(f"rev dimensions {dimensions} do not fit shape {x.shape}")
    return [x]


rev_p = _def("rev", _rev)


def _dynamic_slice(
    x: AbstractValue, *starts: AbstractValue, slice_sizes: tuple[int, ...]
) -> list[AbstractValue]:
    if len(starts) != x.ndim or len(slice_sizes) != x.ndim:
        raise ShapeError(f"dynamic_slice needs {x.ndim} start indices and sizes")
    for s in starts:
        if s.shape != () or kind(s.dtype) not in INTEGER:
            raise OperandTypeError(f"dynamic_slice start indices must be integer scalars, got {s}")
    if any(not 0 <= z <= n for z, n in zip(slice_sizes, x.shape, strict=True)):
        raise ShapeError(f"dynamic_slice sizes {slice_sizes} do not fit shape {x.shape}")
    return [_make(tuple(slice_sizes), x.dtype, x.weak_type)]


dynamic_slice_p = _def("dynamic_slice", _dynamic_slice)


def _gather(x: AbstractValue, indices: AbstractValue, *, axis: int) -> list[AbstractValue]:
    """Integer-array indexing along one axis (``jnp.take`` with mode="fill" semantics)."""
    if kind(indices.dtype) not in INTEGER:
        raise OperandTypeError(f"gather indices must be integers, got {indices.dtype}")
    if not 0 <= axis < x.ndim:
        raise ShapeError(f"gather axis {axis} out of range for shape {x.shape}")
    shape = x.shape[:axis] + indices.shape + x.shape[axis + 1 :]
    return [_make(shape, x.dtype, x.weak_type)]


gather_p = _def("gather", _gather)


def _iota(*, dtype: np.dtype, shape: tuple[int, ...], dimension: int) -> list[AbstractValue]:
    if not 0 <= dimension < max(len(shape), 1):
        raise ShapeError(f"iota dimension {dimension} out of range for shape {shape}")
    return [_make(shape, dtype, False)]


iota_p = _def("iota", _iota)

# -- reductions and contractions -------------------------------------------------


def _reduced(x: AbstractValue, axes: tuple[int, ...]) -> tuple[int, ...]:
    if any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
        raise ShapeError(f"reduction axes {axes} do not fit shape {x.shape}")
    return tuple(s for i, s in enumerate(x.shape) if i not in axes)


def _reduce(name: str, kinds: str) -> Primitive:
    def rule(x: AbstractValue, *, axes: tuple[int, ...]) -> list[AbstractValue]:
        _require(name, x, kinds, _KIND_TEXT[kinds])
        return [_make(_reduced(x, axes), x.dtype, x.weak_type)]

    return _def(name, rule)


reduce_sum_p = _reduce("reduce_sum", NUMERIC)
reduce_prod_p = _reduce("reduce_prod", NUMERIC)
reduce_max_p = _reduce("reduce_max", ANY)
reduce_min_p = _reduce("reduce_min", ANY)
reduce_and_p = _reduce("reduce_and", INT_OR_BOOL)
reduce_or_p = _reduce("reduce_or", INT_OR_BOOL)


def _arg_reduce(name: str) -> Primitive:
    def rule(
        x: AbstractValue, *, axes: tuple[int, ...], index_dtype: np.dtype
    ) -> list[AbstractValue]:
        if len(axes) != 1:
            raise ShapeError(f"{name} reduces exactly one axis, got {axes}")
        return [_make(_reduced(x, axes), index_dtype, False)]

    return _def(name, rule)


argmax_p = _arg_reduce("argmax")
argmin_p = _arg_reduce("argmin")


def _dot_general(
    x: AbstractValue,
    y: AbstractValue,
    *,
    dimension_numbers: tuple[
        tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]
    ],
    preferred_element_type: np.dtype | None,
) -> list[AbstractValue]:
    (xc, yc), (xb, yb) = dimension_numbers
    dt = _dot_dtype(x.dtype, y.dtype, preferred_element_type)
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


def _dot_type_properties(dt: np.dtype) -> tuple[bool, int, int, int, bool]:
    """XLA's HigherPrecisionType order, as lax.dot_general mirrors it."""
    k = kind(dt)
    c = _real_dtype(dt)
    floating = k in "fc"
    fi = ml_dtypes.finfo(c) if floating else None
    bits = int(fi.bits) if fi is not None else (1 if k == "b" else int(ml_dtypes.iinfo(c).bits))
    return (k == "c", int(fi.maxexp) if fi else -1, int(fi.nmant) if fi else -1, bits, k != "u")


def _dot_dtype(a: np.dtype, b: np.dtype, preferred: np.dtype | None) -> np.dtype:
    pa, pb = _dot_type_properties(a), _dot_type_properties(b)
    if pa == pb and a != b:
        raise OperandTypeError(f"dot_general argument type error: {a}, {b}")
    result = a if pa >= pb else b
    if preferred is None or preferred == result:
        return result
    if kind(result) != "f" and _dot_type_properties(preferred)[3] < _dot_type_properties(result)[3]:
        raise OperandTypeError(
            f"preferred_element_type {preferred} must not be narrower than the type of the "
            f"product, {result} (as in jax.lax.dot_general)."
        )
    return preferred


dot_general_p = _def("dot_general", _dot_general)
