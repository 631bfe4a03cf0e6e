"""Lowering: one jax.lax rule per primitive (``rules``, registered on import), the
program evaluator and the AOT stages."""

# Importing the rule modules fills the lowering tables.
from weaktrace.lowering import rules, rules_control, rules_lax, rules_scatter  # noqa: F401
