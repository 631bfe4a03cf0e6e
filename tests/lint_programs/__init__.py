"""Ordinary JAX modules for tests/test_lint.py: planted bugs (marked with an
expect(CASE): KIND comment on the line lint must point at) and clean programs."""
