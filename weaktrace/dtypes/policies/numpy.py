"""NumPy 2 (NEP 50): weak Python scalars, 0-d arrays like N-d, value-based
OverflowError for Python ints. The dtype each ufunc computes in is numpy's own
answer (``ufunc.resolve_dtypes``), so it cannot drift from numpy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from weaktrace.dtypes import registry
from weaktrace.dtypes.policies.base import DEFAULTS_X64, Aval, Policy, _spec
from weaktrace.dtypes.registry import DType
from weaktrace.errors import TypePromotionError

# weaktrace.numpy names that are numpy ufuncs under another name.
_UFUNC_ALIASES = {"divide": "true_divide", "mod": "remainder", "pow": "power",
                  "conj": "conjugate", "round": "rint", "bitwise_not": "invert",
                  "abs": "absolute"}  # fmt: skip
# numpy functions that run ufuncs (so check Python ints as ufuncs do).
_UFUNC_BASED = {"clip"}
# A Python scalar standing for a weak operand of each kind (NEP 50 looks at the kind).
_WEAK_VALUE = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}
_WEAK_TYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


class NumpyPolicy(Policy):
    """NumPy 2 (NEP 50)."""

    name = "numpy"
    literal_overflow = "raise"
    clip_drops_unreachable_int_bounds = True
    int_division_by_zero_is_zero = True
    cumulative_promotes_integers = True
    numpy_ufunc_methods = True
    asarray_operands_strong = True
    numpy_complex_order = True
    numpy_power = True
    ieee_exact_lowering = True
    scalar_subclasses_weak = False  # NEP 50: only exact int/float/complex are weak
    # numpy's own loops decide even for operands of one dtype (bool ** bool is int8;
    # two Python scalars give a strong array, numpy having no weak arrays).
    same_needs_no_join = False
    defaults = DEFAULTS_X64

    def __init__(self) -> None:
        self._cache: dict[tuple[Any, ...], tuple[DType, bool]] = {}

    def overflow(self, op: str, position: int = 0) -> str:
        ufunc = getattr(np, _UFUNC_ALIASES.get(op, op), None)
        return "raise" if isinstance(ufunc, np.ufunc) or op in _UFUNC_BASED else "wrap"

    def promote_types(self, a: Any, b: Any) -> Any:
        try:
            return np.promote_types(registry.to_numpy(_spec(a)), registry.to_numpy(_spec(b)))
        except (TypeError, ValueError) as err:
            raise TypePromotionError(f"numpy cannot promote {a!r} and {b!r}: {err}") from None

    def join(self, avals: Sequence[Aval]) -> tuple[DType, bool]:
        key = ("join", *[(a[1], a[2]) for a in avals])
        hit = self._cache.get(key)
        if hit is None:
            values = [_WEAK_VALUE[a[1].kind] if a[2] else a[1].numpy for a in avals]
            try:
                hit = (registry.of(np.result_type(*values)), False)
            except (TypeError, ValueError) as err:  # DTypePromotionError is a TypeError
                raise TypePromotionError(
                    f"numpy cannot promote {', '.join(str(a[1]) for a in avals)}: {err}. "
                    "Cast explicitly to the dtype you want."
                ) from None
            self._cache[key] = hit
        return hit

    def promote(self, op: str, avals: Sequence[Aval], target: str | None) -> tuple[DType, bool]:
        ufunc = getattr(np, _UFUNC_ALIASES.get(op, op), None)
        if not isinstance(ufunc, np.ufunc) or ufunc.nin != len(avals):
            return super().promote(op, avals, target)
        key = (op, *[(a[1], a[2]) for a in avals])
        hit = self._cache.get(key)
        if hit is None:
            operands = [_WEAK_TYPE[a[1].kind] if a[2] else a[1].numpy for a in avals]
            try:
                dts = ufunc.resolve_dtypes((*operands, *([None] * ufunc.nout)))
                if dts[0].kind == "O":
                    # np.less(1, 2): numpy's loop for two weak ints is object's; it
                    # converts ints that fit int64 to int64 (the others are objects,
                    # which no XLA dtype holds).
                    concrete = [a[1].numpy for a in avals]
                    dts = ufunc.resolve_dtypes((*concrete, *([None] * ufunc.nout)))
            except (TypeError, ValueError) as err:
                raise TypePromotionError(
                    f"numpy's {op} has no loop for {', '.join(str(a[1]) for a in avals)}: "
                    f"{err}. Cast explicitly first."
                ) from None
            if len(set(dts[: ufunc.nin])) > 1:
                # A mixed loop (numpy 2 compares uint64 with int64 exactly); XLA computes
                # in one dtype, so use numpy's common type (exact for all but huge values).
                return self.join(avals)
            hit = self._cache[key] = (registry.of(dts[0]), False)
        return hit

    def result_type(self, *args: Any, return_weak_type_flag: bool = False) -> Any:
        """np.result_type: a lone Python int is converted by its value (2**63 is
        uint64; beyond uint64 numpy picks object, which weaktrace refuses)."""
        if len(args) == 1 and args[0].__class__ is int:
            out = np.result_type(args[0])
            if out.kind == "O":
                raise TypePromotionError(
                    f"numpy gives Python int {args[0]} dtype object (it fits no integer "
                    "dtype); weaktrace has no object dtype. Use a float."
                )
            return (out, False) if return_weak_type_flag else out
        return super().result_type(*args, return_weak_type_flag=return_weak_type_flag)

    def user_dtype(self, spec: Any) -> DType:
        return spec if spec.__class__ is DType else registry.of(np.dtype(spec))

    def fft_real_result(self, operand: DType, computed: DType) -> DType:
        """NumPy 2 casts a one-axis real transform (irfft, hfft) of float16 values back to
        float16 (its n-axis ones start with a complex ifft, so give float32)."""
        return operand if operand.name == "float16" else computed
