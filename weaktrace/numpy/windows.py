"""Window functions: bartlett, blackman, hamming, hanning, kaiser (default float)."""

from __future__ import annotations

from typing import Any

import numpy as np

from weaktrace.errors import ConcretizationError
from weaktrace.numpy._core import Tracer, broadcast_to, context, export, lit
from weaktrace.numpy._lax import iota


def _setup(M: Any, name: str) -> tuple[Any, Any, int]:
    if M.__class__ is Tracer:
        if not M.ctx.eager:
            raise ConcretizationError(f"M argument of jnp.{name} must be concrete, got {M.aval}")
        M = M.concrete()
    m = int(M)
    b = context()
    dt = b.policy.defaults["f"]
    if m <= 1:
        return b, broadcast_to(lit(b, 1, dt), (max(m, 0),)), m
    return b, iota(b, dt, (m,), 0), m


@export
def bartlett(M: int) -> Any:
    """``jax.numpy.bartlett``: the triangular window."""
    from weaktrace.numpy.ufuncs import absolute, add, divide, multiply, subtract

    _b, n, m = _setup(M, "bartlett")
    if m <= 1:
        return n
    return subtract(1, divide(absolute(add(multiply(2, n), 1 - m)), m - 1))


def _cos(n: Any, c: float, m: int) -> Any:
    from weaktrace.numpy.ufuncs import cos, divide, multiply

    return cos(divide(multiply(c * np.pi, n), m - 1))


@export
def blackman(M: int) -> Any:
    """``jax.numpy.blackman``."""
    from weaktrace.numpy.ufuncs import add, multiply, subtract

    _b, n, m = _setup(M, "blackman")
    if m <= 1:
        return n
    return add(subtract(0.42, multiply(0.5, _cos(n, 2, m))), multiply(0.08, _cos(n, 4, m)))


@export
def hamming(M: int) -> Any:
    """``jax.numpy.hamming``."""
    from weaktrace.numpy.ufuncs import multiply, subtract

    _b, n, m = _setup(M, "hamming")
    if m <= 1:
        return n
    return subtract(0.54, multiply(0.46, _cos(n, 2, m)))


@export
def hanning(M: int) -> Any:
    """``jax.numpy.hanning``."""
    from weaktrace.numpy.ufuncs import multiply, subtract

    _b, n, m = _setup(M, "hanning")
    if m <= 1:
        return n
    return multiply(0.5, subtract(1, _cos(n, 2, m)))


@export
def kaiser(M: int, beta: Any) -> Any:
    """``jax.numpy.kaiser``: ``i0(beta * sqrt(1 - ((n - alpha) / alpha)**2)) / i0(beta)``."""
    from weaktrace.numpy.math import i0
    from weaktrace.numpy.ufuncs import divide, multiply, power, sqrt, subtract

    _b, n, m = _setup(M, "kaiser")
    if m <= 1:
        return n
    alpha = 0.5 * (m - 1)
    inner = sqrt(subtract(1, power(divide(subtract(n, alpha), alpha), 2)))
    return divide(i0(multiply(beta, inner)), i0(beta))
