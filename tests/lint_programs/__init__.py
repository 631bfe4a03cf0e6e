"""Ordinary JAX modules for tests/test_lint.py: planted bugs (marked with
``# expect(CASE): KIND`` on the line lint must point at) and clean programs."""
