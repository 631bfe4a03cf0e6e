"""``weaktrace.scipy``: mirrors of jax.scipy's namespaces (``special``, ``linalg``,
``stats``, ``integrate``, ``signal``, ``fft``, ``ndimage``, ``cluster``,
``sparse``, ``optimize``, ``spatial``)."""

from __future__ import annotations

from weaktrace.scipy import (
    cluster,
    fft,
    integrate,
    interpolate,
    linalg,
    ndimage,
    optimize,
    signal,
    sparse,
    spatial,
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
    "optimize",
    "signal",
    "sparse",
    "spatial",
    "special",
    "stats",
]
