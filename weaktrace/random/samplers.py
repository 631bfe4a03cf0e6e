"""Every ``jax.random`` sampler: one primitive each (``random_uniform``, ...), whose
dtype and shape follow jax.random's rules under the trace's policy and whose
lowering calls the jax.random function itself (bit-identical samples).

Array parameters are operands, converted as jax converts them (``minval`` to the
requested dtype, ``poisson``'s ``lam`` to float32, ``geometric``'s ``p`` to an
inexact dtype); static ones (shape, axis, replace, mode, ...) are params.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from weaktrace.core import primitives_random as R
from weaktrace.core.operands import operand
from weaktrace.core.promotion import bind, convert, promote
from weaktrace.core.trace import Context, Tracer
from weaktrace.dtypes import registry
from weaktrace.dtypes.registry import DType
from weaktrace.errors import (
    InvalidInputError,
    OperandValueError,
    TypePromotionError,
)
from weaktrace.ir.values import AbstractValue
from weaktrace.random._common import export, key_context, shape_arg, sharded, user_dtype

_F32 = registry.by_name("float32")
_INT32 = registry.by_name("int32")
_BOOL = registry.by_name("bool")
FLOAT, INEXACT, INT, UINT, ANY = "f", "fc", "iu", "u", "buifc"
_WHAT = {FLOAT: "a float dtype", INEXACT: "a float or complex dtype", INT: "an int dtype",
         UINT: "an unsigned int dtype", ANY: "a numeric dtype"}  # fmt: skip


def _sample(name: str, key: Any, ops: Sequence[Any], **params: Any) -> Any:
    return bind(R.SAMPLER_PRIMS[name], key, *ops, **params)


def _dtype(ctx: Context, dtype: Any, name: str, kinds: str, default: type = float) -> DType:
    return user_dtype(ctx, dtype, default, name, kinds, _WHAT[kinds])


def _simple(name: str, kinds: str = FLOAT, default: type = float) -> Any:
    """A sampler of `shape` and `dtype` only (normal, exponential, ...)."""

    def fn(key: Any, shape: Sequence[int] = (), dtype: Any = None, *,
           out_sharding: Any = None) -> Any:  # fmt: skip
        ctx, k = key_context(key)
        dt = _dtype(ctx, dtype, name, kinds, default)
        return _sample(name, k, (), shape=shape_arg(shape, name), dtype=dt,
                       **sharded(out_sharding))  # fmt: skip

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jax.random.{name}``: samples of `shape` and `dtype` (bit-identical to jax's)."
    return export(fn)


normal = _simple("normal", INEXACT)
exponential = _simple("exponential")
cauchy = _simple("cauchy")
laplace = _simple("laplace")
logistic = _simple("logistic")
maxwell = _simple("maxwell")
rademacher = _simple("rademacher", ANY, int)


@export
def bits(key: Any, shape: Sequence[int] = (), dtype: Any = None, *,
         out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.bits``: uniform bits as unsigned ints (default uint32, uint64 with x64)."""
    ctx, k = key_context(key)
    dt = ctx.policy.defaults["u"] if dtype is None else _dtype(ctx, dtype, "bits", UINT)
    return _sample("bits", k, (), shape=shape_arg(shape, "bits"), dtype=dt,
                   **sharded(out_sharding))  # fmt: skip


