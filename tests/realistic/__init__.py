"""Realistic programs written for jax, exactly as public JAX code is written.

Each module imports jax.numpy / jax.lax / jax.nn as ordinary JAX code does and defines
`run(*args)` and `inputs(rng)`. tests/test_realistic.py loads each twice: as written
(jax), and with its imports swapped for weaktrace's mirrors, and compares.
"""
