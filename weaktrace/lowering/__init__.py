"""Lowering: one jax.lax rule per primitive (``rules``, registered on import), the
program evaluator and the AOT stages."""

from weaktrace.lowering import rules, rules_control  # noqa: F401  (fill the rule tables)
