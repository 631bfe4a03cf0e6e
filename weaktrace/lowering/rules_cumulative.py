"""Lowering rules of ``weaktrace.core.primitives_cumulative`` onto ``jax.lax``."""

from __future__ import annotations

from jax import lax

from weaktrace.core import primitives_cumulative as C
from weaktrace.lowering.rules import _register

for _prim, _fn in (
    (C.cumsum_p, lax.cumsum),
    (C.cumprod_p, lax.cumprod),
    (C.cummax_p, lax.cummax),
    (C.cummin_p, lax.cummin),
    (C.cumlogsumexp_p, lax.cumlogsumexp),
):
    _register(_prim, _fn)
