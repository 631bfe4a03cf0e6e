"""``weaktrace.scipy.cluster``: the ``jax.scipy.cluster`` mirror (``vq``)."""

from __future__ import annotations

from weaktrace.scipy.cluster import vq

__all__ = ["vq"]
