"""``weaktrace.nn.initializers``: jax.nn.initializers, also inside a trace.

An initializer is a function ``init(key, shape, dtype)`` that draws parameters from a
jax.random key. Called eagerly (a concrete key) it is jax's own initializer, so the
parameters are bit-identical to jax's by construction. Programs also initialise inside
a jitted function (``params = init_params(key)`` in the step, ``jax.jit(init)(key)``):
there the key is a weaktrace tracer, and the initializer draws with ``weaktrace.random``
and scales with ``weaktrace.numpy`` exactly as jax's does (jax/_src/nn/initializers.py),
so ``weaktrace.trace`` of it equals ``jax.jit`` of jax's, bit for bit.

>>> import jax, weaktrace as wt
>>> init = glorot_uniform()
>>> w = wt.trace(lambda k: init(k, (3, 2)))(jax.random.key(0))
>>> bool((w == jax.jit(lambda k: jax.nn.initializers.glorot_uniform()(k, (3, 2)))(
...     jax.random.key(0))).all())
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.nn.initializers as _jax_init
import numpy as np
from jax.nn.initializers import Initializer, ones, zeros

from weaktrace import numpy as _numpy
from weaktrace import random as _random
from weaktrace.core.trace import Tracer

# the mirror namespaces fill their globals from their export tables
wnp: Any = _numpy
wrandom: Any = _random

Axes = int | Sequence[int]
# the standard deviations of a standard normal truncated to (-2, 2), and of a complex
# standard normal whose modulus is truncated to 2 (jax's variance_scaling constants)
_TRUNCATED_STD = 0.87962566103423978
_COMPLEX_TRUNCATED_STD = 0.95311164380491208


def _dispatching(factory: Callable[..., Initializer]) -> Callable[..., Initializer]:
    """jax's factory of the same name for a concrete key, `factory` for a traced one."""
    theirs_factory = getattr(_jax_init, factory.__name__)

    @functools.wraps(theirs_factory)
    def make(*args: Any, **kwargs: Any) -> Initializer:
        theirs = theirs_factory(*args, **kwargs)  # jax validates the options here
        ours = factory(*args, **kwargs)

        @functools.wraps(theirs)
        def init(key: Any, *rest: Any, **kw: Any) -> Any:
            traced = any(isinstance(leaf, Tracer) for leaf in jax.tree_util.tree_leaves(key))
            return (ours if traced else theirs)(key, *rest, **kw)

        return init

    return make


def constant(value: Any, dtype: Any = None) -> Initializer:
    """``jax.nn.initializers.constant``: jax's, except for a value weaktrace traces
    (``constant(jnp.array([...]))`` inside a traced init), which jax's jnp.full cannot
    take: weaktrace.numpy fills it, as jax's fills its own (jax/_src/nn/initializers.py).

    >>> import jax, weaktrace as wt
    >>> f = wt.trace(lambda k, v: constant(v)(k, (2, 2)))
    >>> f(jax.random.key(0), wt.numpy.array([1.0, 2.0])).tolist()
    [[1.0, 2.0], [1.0, 2.0]]
    """
    theirs = _jax_init.constant(value, dtype)

    @functools.wraps(theirs)
    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        if not isinstance(value, Tracer):
            return theirs(key, shape, dtype, out_sharding)
        return wnp.full(shape, value, dtype=_float_dtype(dtype))

    return init


def _float_dtype(dtype: Any) -> np.dtype:
    """The requested dtype, or jax's default float (float64 with x64 on)."""
    return np.dtype(jax.dtypes.canonicalize_dtype(float if dtype is None else dtype))


def _size(shape: tuple[int, ...], axes: Axes) -> int:
    return shape[axes] if isinstance(axes, int) else math.prod(shape[a] for a in axes)


