"""Samplers with structure beyond ``shape`` and ``dtype``: discrete choices
(bernoulli, categorical, randint, permutation, choice), vector-valued samples
(dirichlet, multivariate_normal, multinomial, orthogonal, ball) and the ones whose
result dtype jax's arithmetic decides (weibull_min, double_sided_maxwell)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core.operands import operand
from weaktrace.core.promotion import broadcast_to, convert, convert_fill, promote
from weaktrace.core.trace import Tracer
from weaktrace.dtypes import registry
from weaktrace.errors import (
    AxisError,
    ConcretizationError,
    InvalidDTypeError,
    InvalidInputError,
    OperandTypeError,
    OperandValueError,
    ShapeError,
)
from weaktrace.ir.values import AbstractValue
from weaktrace.random._common import export, key_context, shape_arg, sharded, static_int
from weaktrace.random.samplers import FLOAT, INT, _converted, _dtype, _sample

_make = AbstractValue.make
_INT32 = registry.by_name("int32")
_BOOL = registry.by_name("bool")


@export
def bernoulli(key: Any, p: Any = 0.5, shape: Sequence[int] | None = None,
              mode: str = "low", *, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.bernoulli``: bools, True with probability `p` (a float)."""
    s = shape_arg(shape, "bernoulli", True)
    if mode not in ("high", "low"):
        raise OperandValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    ctx, k = key_context(key, p)
    pt = operand(p, ctx)
    if pt.aval[1].kind != "f":
        raise OperandTypeError(
            f"bernoulli probability `p` must have a floating dtype, got {pt.aval[1]}."
        )
    pt = convert(ctx, pt, pt.aval[1], False)
    return _sample("bernoulli", k, (pt,), shape=s, mode=mode, dtype=_BOOL,
                   **sharded(out_sharding))  # fmt: skip


