"""PyTorch's TensorIterator rule (aten ResultTypeState, seed 000): dimensioned
tensors, 0-dim tensors and wrapped numbers (Python scalars) are joined separately;
the higher category wins; a wrapped float takes the default float dtype."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from weaktrace.dtypes import registry
from weaktrace.dtypes.policies.base import DEFAULTS_X64, Aval, Policy, _spec, int_bounds
from weaktrace.dtypes.registry import DType
from weaktrace.errors import (
    ArgumentOverflowError,
    KernelDtypeError,
    OperandTypeError,
    PolicyError,
    TypePromotionError,
)

_D = registry.by_name
_TORCH_DEFAULTS = {**DEFAULTS_X64, "u": _D("int64"), "f": _D("float32"), "c": _D("complex64")}
_INTS = ["uint8", "int8", "int16", "int32", "int64"]
# c10's "barebones" unsigned types: they promote only with themselves and real floats
# (the sub-byte shells uint1..uint7 among them, with the dtypes ml_dtypes names).
_BIG_UINTS = {"uint16", "uint32", "uint64", "uint1", "uint2", "uint4"}
# c10::promoteTypes' table: every other dtype (the int1..int7 shells, and dtypes torch
# lacks) promotes with nothing but itself.
_TABLE = {"bool", *_INTS, "float16", "bfloat16", "float32", "float64", "complex32",
          "complex64", "complex128"}  # fmt: skip
_F8 = {"float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"}
_COMPLEX_PART = {"complex32": "float16", "complex64": "float32", "complex128": "float64"}
_COMPLEX_OF = {"float16": "complex32", "float32": "complex64", "float64": "complex128"}
_TO_COMPLEX = {**_COMPLEX_OF, "bfloat16": "complex64"}  # c10::toComplexType
_TORCH_NAMES = {  # torch's own spelling, for its error messages
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
    "float64": "Double", "complex32": "ComplexHalf", "complex64": "ComplexFloat",
    "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
    "float8_e4m3fn": "Float8_e4m3fn", "float8_e5m2": "Float8_e5m2",
    "float8_e4m3fnuz": "Float8_e4m3fnuz", "float8_e5m2fnuz": "Float8_e5m2fnuz",
    "float8_e8m0fnu": "Float8_e8m0fnu", "uint1": "UInt1", "uint2": "UInt2", "uint4": "UInt4",
    "int1": "Int1", "int2": "Int2", "int4": "Int4",
}  # fmt: skip
_CHECKED_SCALAR_OPS = {"where"}
# Operations PyTorch has no kernel for, by (jax.numpy name, operand kind).
_UNSUPPORTED = {
    ("subtract", "b"): "Subtraction, the `-` operator, with a bool tensor is not supported (as "
    "in PyTorch). To invert a mask use logical_not; otherwise cast first.",
    ("negative", "b"): "Negation, the `-` operator, on a bool tensor is not supported (as in "
    "PyTorch). Use logical_not instead.",
    ("absolute", "b"): "\"abs_cpu\" not implemented for 'Bool' (as in PyTorch); cast first",
    **{
        ("imag", k): "imag is not implemented for arrays of non-complex dtypes (as in PyTorch);"
        " a real array has no imaginary part to view. Use zeros_like(x) if you mean zeros."
        for k in "buif"
    },
}
# PyTorch has no order on complex values: comparisons and maximum/minimum refuse them.
_UNSUPPORTED.update(
    ((op, "c"), f"{op} is not supported for complex values (as in PyTorch: complex numbers "
     "have no order). Compare the real parts or the absolute values instead.")
    for op in ("less", "less_equal", "greater", "greater_equal", "maximum", "minimum")
)  # fmt: skip


# torch.linalg functions that take floating point or complex tensors only (weaktrace's
# promote names of the jnp.linalg functions that compute on them).
_LINALG_INEXACT_ONLY = frozenset(("cholesky", "qr", "eigh", "eig", "eigvals", "svd", "slogdet",
                                  "det", "solve", "inv", "pinv", "norm", "matrix_rank",
                                  "lstsq"))  # fmt: skip


def torch_name(name: str) -> str:
    return _TORCH_NAMES.get(name, name)


def promote_names(a: str, b: str) -> str:
    """``c10::promoteTypes`` on dtype names (c10/core/ScalarType.cpp), as a rule:
    bool < integers < floating < complex; within a category the wider type; uint8
    with a signed int needs a signed type; float16 with bfloat16 meets at float32."""
    if a == b:
        return a
    if "K" in (_D(a).kind, _D(b).kind):  # PRNG key dtypes belong to no lattice
        raise TypePromotionError(f"{a} and {b} do not promote: a PRNG key is not a number.")
    if a in _F8 or b in _F8:
        raise TypePromotionError(
            f"Promotion for Float8 Types is not supported, attempted to promote "
            f"{torch_name(a)} and {torch_name(b)} (as in PyTorch). Cast explicitly, e.g. "
            "x.astype('float32')."
        )
    order = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    ka, kb = _D(a).kind, _D(b).kind
    if a in _BIG_UINTS or b in _BIG_UINTS:
        if ka == "f" or kb == "f":  # a real float absorbs them (c10 checks float8 first)
            return a if ka == "f" else b
        raise TypePromotionError(
            f"Promotion for uint16, uint32, uint64 types is not supported, attempted to "
            f"promote {torch_name(a)} and {torch_name(b)} (as in PyTorch). Cast explicitly "
            "to the dtype you want."
        )
    if a not in _TABLE or b not in _TABLE:
        odd = a if a not in _TABLE else b
        raise TypePromotionError(
            f"{torch_name(odd)} promotes with no other dtype in PyTorch (it is not in "
            f"c10::promoteTypes' table); attempted to promote {torch_name(a)} and "
            f"{torch_name(b)}. Cast explicitly to the dtype you want."
        )
    if order[ka] != order[kb]:
        low, high = (a, b) if order[ka] < order[kb] else (b, a)
        if _D(high).kind == "c" and _D(low).kind == "f":
            return _COMPLEX_OF[promote_names(low, _COMPLEX_PART[high])]
        return high
    if ka == "b":
        return a
    if order[ka] == 1:
        wide = max(_INTS.index(a), _INTS.index(b))
        if "uint8" in (a, b) and wide == _INTS.index("int8"):
            return "int16"
        return _INTS[wide]
    if ka == "f":
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return max(a, b, key=lambda n: (_D(n).bits, n == "float32"))
    return _COMPLEX_OF[promote_names(_COMPLEX_PART[a], _COMPLEX_PART[b])]


class TorchPolicy(Policy):
    """PyTorch: categories of dimensioned / 0-dim / wrapped number (seed 000)."""

    name = "torch"
    same_needs_no_join = False  # a wrapped float takes the default float dtype
    bool_sign = True
    int_pow_full_exponent = True
    cumulative_promotes_integers = True
    asarray_operands_strong = True  # torch.asarray(3.0): a 0-dim tensor, not a wrapped number
    pow_checked_exponent_dtypes = frozenset({"float16", "bfloat16"})
    # c10's float8 conversions: float8_e4m3fn saturates (1000 -> 448), float8_e8m0fnu
    # drops the sign and maps zero to 2**-127; XLA gives NaN for both
    roundings: ClassVar[Mapping[DType, str]] = {
        _D("float8_e4m3fn"): "saturate",
        _D("float8_e8m0fnu"): "magnitude",
    }

    def __init__(self, default_float: str = "float32") -> None:
        if default_float not in ("float32", "float64"):
            raise PolicyError("policy('torch', default_float=...) must be float32 or float64")
        cplx = "complex64" if default_float == "float32" else "complex128"
        self.defaults = {**_TORCH_DEFAULTS, "f": _D(default_float), "c": _D(cplx)}
        self._cache: dict[tuple[Any, ...], tuple[DType, bool]] = {}

    def overflow(self, op: str, position: int = 0) -> str:
        # where's operands and pow's exponent take a Python number through a checked
        # c10::Scalar conversion to the result dtype ("value cannot be converted to type
        # int8_t without overflow"); the other ops wrap it (int8_tensor + 1000), and so
        # does pow's base (torch.pow(1000, int8_tensor)).
        if op == "power":
            return "raise" if position == 1 else "wrap"
        return "raise" if op in _CHECKED_SCALAR_OPS else "wrap"

    def check_python_int(self, value: int) -> None:
        if not -(2**63) <= value < 2**64:  # c10::Scalar holds an int64 or a uint64
            raise ArgumentOverflowError(
                f"Python int {value} is beyond what PyTorch takes as a number (an int64 or a "
                "uint64: -2**63 <= n < 2**64); it raises OverflowError too. Use a float."
            )

    def python_int(self, value: int) -> tuple[DType, bool]:
        self.check_python_int(value)  # beyond int64: a uint64 wrapped number
        return (_D("uint64"), True) if value > 0 else self.scalar(int)

    def int_range(self, dt: DType) -> tuple[int, int]:
        lo, hi = int_bounds(dt)  # c10::overflows lets -max..-1 wrap into unsigned types
        return (-hi, hi) if dt.kind == "u" else (lo, hi)

    def scalar(self, cls: type) -> tuple[DType, bool]:
        return self.defaults[{bool: "b", int: "i", float: "f", complex: "c"}[cls]], True

    def promote_types(self, a: Any, b: Any) -> Any:
        return registry.to_numpy(_D(promote_names(_spec(a).name, _spec(b).name)))

    def join(self, avals: Sequence[Aval]) -> tuple[DType, bool]:
        key = tuple((a[1], a[2], not a[0]) for a in avals)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._result_type(key)
        return hit

    def _result_type(self, key: tuple[tuple[DType, bool, bool], ...]) -> tuple[DType, bool]:
        dim = zero = wrapped = None
        for dt, weak, zero_dim in key:
            name = dt.name
            if weak:
                if dt.kind in "fc":  # a wrapped float/complex takes the default dtype
                    name = self.defaults[dt.kind].name
                wrapped = name if wrapped is None else promote_names(wrapped, name)
            elif zero_dim:
                zero = name if zero is None else promote_names(zero, name)
            else:
                dim = name if dim is None else promote_names(dim, name)
        out = _combine(dim, _combine(zero, wrapped))
        assert out is not None, "torch result type of no operands"
        return _D(out), all(w for _, w, _ in key)

    def to_target(self, dt: DType, target: str) -> DType:
        if target == "complex" and dt.kind == "f":
            return _D(_COMPLEX_OF.get(dt.name, "complex64"))
        return super().to_target(dt, target)

    def refuse(self, op: str, avals: Sequence[Aval]) -> None:
        for a in avals:
            message = _UNSUPPORTED.get((op, a[1].kind))
            if message is not None:
                raise OperandTypeError(message)
            if op in _LINALG_INEXACT_ONLY and a[1].kind in "bui":
                raise OperandTypeError(
                    f"linalg.{op}: Expected a floating point or complex tensor as input. Got "
                    f"{torch_name(a[1].name)} (as in PyTorch, which does not promote integer "
                    "matrices). Convert first, e.g. x.astype('float32')."
                )

    def promote(self, op: str, avals: Sequence[Aval], target: str | None) -> tuple[DType, bool]:
        self.refuse(op, avals)
        if op == "power" and target == "numeric":
            dt, weak = self.join(avals)
            if dt.kind == "b":  # bool ** True is bool: torch's pow keeps a bool base
                return dt, weak
            return self.to_target(dt, target), weak
        return super().promote(op, avals, target)

    def accumulate(self, dt: DType) -> DType:
        return _D("int64") if dt.kind in "bui" else dt

    def mean(self, dt: DType) -> DType:
        if dt.kind in "bui":
            raise OperandTypeError(
                f"mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {torch_name(dt.name)} (as in PyTorch). Convert "
                "first, e.g. x.astype('float32').mean()."
            )
        return dt

    def fft_dtype(self, dt: DType) -> DType:
        if dt.name in ("float16", "bfloat16"):
            raise KernelDtypeError(
                f"torch.fft on CPU: Unsupported dtype {torch_name(dt.name)} (as in PyTorch; "
                "its half-precision transforms are CUDA-only). Convert to float32 first."
            )
        return super().fft_dtype(dt)

    def mean_dtype(self, dt: DType) -> DType:
        if dt.kind in "bui":
            raise OperandTypeError(
                f"mean(): could not infer output dtype. Optional dtype must be either a "
                f"floating point or complex dtype. Got: {torch_name(dt.name)} (as in PyTorch)."
                " Ask for a float dtype and round the result if you need integers."
            )
        return dt

    def logical_reduction(self, dt: DType) -> DType:
        return dt if dt.name == "uint8" else _D("bool")  # torch keeps uint8 (legacy)

    def lowering_dtype(self, dt: DType) -> DType:
        return _D("complex64") if dt.name == "complex32" else dt


def _is_float(name: str | None) -> bool:
    return name is not None and _D(name).kind == "f"


def _is_complex(name: str | None) -> bool:
    return name is not None and _D(name).kind == "c"


def _combine(higher: str | None, lower: str | None) -> str | None:
    """aten's combine_categories(higher, lower)."""
    if _is_complex(higher):
        return higher
    if _is_complex(lower):
        if _is_float(higher):  # keep the value type of the floating operand
            if higher not in _TO_COMPLEX:
                raise TypePromotionError(
                    f"Unknown Complex ScalarType for {torch_name(str(higher))} (as in PyTorch: "
                    "a complex value cannot join it). Cast explicitly first."
                )
            return _TO_COMPLEX[higher]
        return lower
    if _is_float(higher):
        return higher
    if higher == "bool" or _is_float(lower):
        return lower if higher is None else promote_names(higher, lower) if lower else higher
    return higher if higher is not None else lower
