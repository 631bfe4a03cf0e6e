"""Scalar literals: folding a Python or numpy scalar into a dtype (as JAX's
``_convert_element_type`` does at trace time), and the value jax sees for one."""

from __future__ import annotations

import warnings
from typing import Any

import ml_dtypes
import numpy as np
from jax import lax
from jax._src.literals import TypedNdArray  # jax's host array: never canonicalized

from weaktrace.core.source import find_user_stacklevel
from weaktrace.dtypes import registry
from weaktrace.dtypes.registry import DType
from weaktrace.errors import WeakLiteralOverflowWarning
from weaktrace.ir.values import Literal

_BOOL = registry.by_name("bool")
# DType -> (kind, scalar type, integer bounds) for the fast path of literal_value.
_SCALAR_INFO: dict[DType, tuple[str, Any, tuple[int, int] | None]] = {
    d: (
        d.kind,
        d.numpy.type,
        (int(ml_dtypes.iinfo(d.numpy).min), int(ml_dtypes.iinfo(d.numpy).max))
        if d.kind in "iu"
        else None,
    )
    for d in registry.ALL
    if d.numpy is not None
}
_X64_NUMPY = frozenset(np.dtype(n) for n in ("int64", "uint64", "float64", "complex128"))
_PY_TYPE = {"i": int, "f": float, "c": complex}
_DEFAULT_NAMES = {
    True: {"i": "int64", "f": "float64", "c": "complex128"},
    False: {"i": "int32", "f": "float32", "c": "complex64"},
}


def literal_value(value: Any, dt: DType, overflow: str = "wrap") -> Any:
    """``np.asarray(value).astype(dt)`` as JAX's ``_convert_element_type`` does, warning
    when a Python int does not fit the integer dtype it joins (JAX wraps it silently).
    With ``overflow="raise"`` (NumPy's rule) such an int is an OverflowError instead."""
    info = _SCALAR_INFO.get(dt)
    if info is None:  # a policy-only dtype (MAX's index): keep the value
        return value
    k, scalar, bounds = info
    if dt is _BOOL and isinstance(value, complex | np.complexfloating):
        return np.bool_(value.real != 0)  # XLA's convert looks at the real part only
    cls = value.__class__
    if (cls is float or cls is int) and k in "fc":  # fast paths: the constructor agrees
        if cls is int and not -(2**63) <= value < 2**63:
            value = float(value)  # ml_dtypes' floats take no int beyond int64
        return scalar(value)
    if cls is complex and k == "c":
        return scalar(value)
    if cls is int and k == "b" and overflow == "raise" and not -(2**63) <= value < 2**63:
        raise OverflowError(f"Python int {value} too large to convert to C long (int64)")
    if cls is int and bounds is not None:
        if bounds[0] <= value <= bounds[1]:
            return scalar(value)
        if overflow == "raise":
            raise OverflowError(f"Python integer {value} out of bounds for {dt}")
    out = np.asarray(value).astype(dt.numpy)[()]
    if cls is int and k in "iu" and int(out) != value:
        warnings.warn(
            f"Python int {value} does not fit {dt} and wraps to {out!r} (as it does in JAX). "
            f"Use an explicit dtype if you meant a wider type, e.g. x.astype('int32') + {value}.",
            WeakLiteralOverflowWarning,
            stacklevel=find_user_stacklevel(),
        )
    return out


def materialize(lit: Literal) -> Literal:
    """A literal whose value is a numpy scalar of its own dtype (Python ints wrap, as in JAX)."""
    value, dt = lit.value, lit.aval[1]
    if dt.numpy is not None and value.__class__ is dt.numpy.type:
        return lit  # the common case: already a numpy scalar of its dtype
    if isinstance(value, np.generic) and dt.numpy is not None and value.dtype == dt.numpy:
        return lit
    return Literal(literal_value(value, dt), lit.aval)


def jax_literal(lit: Literal, x64: bool) -> Any:
    """A literal as jax sees constants: a weak one is a Python scalar (when its dtype is
    the default of its kind), a strong one a numpy scalar of its dtype."""
    aval = lit.aval
    dt = aval[1]
    arr = np.asarray(lit.value, dtype=dt.numpy)
    if not aval[2]:
        return typed(arr, dt)
    if _DEFAULT_NAMES[x64].get(dt.kind) == dt.name:
        return _PY_TYPE[dt.kind](arr.item())
    return lax.convert_element_type_p.bind(arr, new_dtype=dt.numpy, weak_type=True, sharding=None)


def typed(value: Any, dt: DType) -> Any:
    """A host value as jax should see it: a numpy array of a 64-bit dtype that the trace
    typed it with goes to jax as jax's own ``TypedNdArray``, which jax never
    canonicalizes. That is how jax itself keeps an explicitly requested 64-bit constant
    with x64 off under ``jax_explicit_x64_dtypes='allow'`` (``_convert_element_type``
    stages one): a plain numpy float64 would become float32. Anything else unchanged."""
    if value.__class__ is np.ndarray and value.dtype in _X64_NUMPY and value.dtype == dt.numpy:
        return TypedNdArray(value)
    return value
