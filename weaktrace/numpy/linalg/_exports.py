"""The registry of ``weaktrace.numpy.linalg``'s public functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from weaktrace.core.mirror import exporter

EXPORTS: dict[str, Callable[..., Any]] = {}  # public name -> function, in definition order
export = exporter(EXPORTS, counterpart="jax.numpy.linalg")
