"""Lint unmodified JAX code: implicit promotions, x64 truncation, weak flips of state,
loop-carry and branch changes, and wrapping Python int literals, at the user's line."""

from weaktrace.lint.report import Finding, LintReport
from weaktrace.lint.run import lint

__all__ = ["Finding", "LintReport", "lint"]
