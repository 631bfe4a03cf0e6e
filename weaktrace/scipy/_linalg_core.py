"""What the jax.scipy.linalg mirror's modules share: the export table, promotion in
jax's words and the call of the ``scipy_linalg`` primitive."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from weaktrace.core.mirror import exporter
from weaktrace.core.primitives_scipy_linalg import scipy_linalg_p
from weaktrace.core.promotion import promote
from weaktrace.errors import ShapeError
from weaktrace.numpy._core import Tracer, context, operand
from weaktrace.numpy.creation import asarray

EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.scipy.linalg")


def operands(*xs: Any) -> list[Tracer]:
    b = context(*xs)
    return [operand(x, b) for x in xs]


def promoted(name: str, *xs: Any, target: str | None = "inexact",
             lists: bool = True) -> list[Tracer]:  # fmt: skip
    """jax's ``promote_dtypes{,_inexact,_complex}`` (target None, "inexact", "complex")
    of `xs` under the active policy; `lists`: Python lists and tuples become arrays
    first, as the ``jnp.asarray`` most of jax.scipy.linalg's functions start with."""
    if lists:
        xs = tuple(asarray(x) if isinstance(x, list | tuple) else x for x in xs)
    ts = operands(*xs)
    return promote(ts[0].ctx, name, ts, target) if ts else ts


def call(fn: str, ops: Sequence[Tracer], names: Sequence[str | None] | None = None,
         **params: Any) -> list[Tracer]:  # fmt: skip
    """Bind ``scipy_linalg[fn]``: `ops` passed positionally, or by the keywords in `names`;
    `params` static keyword arguments of jax's function ("_" ones for the rule only)."""
    b = ops[0].ctx if ops else context()
    names = tuple(names) if names is not None else (None,) * len(ops)
    p = {"fn": fn, "names": names, "params": tuple(sorted(params.items()))}
    return b.emit_n(scipy_linalg_p, tuple(ops), p)


def one(fn: str, ops: Sequence[Tracer], **params: Any) -> Tracer:
    return call(fn, ops, **params)[0]


def square(x: Tracer, words: str) -> int:
    """The n of a (batch of) square matrices, else jax's ValueError `words`."""
    s = x.aval.shape
    if len(s) < 2 or s[-1] != s[-2]:
        raise ShapeError(words)
    return s[-1]
