"""``weaktrace.scipy``: mirrors of jax.scipy's namespaces (``special``, ``linalg``,
``stats``)."""

from __future__ import annotations

from weaktrace.scipy import linalg, special, stats

__all__ = ["linalg", "special", "stats"]
