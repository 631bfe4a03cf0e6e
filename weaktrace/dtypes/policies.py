"""Promotion policies beyond JAX: NumPy 2, PyTorch, MAX, and user-defined lattices.

Each policy has the public face of `Policy` (promote_types, result_type, lattice,
table) and a `trace_rules()` object that a trace consults per operation: the dtype an
operation computes in, how Python scalars enter, accumulation dtypes, and what a
Python int that does not fit its dtype does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from weaktrace.dtypes import registry
from weaktrace.dtypes.lattice import Lattice
from weaktrace.dtypes.policy import Policy, register_policy
from weaktrace.errors import InvalidDTypeError, OperandTypeError, PolicyError, TypePromotionError

_BOOL = np.dtype(bool)
_PY_KIND = {bool: "b", int: "i", float: "f", complex: "c"}


def _kind(dt: Any) -> str:
    d = dt if isinstance(dt, registry.DType) else registry.from_numpy(np.dtype(dt))
    if d is None:
        raise InvalidDTypeError(f"{dt} is not a dtype weaktrace knows")
    return d.kind


class _Rules:
    """What every policy's trace rules share: defaults, scalar entry, user dtypes."""

    name = "policy"
    x64 = True  # NumPy, PyTorch and MAX all have 64-bit types by default
    strict = False
    int_overflow = "wrap"  # or "raise" (NumPy's OverflowError)
    weak_results = False  # no weakly typed arrays outside JAX
    checks_ops = False  # True: every operation asks promote() (it may reject operands)
    defaults: dict[str, Any]

    def python_scalar_dtype(self, cls: type) -> Any:
        return self.defaults[_PY_KIND[cls]]

    def python_scalar(self, cls: type) -> tuple[Any, bool]:
        """(dtype, weak) a Python scalar enters with."""
        return self.python_scalar_dtype(cls), cls is not bool

    def canonical_value_dtype(self, dt: np.dtype) -> np.dtype:
        return dt  # numpy and torch keep 64-bit arrays as they are

    def promote(self, fn: str, avals: Any, target: str | None) -> tuple[Any, bool]:
        dt, weak = self.join(avals)
        return (self.target(dt, target), weak) if target else (dt, weak)

    def result(self, avals: Any) -> tuple[Any, bool]:
        return self.join(avals)

    def join(self, avals: Any) -> tuple[Any, bool]:  # pragma: no cover - abstract
        raise NotImplementedError

    def target(self, dt: Any, target: str) -> Any:
        k = _kind(dt)
        if target == "inexact" and k in "bui":
            return self.defaults["f"]
        if target == "numeric" and k == "b":
            return self.defaults["i"]
        if target == "complex" and k != "c":
            return self.defaults["c"]
        return dt

    def sum_dtype(self, dt: Any) -> Any:
        k = _kind(dt)
        return self.defaults["u" if k == "u" else "i"] if k in "bui" else dt

    def mean_dtype(self, dt: Any) -> Any:
        return self.defaults["f"] if _kind(dt) in "bui" else dt

    def values_dtype(self, values: Any) -> Any:
        kinds = {_PY_KIND.get(type(v), "x") for v in values}
        for k in "cfib":
            if k in kinds:
                return self.defaults[k]
        return np.asarray(values).dtype

    def user_dtype(self, dtype: Any) -> Any:
        if isinstance(dtype, type) and dtype in _PY_KIND:
            return self.defaults[_PY_KIND[dtype]]
        return registry.as_dtype(dtype).numpy or registry.as_dtype(dtype)

    def lowering_dtype(self, dt: Any) -> Any:
        """The dtype XLA computes `dt` in (identity, except for dtypes XLA lacks)."""
        return dt


# -- NumPy 2 (NEP 50) -------------------------------------------------------------------

_NP_DEFAULTS = {
    "b": _BOOL, "i": np.dtype("int64"), "u": np.dtype("uint64"),
    "f": np.dtype("float64"), "c": np.dtype("complex128"),
}  # fmt: skip
# Our function names that are numpy ufuncs under another name.
_UFUNC_ALIASES = {"divide": "true_divide", "mod": "remainder", "pow": "power",
                  "absolute": "absolute", "conj": "conjugate", "round": "rint",
                  "invert": "invert", "bitwise_not": "invert"}  # fmt: skip
