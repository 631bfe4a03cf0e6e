"""matmul and dot: dot_general in the promoted dtype."""

from __future__ import annotations

from typing import Any

from weaktrace.errors import ShapeError
from weaktrace.numpy._core import (
    Context,
    DType,
    P,
    broadcast_to,
    context,
    convert,
    emit,
    export,
    operands,
    result_shape,
)


def _contract(b: Context, x: Any, y: Any, dn: Any, preferred: DType, weak: bool) -> Any:
    out = emit(P.dot_general_p, x, y, dimension_numbers=dn, preferred_element_type=preferred)
    return convert(b, out, preferred, weak)


@export
def matmul(a: Any, b_: Any, /) -> Any:
    """``jax.numpy.matmul``: dot_general in result_type(a, b), batch dimensions broadcast."""
    b = context(a, b_)
    x, y = operands(b, (a, b_))
    if x.aval.ndim == 0 or y.aval.ndim == 0:
        raise ShapeError("matmul: operands must be at least 1-dimensional; use multiply")
    preferred, weak = b.policy.result([x.aval, y.aval])
    x_vec, y_vec = x.aval.ndim == 1, y.aval.ndim == 1
    if x_vec:
        x = emit(P.expand_dims_p, x, dimensions=(0,))
    if y_vec:
        y = emit(P.expand_dims_p, y, dimensions=(1,))
    batch = result_shape("matmul", [x.aval.shape[:-2], y.aval.shape[:-2]])
    x = broadcast_to(x, batch + x.aval.shape[-2:])
    y = broadcast_to(y, batch + y.aval.shape[-2:])
    nb = len(batch)
    if x.aval.shape[-1] != y.aval.shape[-2]:
        raise ShapeError(
            f"matmul: contracting dimensions differ: {x.aval.shape[-1]} and {y.aval.shape[-2]} "
            f"(shapes {x.aval.shape} and {y.aval.shape})"
        )
    dn = (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    out = _contract(b, x, y, dn, preferred, weak)
    squeeze_dims = ((nb,) if x_vec else ()) + ((out.aval.ndim - 1,) if y_vec else ())
    return emit(P.squeeze_p, out, dimensions=squeeze_dims) if squeeze_dims else out


@export
def dot(a: Any, b_: Any) -> Any:
    """``jax.numpy.dot``: contract a's last axis with b's second-to-last (or only)
    axis, in result_type(a, b); with a scalar it is an outer product."""
    b = context(a, b_)
    x, y = operands(b, (a, b_))
    preferred, weak = b.policy.result([x.aval, y.aval])
    if x.aval.ndim == 0 or y.aval.ndim == 0:
        contract: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    else:
        yc = 0 if y.aval.ndim == 1 else y.aval.ndim - 2
        if x.aval.shape[-1] != y.aval.shape[yc]:
            raise ShapeError(f"dot: shapes {x.aval.shape} and {y.aval.shape} are not aligned")
        contract = ((x.aval.ndim - 1,), (yc,))
    return _contract(b, x, y, (contract, ((), ())), preferred, weak)
