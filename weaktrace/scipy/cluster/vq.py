"""``weaktrace.scipy.cluster.vq``: the ``jax.scipy.cluster.vq`` mirror (``vq``)."""

from __future__ import annotations

from typing import Any

import weaktrace.numpy as _wnp
from weaktrace.core.operands import invalid_input
from weaktrace.errors import OperandValueError
from weaktrace.scipy._registry import promoted, registry

wnp: Any = _wnp

EXPORTS, export = registry()

__all__ = ["vq"]


@export
def vq(obs: Any, code_book: Any, check_finite: bool = True) -> tuple[Any, Any]:
    """``jax.scipy.cluster.vq.vq``: for each observation (row) the index of its nearest
    code (Euclidean distance) and that distance. `check_finite` is unused, as jax's."""
    del check_finite
    for a in (obs, code_book):
        if isinstance(a, list | tuple):
            raise invalid_input(a)
    x, book = promoted("scipy.cluster.vq.vq", obs, code_book)
    if x.ndim != book.ndim:
        raise OperandValueError("Observation and code_book should have the same rank")
    if x.ndim == 1:
        x, book = x[..., None], book[..., None]
    if x.ndim != 2:
        raise OperandValueError("ndim different than 1 or 2 are not supported")
    dist = wnp.linalg.norm(x[:, None, :] - book[None, :, :], axis=-1)
    code = wnp.argmin(dist, axis=-1)
    return code, wnp.take_along_axis(dist, code[:, None], axis=-1)[:, 0]
