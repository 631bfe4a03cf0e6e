"""What the jax.scipy.special mirror shares with weaktrace.nn: its export table and
the functions jax.nn re-exports (logsumexp, softmax, log_softmax)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from weaktrace.core import primitives_special as S
from weaktrace.core.mirror import exporter
from weaktrace.core.primitives import broadcast_shapes
from weaktrace.core.promotion import bind_n
from weaktrace.errors import InvalidInputError
from weaktrace.numpy._core import (
    Tracer,
    axes_arg,
    broadcast_to,
    context,
    operand,
    promote_args,
)

EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.scipy.special")


def inexact(name: str, args: tuple[Any, ...], **params: Any) -> Any:
    """``promote_args_inexact`` then the primitive `name` (one result, or a tuple)."""
    b = context(*args)
    ops = promote_args(b, name, args, "inexact")
    prim = S.PRIMS[name]
    if prim.multiple_results:
        return tuple(bind_n(prim, b, ops, params))
    return b.emit(prim, tuple(ops), params)


def _axes(axis: Any, ndim: int, fn: str) -> tuple[int, ...]:
    return axes_arg(axis, ndim, fn)


def _listed_axes(axis: Any, ndim: int, fn: str) -> tuple[int, ...]:
    """logsumexp's axis as jax reads it (its _reduction_dims, with no operator.index
    first): a tuple, list or numpy array of axes, else one integer; a range or a
    generator is refused (TypeError), where jnp.sum takes them."""
    if axis is not None and not isinstance(axis, tuple | list | np.ndarray):
        try:
            operator.index(axis)
        except TypeError:
            raise InvalidInputError(
                f"{fn}: axis must be an integer or a tuple, list or numpy array of them, "
                f"got {axis!r}"
            ) from None
    elif isinstance(axis, np.ndarray) and axis.ndim == 0:
        raise InvalidInputError(f"{fn}: iteration over a 0-d array axis ({axis!r}); pass int(axis)")
    return axes_arg(axis, ndim, fn)


def _mask(where: Any, b: Any, shape: tuple[int, ...]) -> Tracer:
    w = operand(where, b)
    return broadcast_to(w, shape)


def along_axes(prim: Any, name: str, x: Any, axis: Any, where: Any) -> Any:
    """softmax / log_softmax: the result has x's inexact promotion (x itself enters
    unconverted: jax subtracts the maximum in x's dtype), `where` broadcast to x's shape."""
    b = context(x, *([] if where is None else [where]))
    x = operand(x, b)
    dt = b.policy.promote(name, [x.aval], "inexact")[0]
    weak = False  # jax's result is strong whatever x is: its maximum has initial=-inf
    axes = _axes(axis, len(x.aval[0]), name)
    ops = [x] if where is None else [x, _mask(where, b, x.aval[0])]
    params = {"axis": axes, "has_where": where is not None, "dtype": dt, "weak": weak}
    return b.emit(prim, tuple(ops), params)


@export
def logsumexp(
    a: Any,
    axis: Any = None,
    b: Any = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: Any = None,
) -> Any:
    """``jax.scipy.special.logsumexp``: ``log(sum(b * exp(a)))``, computed stably (the
    maximum is subtracted first); with ``return_sign`` also the sign of the sum."""
    ctx = context(*[v for v in (a, b, where) if v is not None])
    ops = promote_args(ctx, "logsumexp", (a,) if b is None else (a, b), "inexact")
    if b is not None:
        shape = broadcast_shapes("logsumexp", [o.aval[0] for o in ops])
        ops = [broadcast_to(o, shape) for o in ops]
    shape = ops[0].aval[0]
    if where is not None:
        ops.append(_mask(where, ctx, shape))
    params = {"axis": _listed_axes(axis, len(shape), "logsumexp"), "keepdims": bool(keepdims),
              "return_sign": bool(return_sign), "has_b": b is not None,
              "has_where": where is not None}  # fmt: skip
    out = bind_n(S.logsumexp_p, ctx, ops, params)
    return tuple(out) if return_sign else out[0]


@export
def softmax(x: Any, /, *, axis: Any = None) -> Any:
    """``jax.scipy.special.softmax`` (all axes by default; jax.nn's softmax with its custom
    JVP)."""
    return along_axes(S.softmax_p, "softmax", x, axis, None)


@export
def log_softmax(x: Any, /, *, axis: Any = None) -> Any:
    """``jax.scipy.special.log_softmax`` (all axes by default)."""
    return along_axes(S.log_softmax_p, "log_softmax", x, axis, None)
