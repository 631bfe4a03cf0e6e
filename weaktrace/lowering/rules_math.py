"""Lowering rules of ``weaktrace.core.primitives_math`` onto ``jax.lax``."""

from __future__ import annotations

from typing import Any

from jax import lax

from weaktrace.core import primitives_math as M
from weaktrace.lowering.rules import _np, _register

_register(M.asinh_p, lax.asinh)
_register(M.acosh_p, lax.acosh)
_register(M.atanh_p, lax.atanh)
_register(M.nextafter_p, lax.nextafter)
_register(M.population_count_p, lax.population_count)
_register(M.bessel_i0e_p, lax.bessel_i0e)
_register(
    M.bitcast_convert_type_p,
    lambda x, *, new_dtype: lax.bitcast_convert_type(x, _np(new_dtype)),
)


def _gcd(x1: Any, x2: Any) -> Any:
    """``jnp.gcd``'s loop (jax._src.numpy.lax_numpy._gcd_{cond,body}_fn) in lax."""
    zero = lax.full_like(x2, 0)

    def cond(xs: tuple[Any, Any]) -> Any:
        nonzero = lax.ne(xs[1], zero)
        return lax.reduce_or(nonzero, tuple(range(nonzero.ndim)))

    def body(xs: tuple[Any, Any]) -> tuple[Any, Any]:
        a, b = xs
        live = lax.ne(b, zero)
        safe_b = lax.select(live, b, lax.full_like(b, 1))
        a, b = lax.select(live, b, a), lax.select(live, lax.rem(a, safe_b), zero)
        swap = lax.lt(a, b)
        return lax.select(swap, b, a), lax.select(swap, a, b)

    return lax.while_loop(cond, body, (x1, x2))[0]


_register(M.gcd_p, _gcd)
