"""``weaktrace.scipy``: mirrors of jax.scipy's namespaces (``special``, ``stats``)."""

from __future__ import annotations

from weaktrace.scipy import special, stats

__all__ = ["special", "stats"]