@export
def gumbel(key: Any, shape: Sequence[int] = (), dtype: Any = None, mode: str | None = None,
           *, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.gumbel``."""
    ctx, k = key_context(key)
    dt = _dtype(ctx, dtype, "gumbel", FLOAT)
    if mode not in (None, "high", "low"):
        raise OperandValueError(f"Must provide valid mode for gumbel got: {mode}")
    return _sample("gumbel", k, (), shape=shape_arg(shape, "gumbel"), dtype=dt, mode=mode,
                   **sharded(out_sharding))  # fmt: skip


def _converted(ctx: Context, args: Sequence[Any], dt: DType) -> list[Tracer]:
    """``lax.convert_element_type(arg, dtype)`` of each parameter."""
    return [convert(ctx, operand(a, ctx), dt, False) for a in args]


@export
def uniform(key: Any, shape: Sequence[int] = (), dtype: Any = None, minval: Any = 0.0,
            maxval: Any = 1.0, *, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.uniform``: floats in ``[minval, maxval)``."""
    ctx, k = key_context(key, minval, maxval)
    dt = _dtype(ctx, dtype, "uniform", FLOAT)
    ops = _converted(ctx, (minval, maxval), dt)
    return _sample("uniform", k, ops, shape=shape_arg(shape, "uniform"), dtype=dt,
                   **sharded(out_sharding))  # fmt: skip


# The samplers whose parameters jax checks with ``_check_all_safe_to_cast`` before it
# converts them to the dtype: a parameter the dtype cannot hold (float32 to float16)
# is a TypePromotionError, not a silent rounding.
_SAFE_CAST = frozenset({"beta", "pareto", "t", "chisquare", "f", "rayleigh", "wald",
                        "triangular", "lognormal"})  # fmt: skip


def _check_safe_cast(ctx: Context, name: str, ops: Sequence[Tracer], dt: DType) -> None:
    """``dtypes.safe_to_cast(param, dtype)`` of each parameter: promoting it with the
    (strong) dtype must give the dtype."""
    for o in ops:
        if ctx.policy.join([o.aval, AbstractValue.make((), dt, False)])[0] is not dt:
            raise TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type {o.aval[1]} to {dt}"
            )


def _params(name: str, names: tuple[str, ...], kinds: str = FLOAT, convert_to: str = "dtype",
            default: type = float) -> Any:  # fmt: skip
    """A sampler with array parameters and an optional shape (gamma, beta, ...).
    `convert_to`: "dtype" (jax converts each parameter to the dtype), "f32" (poisson),
    "inexact" (promote_dtypes_inexact) or "none" (jax's computation decides)."""

    def fn(key: Any, *args: Any, shape: Sequence[int] | None = None, dtype: Any = None,
           out_sharding: Any = None) -> Any:  # fmt: skip
        ctx, k = key_context(key, *args)
        dt = _dtype(ctx, dtype, name, kinds, default)
        ops = [operand(a, ctx) for a in args]
        if name in _SAFE_CAST:
            _check_safe_cast(ctx, name, ops, dt)
        if convert_to == "dtype":
            ops = _converted(ctx, ops, dt)
        elif convert_to == "f32":
            ops = _converted(ctx, ops, _F32)
        elif convert_to == "inexact":
            ops = promote(ctx, name, ops, "inexact")
        if out_sharding is not None and name == "binomial":  # jax's binomial takes none
            raise InvalidInputError("binomial() got an unexpected keyword 'out_sharding'")
        return _sample(name, k, ops, shape=shape_arg(shape, name, True), dtype=dt,
                       **sharded(out_sharding))  # fmt: skip

    def wrapper(key: Any, *args: Any, **kw: Any) -> Any:
        extra = args[len(names) :]
        args = args[: len(names)]
        missing = [n for n in names[len(args) :] if n not in kw]
        vals = [*args, *(kw.pop(n) for n in names[len(args) :] if n in kw)]
        if missing and not (name in _DEFAULTS and len(missing) == 1):
            raise InvalidInputError(f"{name}() missing required arguments: {missing}")
        if missing:
            vals.append(_DEFAULTS[name])
        for pname, value in zip(("shape", "dtype"), extra, strict=False):
            kw[pname] = value
        return fn(key, *vals, **kw)

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = (
        f"``jax.random.{name}(key, {', '.join(names)}, shape=None, dtype=None)``: samples "
        "bit-identical to jax's; the shape defaults to the parameters' broadcast shape."
    )
    return export(wrapper)


_DEFAULTS = {"lognormal": np.float32(1.0)}
truncated_normal = _params("truncated_normal", ("lower", "upper"))
beta = _params("beta", ("a", "b"))
gamma = _params("gamma", ("a",))
loggamma = _params("loggamma", ("a",))
pareto = _params("pareto", ("b",))
t = _params("t", ("df",))
chisquare = _params("chisquare", ("df",))
f = _params("f", ("dfnum", "dfden"))
rayleigh = _params("rayleigh", ("scale",))
wald = _params("wald", ("mean",))
triangular = _params("triangular", ("left", "mode", "right"))
lognormal = _params("lognormal", ("sigma",), INEXACT)
poisson = _params("poisson", ("lam",), INT, "f32", int)
geometric = _params("geometric", ("p",), INT, "inexact", int)
binomial = _params("binomial", ("n", "p"), FLOAT, "none")
