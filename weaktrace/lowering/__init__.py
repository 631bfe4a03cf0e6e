"""Lowering: one jax.lax rule per primitive (``rules``, registered on import), the
program evaluator and the AOT stages."""

import weaktrace.lowering.rules_scatter  # noqa: F401  (indexed updates, bitcast)
from weaktrace.lowering import rules  # noqa: F401  (fills lowering_rules)
