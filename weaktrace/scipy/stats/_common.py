"""What the jax.scipy.stats mirror modules share: argument promotion
(``promote_args_inexact``), constants of an operand's dtype (``lax._const``) and the
export decorator (eager calls run compiled, results are jax arrays)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from weaktrace.core.mirror import exporter
from weaktrace.core.promotion import lit, promote, promote_args
from weaktrace.numpy._core import Tracer, context, operands


def registry() -> tuple[dict[str, Callable[..., Any]], Callable[[Any], Any]]:
    """A module's export table and its decorator."""
    table: dict[str, Callable[..., Any]] = {}
    return table, exporter(table)


def inexact(name: str, *args: Any) -> list[Tracer]:
    """``promote_args_inexact``: integers and bools become the default float, Python
    scalars stay weak, ranks are promoted as jax.numpy promotes them."""
    return promote_args(context(*args), name, args, "inexact")


def inexact_dtypes(name: str, *args: Any) -> list[Tracer]:
    """``promote_dtypes_inexact``: dtypes only (no rank promotion)."""
    ctx = context(*args)
    return promote(ctx, name, operands(ctx, args), "inexact")


def raw_const(arg: Any, value: Any) -> tuple[Tracer, Tracer]:
    """An unpromoted operand and ``lax._const(arg, value)``: weak if arg is a Python
    scalar (jax keeps the scalar's type), else strong in arg's dtype."""
    (x,) = operands(context(arg), [arg])
    return x, const(x, value)


def const(x: Tracer, value: Any) -> Tracer:
    """``lax._const(x, value)``: a Python scalar (weak) for a weak 0-d x whose dtype is
    the default of its kind, else a strong scalar of x's dtype."""
    shape, dt, weak = x.aval
    kind = dt.numpy.kind
    default = x.ctx.policy.defaults.get("f" if kind == "f" else kind)
    return lit(x.ctx, value, dt, bool(weak and not shape and dt is default))


def numeric(name: str, *args: Any) -> list[Tracer]:
    """``promote_args_numeric``: bools become the default integer, ranks promoted."""
    return promote_args(context(*args), name, args, "numeric")
