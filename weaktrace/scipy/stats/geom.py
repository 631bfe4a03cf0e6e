"""``weaktrace.scipy.stats.geom``: the jax.scipy.stats.geom mirror."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy import special
from weaktrace.scipy.stats._common import const, inexact, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


@export
def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.geom.logpmf``: (x - 1) log1p(-p) + log p, x = k - loc >= 1."""
    k, p, loc = inexact("geom.logpmf", k, p, loc)
    x = lax.sub(k, loc)
    log_probs = special.xlog1py(lax.sub(x, const(k, 1)), -p) + lax.log(p)
    return wnp.where(lax.le(x, const(k, 0)), -np.inf, log_probs)


@export
def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.geom.pmf``."""
    return wnp.exp(logpmf(k, p, loc))
