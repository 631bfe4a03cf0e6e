"""Lowering: one jax.lax rule per primitive (``rules``, registered on import), the
program evaluator and the AOT stages."""

# Importing the rule modules fills the lowering tables.
from weaktrace.lowering import (  # noqa: F401
    rules,
    rules_collective,
    rules_control,
    rules_conv,
    rules_cumulative,
    rules_fft,
    rules_lax,
    rules_lax_extra,
    rules_lax_linalg,
    rules_linalg,
    rules_math,
    rules_nn,
    rules_random,
    rules_scatter,
    rules_scipy_linalg,
    rules_solve,
    rules_special,
    rules_transform,
    rules_window,
)
