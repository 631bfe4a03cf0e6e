"""``weaktrace.scipy.spatial``: the ``jax.scipy.spatial`` mirror (``transform``:
``Rotation`` and ``Slerp``)."""

from __future__ import annotations

from weaktrace.scipy.spatial import transform

__all__ = ["transform"]
