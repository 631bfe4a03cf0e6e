"""Set-up shared by the peer suites."""

from __future__ import annotations

from collections.abc import Iterator

import jax
import pytest


@pytest.fixture(autouse=True, scope="session")
def _no_traceback_filtering() -> Iterator[None]:
    """The sweeps make jax (the oracle) and weaktrace's compiled calls raise tens of
    thousands of times; jax's traceback filtering walks every frame of each with
    os.path calls (about half of a sweep's time). The error classes, which is what the
    suites compare, are the same without it."""
    old = jax.config.jax_traceback_filtering
    jax.config.update("jax_traceback_filtering", "off")
    try:
        yield
    finally:
        jax.config.update("jax_traceback_filtering", old)