_PY_FOR_WEAK = {"i": int, "u": int, "f": float, "c": complex, "b": bool}


class NumpyRules(_Rules):
    """NumPy 2 semantics: NEP 50 weak Python scalars, 0-d arrays like N-d, value-based
    OverflowError for Python ints. The dtype each ufunc computes in is numpy's own
    answer (``ufunc.resolve_dtypes``), so it cannot drift from numpy."""

    name = "numpy"
    int_overflow = "raise"
    defaults = _NP_DEFAULTS

    def __init__(self) -> None:
        self._cache: dict[tuple[Any, ...], tuple[Any, bool]] = {}

    def python_scalar(self, cls: type) -> tuple[Any, bool]:
        return self.defaults[_PY_KIND[cls]], cls is not bool

    def _operands(self, avals: Any) -> list[Any]:
        """numpy's view of operands: a dtype, or the Python type of a weak scalar."""
        return [_PY_FOR_WEAK[_kind(a[1])] if a[2] else a[1] for a in avals]

    def join(self, avals: Any) -> tuple[Any, bool]:
        key = ("join", *[(a[1], a[2]) for a in avals])
        hit = self._cache.get(key)
        if hit is None:
            values = [_weak_value(a[1]) if a[2] else a[1] for a in avals]
            try:
                hit = (np.result_type(*values), False)
            except (TypeError, ValueError) as err:  # DTypePromotionError is a TypeError
                raise TypePromotionError(
                    f"numpy cannot promote {', '.join(str(a[1]) for a in avals)}: {err}. "
                    "Cast explicitly to the dtype you want."
                ) from None
            self._cache[key] = hit
        return hit

    def promote(self, fn: str, avals: Any, target: str | None) -> tuple[Any, bool]:
        ufunc = getattr(np, _UFUNC_ALIASES.get(fn, fn), None)
        if not isinstance(ufunc, np.ufunc) or ufunc.nin != len(avals):
            return super().promote(fn, avals, target)
        key = (fn, *[(a[1], a[2]) for a in avals])
        hit = self._cache.get(key)
        if hit is None:
            try:
                dts = ufunc.resolve_dtypes((*self._operands(avals), *([None] * ufunc.nout)))
            except (TypeError, ValueError) as err:
                raise TypePromotionError(
                    f"numpy's {fn} has no loop for {', '.join(str(a[1]) for a in avals)}: "
                    f"{err}. Cast explicitly first."
                ) from None
            hit = self._cache[key] = (dts[0], False)
        return hit

    def user_dtype(self, dtype: Any) -> Any:
        return np.dtype(dtype)

    def mean_dtype(self, dt: Any) -> Any:
        return np.dtype("float64") if _kind(dt) in "bui" else dt


def _weak_value(dt: Any) -> Any:
    """A Python scalar standing for a weak operand (NEP 50 treats it by kind)."""
    return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[_kind(dt)]


# -- PyTorch --------------------------------------------------------------------------

_TORCH_DEFAULTS = {
    "b": _BOOL, "i": np.dtype("int64"), "u": np.dtype("int64"),
    "f": np.dtype("float32"), "c": np.dtype("complex64"),
}  # fmt: skip
_TORCH_INTS = ["uint8", "int8", "int16", "int32", "int64"]
_TORCH_BIG_UINTS = {"uint16", "uint32", "uint64"}
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
    "float8_e8m0fnu": "Float8_e8m0fnu",
}  # fmt: skip