@export
def randint(key: Any, shape: Sequence[int], minval: Any, maxval: Any, dtype: Any = None, *,
            out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.randint``: integers in ``[minval, maxval)`` of an integer dtype."""
    ctx, k = key_context(key, minval, maxval)
    dt = _dtype(ctx, dtype, "randint", INT, int)
    ops = [operand(minval, ctx), operand(maxval, ctx)]
    if dt.name in registry.SUB_BYTE_INTS:
        raise InvalidDTypeError(f"randint only accepts 8-, 16-, 32-, or 64-bit dtypes, got {dt}")
    for o in ops:
        if o.aval[1].kind not in "biuf":
            raise OperandTypeError(f"randint: minval and maxval must be real, got {o.aval[1]}")
    return _sample("randint", k, ops, shape=shape_arg(shape, "randint"), dtype=dt,
                   **sharded(out_sharding))  # fmt: skip


@export
def categorical(key: Any, logits: Any, axis: int = -1, shape: Sequence[int] | None = None,
                replace: bool = True, mode: str | None = None, *,
                out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.categorical``: indices sampled from unnormalized log-probabilities
    along `axis` (default int dtype; int32 without replacement, from top_k)."""
    ctx, k = key_context(key, logits)
    lg = operand(logits, ctx)
    if lg.aval[1].kind != "f":
        raise InvalidDTypeError(
            f"dtype argument to `gumbel` must be a float dtype, got {lg.aval[1]}: "
            "categorical needs floating logits."
        )
    dt = ctx.policy.defaults["i"] if replace else _INT32
    return _sample("categorical", k, (lg,), shape=shape_arg(shape, "categorical", True),
                   axis=axis, replace=bool(replace), mode=mode, dtype=dt,
                   **sharded(out_sharding))  # fmt: skip


def _population(x: Any, name: str) -> int | None:
    """An int population (permutation's x, choice's a), or None for an array."""
    if isinstance(x, jax.core.Tracer) and not np.ndim(x):  # jax.jit(permutation)(key, 10)
        raise ConcretizationError(
            f"{name}: a scalar population must be concrete (it sets the result's shape), "
            f"got a value traced by jax ({x.aval}). The error arose in argument "
            f"{'x' if name == 'permutation' else 'a'} of jax.random.{name}(); pass a "
            "Python int or mark it static."
        )
    if isinstance(x, Tracer) or np.ndim(x):
        if isinstance(x, Tracer) and not x.aval.shape:
            static_int(x, name, "a scalar population")
        return None
    if isinstance(x, float | complex | bool) or np.asarray(x).dtype.kind not in "iu":
        raise OperandTypeError(f"{name}: x must be an integer or at least 1-dimensional")
    return static_int(x, name, "the population")


@export
def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False, *,
                out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.permutation``: a shuffled ``arange(x)``, or `x` shuffled along `axis`."""
    ctx, k = key_context(key, x)
    n = _population(x, "permutation")
    if n is not None:
        ax = static_int(axis, "permutation", "axis")
        if not -1 <= ax < 1:  # jax checks the axis against arange(x)
            raise OperandValueError(
                f"axis {ax} is out of bounds for array of dimension 1 (permutation of an "
                "integer population)"
            )
        return _sample("permutation", k, (), n=n, axis=0, independent=bool(independent),
                       args=(), dtype=ctx.policy.defaults["i"],
                       **sharded(out_sharding))  # fmt: skip
    xt = operand(x, ctx)
    ax = static_int(axis, "permutation", "axis")
    if not -xt.aval.ndim <= ax < xt.aval.ndim:
        raise ShapeError(f"permutation: axis {ax} is out of bounds for shape {xt.aval.shape}")
    return _sample("permutation", k, (xt,), axis=ax % xt.aval.ndim,
                   independent=bool(independent), dtype=xt.aval[1],
                   result=(xt.aval[1], xt.aval[2]), **sharded(out_sharding))  # fmt: skip


@export
def choice(key: Any, a: Any, shape: Sequence[int] = (), replace: bool = True, p: Any = None,
           axis: int = 0, mode: str | None = None) -> Any:  # fmt: skip
    """``jax.random.choice``: samples from `a` (an array, or ``arange(a)``), with or
    without replacement, optionally weighted by `p`."""
    if not isinstance(shape, Sequence):
        raise ShapeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    s = shape_arg(shape, "choice")
    assert s is not None
    ctx, k = key_context(key, a, p)
    n = _population(a, "choice")
    ops: list[Tracer] = []
    names: list[str] = []
    if n is None:
        at = operand(a, ctx)
        ax = static_int(axis, "choice", "axis")
        if not -at.aval.ndim <= ax < at.aval.ndim:
            raise ShapeError(f"choice: axis {ax} is out of bounds for shape {at.aval.shape}")
        ax %= at.aval.ndim
        n_inputs, a_shape, dt, weak = at.aval.shape[ax], at.aval.shape, at.aval[1], at.aval[2]
        ops, names = [at], ["a"]
    else:
        ax, n_inputs, a_shape = 0, n, ()
        dt, weak = ctx.policy.defaults["i"], False
    n_draws = math.prod(s)
    if not n_draws:  # jnp.zeros(shape, dtype=jnp.asarray(a).dtype), before any other check
        dt = dt if n is None else operand(a, ctx).aval[1]
        return broadcast_to(convert_fill(ctx, 0, dt, False), s)
    if n_inputs <= 0:
        raise OperandValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise OperandValueError(
            f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) "
            "when 'replace=False'"
        )
    if n is not None and p is None and not replace and not -1 <= axis < 1:
        # permutation(key, n, axis) of an arange(n)
        raise AxisError(f"axis {axis} is out of bounds for array of dimension 1")
    if p is not None:
        (pt,) = promote(ctx, "choice", [operand(p, ctx)], "inexact")
        if pt.aval.shape != (n_inputs,):
            raise ShapeError(
                "p must be None or a 1D vector with the same size as a.shape[axis]. "
                f"p has shape {pt.aval.shape} and a.shape[axis] is {n_inputs}."
            )
        ops, names = [*ops, pt], [*names, "p"]
    params: dict[str, Any] = {"shape": s, "replace": bool(replace), "axis": ax, "mode": mode,
                              "a_shape": a_shape, "args": tuple(names), "dtype": None,
                              "result": (dt, weak)}  # fmt: skip
    if n is not None:
        params["n"] = n
    return _sample("choice", k, ops, **params)


@export
def dirichlet(key: Any, alpha: Any, shape: Sequence[int] | None = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.dirichlet``: vectors on the simplex, one per batch of `alpha`'s
    leading dimensions."""
    ctx, k = key_context(key, alpha)
    dt = _dtype(ctx, dtype, "dirichlet", FLOAT)
    ops = _converted(ctx, (alpha,), dt)
    return _sample("dirichlet", k, ops, shape=shape_arg(shape, "dirichlet", True), dtype=dt,
                   **sharded(out_sharding))  # fmt: skip


@export
def multivariate_normal(key: Any, mean: Any, cov: Any, shape: Sequence[int] | None = None,
                        dtype: Any = None, method: str = "cholesky", *,
                        out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.multivariate_normal``: ``mean`` and ``cov`` promote to one inexact
    dtype, which is also the default sample dtype."""
    ctx, k = key_context(key, mean, cov)
    ops = promote(ctx, "multivariate_normal", [operand(mean, ctx), operand(cov, ctx)], "inexact")
    if method not in ("svd", "eigh", "cholesky"):
        raise OperandValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dt = ops[0].aval[1] if dtype is None else _dtype(ctx, dtype, "multivariate_normal", FLOAT)
    if dt.kind != "f":
        raise InvalidDTypeError(
            f"dtype argument to `multivariate_normal` must be a float dtype, got {dt}"
        )
    res = ctx.policy.join([ops[0].aval, _make((), dt, False)])
    return _sample("multivariate_normal", k, ops, method=method, dtype=dt, result=(res[0], False),
                   shape=shape_arg(shape, "multivariate_normal", True),
                   **sharded(out_sharding))  # fmt: skip


@export
def multinomial(key: Any, n: Any, p: Any, *, shape: Sequence[int] | None = None,
                dtype: Any = None, unroll: int | bool = 1) -> Any:  # fmt: skip
    """``jax.random.multinomial``: counts per outcome (``n`` and ``p`` promote to one
    inexact dtype); the result has `dtype`, by default the default float dtype."""
    if isinstance(shape, int):  # jax indexes it: no int shorthand here
        raise OperandTypeError(
            f"multinomial: shape must be a sequence, got {shape!r} ('int' object is not "
            "subscriptable). Pass a tuple, e.g. shape=(3,)."
        )
    ctx, k = key_context(key, n, p)
    ops = promote(ctx, "multinomial", [operand(n, ctx), operand(p, ctx)], "inexact")
    # counts.astype(dtype): astype(None) gives the default float dtype
    dt = ctx.policy.defaults["f"] if dtype is None else ctx.policy.user_dtype(dtype)
    return _sample("multinomial", k, ops, shape=shape_arg(shape, "multinomial", True),
                   dtype=None if dtype is None else dt, unroll=unroll,
                   result=(dt, False))  # fmt: skip


@export
def orthogonal(key: Any, n: int, shape: Sequence[int] = (), dtype: Any = None,
               m: int | None = None, *, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.orthogonal``: matrices of shape ``(*shape, n, m)`` with orthonormal
    rows or columns."""
    ctx, k = key_context(key)
    nn = static_int(n, "orthogonal", "n")
    mm = None if m is None else static_int(m, "orthogonal", "m")
    dt = _dtype(ctx, dtype, "normal", "fc")
    return _sample("orthogonal", k, (), n=nn, m=mm, dtype=dt,
                   shape=shape_arg(shape, "orthogonal"), **sharded(out_sharding))  # fmt: skip


@export
def ball(key: Any, d: int, p: float = 2, shape: Sequence[int] = (), dtype: Any = None, *,
         out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.ball``: points in the unit `p`-ball of dimension `d`."""
    ctx, k = key_context(key)
    dd = static_int(d, "ball", "d")
    dt = _dtype(ctx, dtype, "gamma", FLOAT)
    return _sample("ball", k, (), d=dd, p=p, dtype=dt, shape=shape_arg(shape, "ball"),
                   **sharded(out_sharding))  # fmt: skip


@export
def generalized_normal(key: Any, p: float, shape: Sequence[int] = (), dtype: Any = None, *,
                       out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.random.generalized_normal``: samples with density ``exp(-abs(x) ** p)``."""
    ctx, k = key_context(key)
    if isinstance(p, Tracer):
        raise InvalidInputError("generalized_normal: p must be a Python float (it is static)")
    dt = _dtype(ctx, dtype, "gamma", FLOAT)
    return _sample("generalized_normal", k, (), p=p, dtype=dt,
                   shape=shape_arg(shape, "generalized_normal"),
                   **sharded(out_sharding))  # fmt: skip


def _arith(name: str, key: Any, args: Sequence[Any], shape: Any, dtype: Any) -> Any:
    """weibull_min / double_sided_maxwell: samples of `dtype` combined with the
    parameters by jax.numpy arithmetic, whose promotion decides the result dtype."""
    ctx, k = key_context(key, *args)
    dt = _dtype(ctx, dtype, "uniform" if name == "weibull_min" else "maxwell", FLOAT)
    ops = [operand(a, ctx) for a in args]
    samples = _make((), dt, False)
    if name == "weibull_min":  # power(-log1p(-u), 1.0 / concentration) * scale
        scale, conc = ops
        inv = ctx.policy.promote("true_divide", [_make((), ctx.policy.defaults["f"], True),
                                                 conc.aval], "inexact")  # fmt: skip
        res = ctx.policy.promote("power", [samples, _make((), *inv)], None)
        res = ctx.policy.join([_make((), *res), scale.aval])
    else:  # random_sign * maxwell * scale + loc
        loc, scale = ops
        res = ctx.policy.join([samples, scale.aval])
        res = ctx.policy.join([_make((), *res), loc.aval])
    return _sample(name, k, ops, shape=shape_arg(shape, name), dtype=dt, result=res)


@export
def weibull_min(key: Any, scale: Any, concentration: Any, shape: Sequence[int] = (),
                dtype: Any = None) -> Any:  # fmt: skip
    """``jax.random.weibull_min``."""
    return _arith("weibull_min", key, (scale, concentration), shape, dtype)


@export
def double_sided_maxwell(key: Any, loc: Any, scale: Any, shape: Sequence[int] = (),
                         dtype: Any = None) -> Any:  # fmt: skip
    """``jax.random.double_sided_maxwell``."""
    return _arith("double_sided_maxwell", key, (loc, scale), shape, dtype)
