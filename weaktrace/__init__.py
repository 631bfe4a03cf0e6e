"""weaktrace: a JAX-style tracing frontend whose heart is dtype promotion done right."""

from __future__ import annotations

from weaktrace import lax, numpy
from weaktrace.api import Comparison, Explanation, Traced, TracedFunction, compare, trace
from weaktrace.dtypes import Lattice, Policy, policy, promote_types, promotion_table, result_type
from weaktrace.errors import (
    ArgumentOverflowError,
    CarryTypeError,
    ConcretizationError,
    InvalidDTypeError,
    InvalidInputError,
    LatticeError,
    OperandTypeError,
    PolicyError,
    ShapeError,
    StaticArgumentError,
    TracerLeakError,
    TypeCheckError,
    TypePromotionError,
    WeakLiteralOverflowWarning,
    WeaktraceError,
)
from weaktrace.ir import (
    AbstractValue,
    Equation,
    Literal,
    Primitive,
    Program,
    SourceInfo,
    Var,
    typecheck,
)

__version__ = "0.1.0"

__all__ = [
    "AbstractValue",
    "ArgumentOverflowError",
    "CarryTypeError",
    "Comparison",
    "ConcretizationError",
    "Equation",
    "Explanation",
    "InvalidDTypeError",
    "InvalidInputError",
    "Lattice",
    "LatticeError",
    "Literal",
    "OperandTypeError",
    "Policy",
    "PolicyError",
    "Primitive",
    "Program",
    "ShapeError",
    "SourceInfo",
    "StaticArgumentError",
    "Traced",
    "TracedFunction",
    "TracerLeakError",
    "TypeCheckError",
    "TypePromotionError",
    "Var",
    "WeakLiteralOverflowWarning",
    "WeaktraceError",
    "compare",
    "lax",
    "numpy",
    "policy",
    "promote_types",
    "promotion_table",
    "result_type",
    "trace",
    "typecheck",
]
