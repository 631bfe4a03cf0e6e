"""weaktrace: a JAX-style tracing frontend whose heart is dtype promotion done right."""

from __future__ import annotations

from weaktrace import lax, nn, numpy, random, scipy
from weaktrace import ops as ops  # the jax.ops mirror
from weaktrace.api import Comparison, Explanation, Traced, TracedFunction, compare, trace
from weaktrace.dtypes import Lattice, Policy, policy, promote_types, promotion_table, result_type
from weaktrace.errors import (
    ArgumentOverflowError,
    AxisError,
    CarryTypeError,
    ClosureConversionError,
    ConcretizationError,
    EmptyAxisGatherError,
    ForeignFunctionError,
    IndexingError,
    InvalidDTypeError,
    InvalidIndexError,
    InvalidInputError,
    KernelDtypeError,
    LatticeError,
    NonConcreteBooleanIndexError,
    OperandTypeError,
    OperandValueError,
    PolicyError,
    ShapeError,
    SliceStepError,
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
from weaktrace.lint import Finding, LintReport, lint
from weaktrace.transforms import install as _install_transforms
from weaktrace.transforms_calls import install as _install_calls
from weaktrace.transforms_custom import install as _install_custom

_install_transforms()  # jax.grad, jax.vmap, ... inside a trace (see weaktrace.transforms)
_install_calls()  # jax.device_put, pure_callback, linearize, ... (see weaktrace.transforms_calls)
_install_custom()  # jax.custom_gradient, closure_convert, checkify (weaktrace.transforms_custom)

__version__ = "0.1.0"

__all__ = [
    "AbstractValue",
    "ArgumentOverflowError",
    "AxisError",
    "CarryTypeError",
    "ClosureConversionError",
    "Comparison",
    "ConcretizationError",
    "EmptyAxisGatherError",
    "Equation",
    "Explanation",
    "Finding",
    "ForeignFunctionError",
    "IndexingError",
    "InvalidDTypeError",
    "InvalidIndexError",
    "InvalidInputError",
    "KernelDtypeError",
    "Lattice",
    "LatticeError",
    "LintReport",
    "Literal",
    "NonConcreteBooleanIndexError",
    "OperandTypeError",
    "OperandValueError",
    "Policy",
    "PolicyError",
    "Primitive",
    "Program",
    "ShapeError",
    "SliceStepError",
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
    "lint",
    "nn",
    "numpy",
    "policy",
    "promote_types",
    "promotion_table",
    "random",
    "result_type",
    "scipy",
    "trace",
    "typecheck",
]