def torch_promote_names(a: str, b: str) -> str:
    """``c10::promoteTypes`` on dtype names (c10/core/ScalarType.cpp), as a rule:
    bool < integers < floating < complex; within a category the wider type; uint8
    with a signed int needs a signed type; float16 with bfloat16 meets at float32."""
    if a == b:
        return a
    if a in _F8 or b in _F8:
        raise TypePromotionError(
            f"Promotion for Float8 Types is not supported, attempted to promote "
            f"{_TORCH_NAMES.get(a, a)} and {_TORCH_NAMES.get(b, b)} (as in PyTorch). Cast "
            "explicitly, e.g. x.astype('float32')."
        )
    order = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    ka, kb = registry.by_name(a).kind, registry.by_name(b).kind
    big = a in _TORCH_BIG_UINTS or b in _TORCH_BIG_UINTS
    if big and "f" not in (ka, kb):  # only a real floating type promotes with them
        raise TypePromotionError(
            f"Promotion for uint16, uint32, uint64 types is not supported, attempted to "
            f"promote {_TORCH_NAMES.get(a, a)} and {_TORCH_NAMES.get(b, b)} (as in PyTorch). "
            "Cast explicitly to the dtype you want."
        )
    if order[ka] != order[kb]:
        low, high = (a, b) if order[ka] < order[kb] else (b, a)
        if registry.by_name(high).kind == "c" and registry.by_name(low).kind == "f":
            return _COMPLEX_OF[torch_promote_names(low, _COMPLEX_PART[high])]
        return high
    if ka == "b":
        return a
    if order[ka] == 1:
        ia, ib = _TORCH_INTS.index(a), _TORCH_INTS.index(b)
        wide = max(ia, ib)
        if "uint8" in (a, b) and wide == _TORCH_INTS.index("int8"):
            return "int16"
        return _TORCH_INTS[wide]
    if ka == "f":
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return max(a, b, key=lambda n: (registry.by_name(n).bits, n == "float32"))
    return _COMPLEX_OF[torch_promote_names(_COMPLEX_PART[a], _COMPLEX_PART[b])]


def _name(dt: Any) -> str:
    return dt.name if isinstance(dt, registry.DType) else registry.from_numpy(np.dtype(dt)).name  # type: ignore[union-attr]


def _np(name: str) -> Any:
    d = registry.by_name(name)
    return d.numpy if d.numpy is not None else d


class TorchRules(_Rules):
    """PyTorch's TensorIterator rule (aten ResultTypeState, seed 000): dimensioned
    tensors, 0-dim tensors and wrapped numbers (Python scalars) are joined separately;
    the higher category wins; a wrapped float takes the default float dtype."""

    name = "torch"
    defaults = _TORCH_DEFAULTS
    checks_ops = True

    def __init__(self, default_float: str = "float32") -> None:
        if default_float not in ("float32", "float64"):
            raise PolicyError("policy('torch', default_float=...) must be float32 or float64")
        cplx = "complex64" if default_float == "float32" else "complex128"
        self.defaults = {**_TORCH_DEFAULTS, "f": np.dtype(default_float), "c": np.dtype(cplx)}
        self._cache: dict[tuple[Any, ...], tuple[Any, bool]] = {}

    def python_scalar(self, cls: type) -> tuple[Any, bool]:
        return self.defaults[_PY_KIND[cls]], True  # bools are wrapped numbers too

    def join(self, avals: Any) -> tuple[Any, bool]:
        key = tuple((a[1], a[2], not a[0]) for a in avals)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._result_type(key)
        return hit

    def _result_type(self, key: tuple[tuple[Any, bool, bool], ...]) -> tuple[Any, bool]:
        dim = zero = wrapped = None
        for dt, weak, zero_dim in key:
            name = _name(dt)
            if weak:
                kind = registry.by_name(name).kind
                if kind in "fc":  # a wrapped float/complex takes the default dtype
                    name = _name(self.defaults[kind])
                wrapped = name if wrapped is None else torch_promote_names(wrapped, name)
            elif zero_dim:
                zero = name if zero is None else torch_promote_names(zero, name)
            else:
                dim = name if dim is None else torch_promote_names(dim, name)
        out = _combine(dim, _combine(zero, wrapped))
        assert out is not None, "torch result type of no operands"
        return _np(out), all(w for _, w, _ in key)

    def target(self, dt: Any, target: str) -> Any:
        k = _kind(dt)
        if target == "complex" and k == "f":
            return _np(_COMPLEX_OF.get(_name(dt), "complex64"))
        return super().target(dt, target)

    def promote(self, fn: str, avals: Any, target: str | None) -> tuple[Any, bool]:
        if fn in ("subtract", "negative") and any(_kind(a[1]) == "b" for a in avals):
            raise OperandTypeError(
                "Subtraction, the `-` operator, with a bool tensor is not supported (as in "
                "PyTorch). To invert a mask use logical_not; otherwise cast first."
            )
        if fn == "absolute" and _kind(avals[0][1]) == "b":
            raise OperandTypeError(
                "\"abs_cpu\" not implemented for 'Bool' (as in PyTorch); cast first"
            )
        return super().promote(fn, avals, target)

    def sum_dtype(self, dt: Any) -> Any:
        return np.dtype("int64") if _kind(dt) in "bui" else dt

    def mean_dtype(self, dt: Any) -> Any:
        if _kind(dt) in "bui":
            raise OperandTypeError(
                f"mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {_TORCH_NAMES.get(_name(dt), dt)} (as in "
                "PyTorch). Convert first, e.g. x.astype('float32').mean()."
            )
        return dt

    def lowering_dtype(self, dt: Any) -> Any:
        return np.dtype("complex64") if _name(dt) == "complex32" else dt


