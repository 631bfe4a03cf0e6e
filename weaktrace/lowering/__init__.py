"""Lowering: one jax.lax rule per primitive (``rules``, registered on import), the
program evaluator and the AOT stages."""

from weaktrace.lowering import rules, rules_control, rules_lax  # noqa: F401  (fill the tables)
