"""Lowering: one jax.lax rule per primitive (``rules``, registered on import), the
program evaluator and the AOT stages."""

from weaktrace.lowering import (
    rules,  # noqa: F401  (fills lowering_rules)
    rules_conv,  # noqa: F401
    rules_cumulative,  # noqa: F401
    rules_math,  # noqa: F401
)