def _is_float(name: str | None) -> bool:
    return name is not None and registry.by_name(name).kind == "f"


def _is_complex(name: str | None) -> bool:
    return name is not None and registry.by_name(name).kind == "c"


def _combine(higher: str | None, lower: str | None) -> str | None:
    """aten's combine_categories(higher, lower)."""
    if _is_complex(higher):
        return higher
    if _is_complex(lower):
        if _is_float(higher):  # keep the value type of the floating operand
            if higher not in _TO_COMPLEX:
                raise TypePromotionError(
                    f"Unknown Complex ScalarType for {_TORCH_NAMES.get(higher, higher)} (as in "  # type: ignore[arg-type]
                    "PyTorch: a complex value cannot join it). Cast explicitly first."
                )
            return _TO_COMPLEX[higher]
        return lower
    if _is_float(higher):
        return higher
    if higher == "bool" or _is_float(lower):
        return lower if higher is None else torch_promote_names(higher, lower) if lower else higher
    return higher if higher is not None else lower


# -- MAX and user lattices ------------------------------------------------------------------


class LatticeRules(_Rules):
    """Joins on a lattice of dtype names. Python scalars are weak, as in JAX: an int
    takes the dtype of what it meets; a float takes it if that is floating, else joins
    the lattice as the default float; with nothing strong they take the defaults."""

    int_overflow = "wrap"

    def __init__(self, lattice: Lattice[str], name: str, defaults: Mapping[str, Any]) -> None:
        self.lattice = lattice
        self.name = name
        self.defaults = dict(defaults)
        self._cache: dict[tuple[Any, ...], tuple[Any, bool]] = {}

    def join(self, avals: Any) -> tuple[Any, bool]:
        key = tuple((a[1], a[2]) for a in avals)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._join(key)
        return hit

    def _join(self, key: tuple[tuple[Any, bool], ...]) -> tuple[Any, bool]:
        strong = [_name(dt) for dt, weak in key if not weak]
        unknown = [n for n in strong if n not in self.lattice.upper_bounds]
        if unknown:
            raise TypePromotionError(
                f"{', '.join(unknown)} is not a dtype of the {self.name} lattice (its dtypes: "
                f"{', '.join(self.lattice.nodes)}). Cast to one of them first."
            )
        weak_kinds = {_kind(dt) for dt, weak in key if weak}
        if not strong:
            kind = "c" if "c" in weak_kinds else "f" if "f" in weak_kinds else "i"
            return self.defaults[kind], True
        nodes = list(dict.fromkeys(strong))
        out = self.lattice.join(*nodes)
        if out is not None and weak_kinds & {"f", "c"} and registry.by_name(out).kind not in "fc":
            out = self.lattice.join(out, _name(self.defaults["f"]))
        if out is None:
            raise TypePromotionError(
                f"{', '.join(nodes)} have no join on the {self.name} lattice. Cast explicitly."
            )
        return _np(out), False

    def lowering_dtype(self, dt: Any) -> Any:
        return _MAX_LOWERING.get(_name(dt), dt)


_MAX_LOWERING = {"index": np.dtype("uint64"), "address": np.dtype("uint64"),
                 "tensor_float32": np.dtype("float32")}  # fmt: skip


def max_lattice() -> Lattice[str]:
    """The MAX graph semilattice, from ``shared/reference/max_semilattice.json`` (bundled
    as package data so that installed copies have it)."""
    data = json.loads((Path(__file__).parent / "data" / "max_semilattice.json").read_text())
    return Lattice(data["edges"], name="max")


