"""``weaktrace.scipy.sparse``: the ``jax.scipy.sparse`` mirror (``linalg``)."""

from __future__ import annotations

from weaktrace.scipy.sparse import linalg

__all__ = ["linalg"]
