"""What the weaktrace.random modules share: `export`, key operands, dtype and shape
arguments as ``jax.random`` reads them (under the trace's policy)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

import jax

from weaktrace.core.eager_jit import FALLBACK
from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context, operand
from weaktrace.core.trace import Context, Tracer
from weaktrace.dtypes import registry
from weaktrace.dtypes.registry import DType
from weaktrace.errors import InvalidDTypeError, InvalidInputError, ShapeError

EXPORTS: dict[str, Callable[..., Any]] = {}


def _compile_key() -> Any:
    """A raw key is read with jax's default PRNG implementation when traced; jax.jit's
    cache does not key on it, so each implementation gets its own compiled eager path.
    Under ``jax_legacy_prng_key='warn'`` or ``'error'`` jax.random checks each call's
    raw keys (a warning per call, or ValueError): such calls run uncompiled, where the
    check runs each time, not once per compilation."""
    if jax.config.jax_legacy_prng_key != "allow":  # type: ignore[attr-defined]
        return FALLBACK
    return jax.random.key_dtype()


export = exporter(EXPORTS, _compile_key)


def key_context(key: Any, *args: Any) -> tuple[Context, Tracer]:
    """The context of an operation on `key` (and `args`), and the key as its tracer."""
    ctx = context(key, *args)
    return ctx, operand(key, ctx)


def user_dtype(ctx: Context, dtype: Any, default: type, name: str, kinds: str,
               what: str) -> DType:  # fmt: skip
    """``check_and_canonicalize_user_dtype(default if dtype is None else dtype)`` under
    the trace's policy, then jax.random's check that its kind is one of `kinds`."""
    dt = ctx.policy.user_dtype(default if dtype is None else dtype)
    if dt.kind not in kinds:
        raise InvalidDTypeError(
            f"dtype argument to `{name}` must be {what}, got {dt}. Pass e.g. "
            f"dtype={'float32' if 'f' in kinds else 'int32'}."
        )
    return dt


def shape_arg(shape: Any, name: str, optional: bool = False) -> tuple[int, ...] | None:
    """``core.canonicalize_shape``: a Python int (one dimension) or an iterable of
    concrete integers (None where `optional`); jax's words where it refuses."""
    if shape is None and optional:
        return None
    if isinstance(shape, int):
        shape = (shape,)
    try:
        if isinstance(shape, str):
            raise TypeError
        dims = tuple(operator.index(d) for d in shape)
    except TypeError:
        hint = ""
        if isinstance(shape, Iterable) and any(isinstance(d, Tracer | jax.core.Tracer)
                                               for d in shape):  # fmt: skip
            hint = (" If using `jit`, try using `static_argnums` or applying `jit` to "
                    "smaller subfunctions.")  # fmt: skip
        raise ShapeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {shape}."
            f"{hint} (the shape argument of jax.random.{name}; pass a tuple, e.g. shape=(3,))"
        ) from None
    if any(d < 0 for d in dims):
        raise ShapeError(f"{name}: negative dimensions are not allowed, got shape {dims}")
    return dims


def static_int(value: Any, name: str, what: str) -> int:
    """A Python (or numpy) integer argument that must be known while tracing."""
    if isinstance(value, Tracer):
        from weaktrace.errors import ConcretizationError

        raise ConcretizationError(
            f"{name}: {what} must be a concrete integer while tracing, got a traced value "
            f"{value.aval}. Pass a Python int or mark it static."
        )
    try:
        return operator.index(value)
    except TypeError:
        raise InvalidInputError(f"{name}: {what} must be an integer, got {value!r}") from None


def sharded(out_sharding: Any) -> dict[str, Any]:
    """The ``out_sharding`` param of a sampler: passed on to the jax.random function the
    sampler lowers to (which places the samples); left out of the program when None."""
    return {} if out_sharding is None else {"out_sharding": out_sharding}


__all__ = ["EXPORTS", "export", "key_context", "registry", "shape_arg", "sharded", "static_int",
           "user_dtype"]  # fmt: skip
