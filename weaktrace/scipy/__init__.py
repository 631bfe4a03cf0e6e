"""``weaktrace.scipy``: mirrors of jax.scipy's namespaces (``special``)."""

from __future__ import annotations

from weaktrace.scipy import special

__all__ = ["special"]