def _fans(shape: tuple[int, ...], in_axis: Axes, out_axis: Axes, batch_axis: Axes) -> tuple:
    """(fan_in, fan_out): the in / out sizes times the receptive field (the other axes)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights "
            "tensor with default in_axis. Must be at least 2D or specify in_axis explicitly."
        )
    fan_in, fan_out = _size(shape, in_axis), _size(shape, out_axis)
    field = math.prod(shape) / fan_in / fan_out / _size(shape, batch_axis)
    return fan_in * field, fan_out * field


def _complex_polar(key: Any, shape: tuple[int, ...], dtype: np.dtype, radius: Callable) -> Any:
    """r * exp(i theta), theta uniform on the circle, r = radius(uniform) (jax's helpers
    for complex variance scaling)."""
    key_r, key_theta = wrandom.split(key)
    real = np.zeros((), dtype).real.dtype
    r = radius(wrandom.uniform(key_r, shape, real).astype(dtype))
    theta = 2 * np.pi * wrandom.uniform(key_theta, shape, real).astype(dtype)
    return r * wnp.exp(1j * theta)


def _truncated_complex(t_max: Any) -> Callable[[Any], Any]:
    return lambda u: wnp.sqrt(-wnp.log(1 - (1 - wnp.exp(t_max)) * u))


@_dispatching
def variance_scaling(
    scale: Any,
    mode: str,
    distribution: str,
    in_axis: Axes = -2,
    out_axis: Axes = -1,
    batch_axis: Axes = (),
    dtype: Any = None,
) -> Initializer:
    """``jax.nn.initializers.variance_scaling``: stddev sqrt(scale / n), n the fan."""
    default = dtype

    def init(key: Any, shape: Sequence[int], dtype: Any = default, out_sharding: Any = None):
        shape, dtype = tuple(int(d) for d in shape), _float_dtype(dtype)
        fan_in, fan_out = _fans(shape, in_axis, out_axis, batch_axis)
        denominators = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                        "fan_geo_avg": (fan_in * fan_out) ** 0.5}  # fmt: skip
        if mode not in denominators:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = wnp.array(scale / denominators[mode], dtype=dtype)
        is_complex = np.issubdtype(dtype, np.complexfloating)
        if distribution == "truncated_normal" and not is_complex:
            stddev = wnp.sqrt(variance) / wnp.array(_TRUNCATED_STD, dtype)
            return wrandom.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "truncated_normal":
            stddev = wnp.sqrt(variance) / wnp.array(_COMPLEX_TRUNCATED_STD, dtype)
            t_max = wnp.array(-(2**2), dtype)
            return _complex_polar(key, shape, dtype, _truncated_complex(t_max)) * stddev
        if distribution == "normal":
            return wrandom.normal(key, shape, dtype) * wnp.sqrt(variance)
        if distribution == "uniform" and not is_complex:
            return wrandom.uniform(key, shape, dtype, -1) * wnp.sqrt(3 * variance)
        if distribution == "uniform":
            disk = _complex_polar(key, shape, dtype, lambda u: wnp.sqrt(2 * u))
            return disk * wnp.sqrt(variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    return init


def _scaled(scale: float, mode: str, distribution: str, name: str) -> Callable[..., Initializer]:
    """glorot / lecun / he: variance_scaling with a fixed scale, mode and distribution."""

    def factory(
        in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None
    ) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = f"``jax.nn.initializers.{name}``: variance_scaling({scale}, {mode!r}, ...)."
    return factory


glorot_uniform = xavier_uniform = _scaled(1.0, "fan_avg", "uniform", "glorot_uniform")
glorot_normal = xavier_normal = _scaled(1.0, "fan_avg", "truncated_normal", "glorot_normal")
lecun_uniform = _scaled(1.0, "fan_in", "uniform", "lecun_uniform")
lecun_normal = _scaled(1.0, "fan_in", "truncated_normal", "lecun_normal")
he_uniform = kaiming_uniform = _scaled(2.0, "fan_in", "uniform", "he_uniform")
he_normal = kaiming_normal = _scaled(2.0, "fan_in", "truncated_normal", "he_normal")


@_dispatching
def uniform(scale: Any = 1e-2, dtype: Any = None) -> Initializer:
    """``jax.nn.initializers.uniform``: uniform on [0, scale)."""
    default = dtype

    def init(key: Any, shape: Sequence[int], dtype: Any = default, out_sharding: Any = None):
        dtype = _float_dtype(dtype)
        return wrandom.uniform(key, shape, dtype) * wnp.array(scale, dtype)

    return init


@_dispatching
def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
    """``jax.nn.initializers.normal``: mean 0, standard deviation `stddev`."""
    default = dtype

    def init(key: Any, shape: Sequence[int], dtype: Any = default, out_sharding: Any = None):
        dtype = _float_dtype(dtype)
        return wrandom.normal(key, shape, dtype) * wnp.array(stddev, dtype)

    return init


@_dispatching
def truncated_normal(
    stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0, upper: Any = 2.0
) -> Initializer:
    """``jax.nn.initializers.truncated_normal``: a standard normal truncated to
    (lower, upper), times `stddev` (no variance correction)."""
    default = dtype

    def init(key: Any, shape: Sequence[int], dtype: Any = default, out_sharding: Any = None):
        dtype = _float_dtype(dtype)
        return wrandom.truncated_normal(key, lower, upper, shape, dtype) * wnp.array(stddev, dtype)

    return init


@_dispatching
def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """``jax.nn.initializers.orthogonal``: orthonormal columns along `column_axis`."""
    default = dtype

    def init(key: Any, shape: Sequence[int], dtype: Any = default, out_sharding: Any = None):
        if out_sharding is not None:
            raise NotImplementedError
        shape, dtype = tuple(int(d) for d in shape), _float_dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if 0 in shape:
            return wnp.zeros(shape, dtype=dtype)
        n_cols = shape[column_axis]
        q = wrandom.orthogonal(key, math.prod(shape) // n_cols, (), dtype, n_cols)
        q = wnp.reshape(q, (*np.delete(shape, column_axis), n_cols))
        return wnp.array(scale, dtype) * wnp.moveaxis(q, -1, column_axis)

    return init


@_dispatching
def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """``jax.nn.initializers.delta_orthogonal``: an orthogonal matrix at the centre of a
    3-D, 4-D or 5-D convolution kernel, zeros elsewhere."""
    default = dtype

    def init(key: Any, shape: Sequence[int], dtype: Any = default, out_sharding: Any = None):
        if out_sharding is not None:
            raise NotImplementedError
        dtype = _float_dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return wnp.zeros(shape, dtype=dtype).at[centre].set(matrix)

    return init


__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
    "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
    "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
    "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]  # fmt: skip
