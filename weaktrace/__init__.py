"""weaktrace: a JAX-style tracing frontend whose heart is dtype promotion done right."""

from __future__ import annotations

from weaktrace.dtypes import Lattice, Policy, policy, promote_types, promotion_table, result_type
from weaktrace.errors import (
    InvalidDTypeError,
    LatticeError,
    PolicyError,
    TypePromotionError,
    WeaktraceError,
)

__version__ = "0.1.0"

__all__ = [
    "InvalidDTypeError",
    "Lattice",
    "LatticeError",
    "Policy",
    "PolicyError",
    "TypePromotionError",
    "WeaktraceError",
    "policy",
    "promote_types",
    "promotion_table",
    "result_type",
]
