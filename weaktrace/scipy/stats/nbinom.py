"""``weaktrace.scipy.stats.nbinom``: the jax.scipy.stats.nbinom mirror."""

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
def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.nbinom.logpmf``: log C(y + n - 1, y) + n log p + y log(1 - p),
    y = k - loc; -inf below loc."""
    k, n, p, loc = inexact("nbinom.logpmf", k, n, p, loc)
    one = const(k, 1)
    y = lax.sub(k, loc)
    gl = special.gammaln
    comb = lax.sub(lax.sub(gl(lax.add(y, n)), gl(n)), gl(lax.add(y, one)))
    linear = lax.add(special.xlogy(n, p), special.xlogy(y, lax.sub(one, p)))
    return wnp.where(lax.lt(k, loc), -np.inf, lax.add(comb, linear))


@export
def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.nbinom.pmf``."""
    return lax.exp(logpmf(k, n, p, loc))
