"""``weaktrace.scipy``: mirrors of jax.scipy's namespaces (``special``, ``linalg``,
``stats``, ``integrate``, ``signal``, ``fft``, ``ndimage``, ``cluster``,
``sparse``)."""

from __future__ import annotations

from weaktrace.scipy import (
    cluster,
    fft,
    integrate,
    interpolate,
    linalg,
    ndimage,
    signal,
    sparse,
    special,
    stats,
)

__all__ = [
    "cluster",
    "fft",
    "integrate",
    "interpolate",
    "linalg",
    "ndimage",
    "signal",
    "sparse",
    "special",
    "stats",
]
