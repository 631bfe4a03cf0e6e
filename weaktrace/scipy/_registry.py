"""What the smaller jax.scipy mirrors (integrate, signal, fft, ndimage, cluster,
sparse.linalg) share: an export table per module whose decorator makes eager results
jax arrays (``weaktrace.core.mirror.exporter``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context
from weaktrace.core.promotion import operands, promote


def registry() -> tuple[dict[str, Callable[..., Any]], Callable[[Any], Any]]:
    """A module's export table and its decorator."""
    table: dict[str, Callable[..., Any]] = {}
    return table, exporter(table)


def promoted(name: str, *args: Any, target: str | None = "inexact") -> list[Any]:
    """jax's ``promote_dtypes{,_inexact,_complex}`` (`target` None, "inexact",
    "complex"): dtypes joined under the active policy, no rank promotion; Python lists
    are refused as ``check_arraylike`` refuses them (weaktrace's InvalidInputError)."""
    ctx = context(*args)
    return promote(ctx, name, operands(ctx, args), target)
