"""``weaktrace.scipy``: mirrors of jax.scipy's namespaces (``special``, ``linalg``)."""

from __future__ import annotations

from weaktrace.scipy import linalg, special

__all__ = ["linalg", "special"]
