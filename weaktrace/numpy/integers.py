"""Integer math of jax.numpy: bitwise_count, gcd and lcm (jax._src.numpy.ufuncs and
lax_numpy, step by step, with weaktrace's promotion)."""

from __future__ import annotations

from typing import Any

from weaktrace.core import primitives_math as M
from weaktrace.dtypes.registry import by_name
from weaktrace.errors import OperandTypeError
from weaktrace.numpy import ufuncs as U
from weaktrace.numpy._core import (
    Context,
    Tracer,
    broadcast_to,
    const_like,
    context,
    convert,
    emit,
    export,
    kind,
    operands,
    promote,
    promote_args,
    result_shape,
)

where = U.where


@export
def bitwise_count(x: Any, /) -> Any:
    """``jax.numpy.bitwise_count``: set bits of abs(x), as uint8."""
    b = context(x)
    (x,) = promote_args(b, "bitwise_count", (x,), "numeric")
    counts = emit(M.population_count_p, U.absolute(x))
    return convert(b, counts, by_name("uint8"), False)


def _integers(b: Context, name: str, x1: Any, x2: Any) -> list[Tracer]:
    ops = promote(b, name, operands(b, (x1, x2)))
    if kind(ops[0]) not in "iu":
        raise OperandTypeError(f"Arguments to {name} must be integers (as in JAX)")
    return ops


@export
def gcd(x1: Any, x2: Any) -> Any:
    """``jax.numpy.gcd``: Euclid's algorithm on abs(x1), abs(x2) (elementwise)."""
    b = context(x1, x2)
    x1, x2 = _integers(b, "gcd", x1, x2)
    shape = result_shape("gcd", [x1.aval[0], x2.aval[0]])
    x1, x2 = (broadcast_to(v, shape) for v in (x1, x2))
    return emit(M.gcd_p, U.absolute(x1), U.absolute(x2))


@export
def lcm(x1: Any, x2: Any) -> Any:
    """``jax.numpy.lcm``: abs(x1) * (abs(x2) // gcd), 0 where the gcd is 0."""
    b = context(x1, x2)
    ops = promote(b, "lcm", operands(b, (x1, x2)))
    x1, x2 = (U.absolute(v) for v in ops)
    if kind(x1) not in "iu":
        raise OperandTypeError("Arguments to lcm must be integers (as in JAX)")
    d = gcd(x1, x2)
    return where(U.equal(d, 0), const_like(d, 0), U.multiply(x1, U.floor_divide(x2, d)))
