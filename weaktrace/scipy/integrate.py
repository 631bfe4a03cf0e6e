"""``weaktrace.scipy.integrate``: the ``jax.scipy.integrate`` mirror (``trapezoid``).

jax's function is ``jax.numpy.trapezoid`` under ``jax.jit`` with a static ``axis``;
weaktrace's is weaktrace.numpy's, so dtypes, weak flags and errors are that mirror's.
"""

from __future__ import annotations

from typing import Any

import weaktrace.numpy as _wnp
from weaktrace.scipy._registry import registry

wnp: Any = _wnp

EXPORTS, export = registry()

__all__ = ["trapezoid"]


@export
def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """``jax.scipy.integrate.trapezoid``: the composite trapezoidal rule along `axis`.

    >>> float(trapezoid(wnp.asarray([1.0, 2.0, 3.0])))
    4.0
    """
    return wnp.trapezoid(y, x, dx, axis)