# -- the Policy objects -----------------------------------------------------------------------


class _RulesPolicy(Policy):
    rules: _Rules

    def trace_rules(self) -> _Rules:
        return self.rules

    @property
    def x64(self) -> bool:
        return self.rules.x64

    def promote_types(self, a: Any, b: Any) -> Any:
        da, db = _as_dtype(a), _as_dtype(b)
        return self.rules.join([((1,), da, False), ((1,), db, False)])[0]

    def result_type(self, *args: Any, return_weak_type_flag: bool = False) -> Any:
        if not args:
            raise TypePromotionError("result_type needs at least one argument; received none.")
        dt, weak = self.rules.join([_arg_aval(a, self.rules) for a in args])
        return (dt, weak) if return_weak_type_flag else dt

    def __repr__(self) -> str:
        return f"policy({self.name!r})"


def _as_dtype(x: Any) -> Any:
    named = isinstance(x, str) and x in registry._BY_NAME and x not in ("int", "float", "complex")
    d = registry.by_name(x) if named else registry.as_dtype(x)
    if d.weak:
        raise InvalidDTypeError(f"{x!r}: weak kinds take part through values, not dtypes")
    return d.numpy if d.numpy is not None else d


def _arg_aval(x: Any, rules: _Rules) -> tuple[tuple[int, ...], Any, bool]:
    """(shape, dtype, weak) of a result_type argument under a non-JAX policy."""
    if x.__class__ in _PY_KIND:
        dt, weak = rules.python_scalar(x.__class__)
        return (), dt, weak
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        dt = x.dtype
        if type(dt).__module__.startswith("torch"):  # torch.float32 -> float32
            dt = registry.by_name(str(dt).rsplit(".", 1)[-1]).numpy
        return tuple(x.shape), np.dtype(dt), False
    return (1,), _as_dtype(x), False


class NumpyPolicy(_RulesPolicy):
    """NumPy 2 (NEP 50)."""

    name = "numpy"

    def __init__(self) -> None:
        self.rules = NumpyRules()

    def promote_types(self, a: Any, b: Any) -> Any:
        try:
            return np.promote_types(_as_dtype(a), _as_dtype(b))
        except (TypeError, ValueError) as err:
            raise TypePromotionError(f"numpy cannot promote {a!r} and {b!r}: {err}") from None


class TorchPolicy(_RulesPolicy):
    """PyTorch: categories of dimensioned / 0-dim / wrapped number (seed 000)."""

    name = "torch"

    def __init__(self, default_float: str = "float32") -> None:
        self.rules = TorchRules(default_float)

    def promote_types(self, a: Any, b: Any) -> Any:
        return _np(torch_promote_names(_name(_as_dtype(a)), _name(_as_dtype(b))))


class LatticePolicy(_RulesPolicy):
    """Any checked lattice as a policy (MAX's, or one a user builds)."""

    def __init__(self, lattice: Lattice[str], name: str | None = None,
                 defaults: Mapping[str, Any] | None = None) -> None:  # fmt: skip
        report = lattice.check()
        if any(v.law != "total" for v in report.violations):
            raise PolicyError(f"lattice {lattice.name!r} breaks the lattice laws:\n{report}")
        unknown = [n for n in lattice.nodes if n not in registry._BY_NAME]
        if unknown:
            raise PolicyError(
                f"lattice {lattice.name!r} has nodes that are not dtypes: {unknown}. Use dtype "
                "names such as 'int8' or 'bfloat16'."
            )
        self.name = name or lattice.name
        self.rules = LatticeRules(lattice, self.name, defaults or _TORCH_DEFAULTS)
        self._lattice = lattice

    @property
    def lattice(self) -> Lattice[str]:
        return self._lattice


class MaxPolicy(LatticePolicy):
    """The MAX graph semilattice (seed 002), with index, address and tensor_float32."""

    def __init__(self) -> None:
        super().__init__(max_lattice(), "max")
        self.rules.defaults = dict(_TORCH_DEFAULTS)


register_policy("numpy", NumpyPolicy)
register_policy("torch", TorchPolicy)
register_policy("max", MaxPolicy)
