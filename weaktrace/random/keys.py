"""Key operations: key, PRNGKey, split, fold_in, key_data, wrap_key_data, key_impl,
key_dtype, clone. Typed keys (``key<fry>``) and raw ``uint32`` keys both work, as in
``jax.random``; raw ones are read with jax's default implementation."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core import primitives_random as R
from weaktrace.core.operands import context, operand
from weaktrace.core.promotion import bind, convert
from weaktrace.core.trace import Tracer
from weaktrace.dtypes import registry
from weaktrace.dtypes.registry import DType
from weaktrace.errors import InvalidInputError, OperandValueError
from weaktrace.random._common import export, key_context, static_int

_U32 = registry.by_name("uint32")


def _impl(impl: Any, dtype: Any, name: str) -> DType:
    """The key dtype an ``impl=`` / ``dtype=`` argument names (default: jax's)."""
    if dtype is not None:
        if impl is not None:
            raise OperandValueError(
                f"Cannot specify both `impl` and `dtype` arguments to jax.random.{name}"
            )
        impl = dtype
    found = registry.key_dtype(jax.random.key_dtype(impl))
    assert found is not None
    return found


def _seeded(seed: Any, impl: DType, raw: bool, name: str) -> Any:
    if isinstance(seed, Tracer | jax.Array) or (isinstance(seed, np.ndarray) and seed.ndim):
        ctx = context(seed)
        return bind(R.random_seed_p, operand(seed, ctx), impl=impl, raw=raw)
    if isinstance(seed, np.ndarray):
        seed = seed[()]
    if not isinstance(seed, int | np.integer):
        raise InvalidInputError(f"{name}: PRNG key seed must be an integer; got {seed!r}")
    ctx = context()
    return ctx.emit(R.random_seed_p, (), {"impl": impl, "raw": raw, "value": seed})


@export
def key(seed: Any, *, impl: Any = None, dtype: Any = None) -> Any:
    """``jax.random.key``: a typed PRNG key (dtype ``key<fry>``) from an integer seed.
    A Python int seed stays a static param (jax reads its full 64 bits)."""
    return _seeded(seed, _impl(impl, dtype, "key"), False, "key")


@export
def PRNGKey(seed: Any, *, impl: Any = None) -> Any:
    """``jax.random.PRNGKey``: a raw ``uint32`` key from an integer seed."""
    return _seeded(seed, _impl(impl, None, "PRNGKey"), True, "PRNGKey")


@export
def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """``jax.random.split``: `num` new keys (an int or a shape) along new leading axes."""
    _, k = key_context(key)
    nums = tuple(num) if isinstance(num, Sequence) else (num,)
    shape = tuple(static_int(n, "split", "num") for n in nums)
    return bind(R.random_split_p, k, shape=shape)


@export
def fold_in(key: Any, data: Any) -> Any:
    """``jax.random.fold_in``: a new key from `key` and a 32-bit integer `data`."""
    ctx, k = key_context(key, data)
    if isinstance(data, int) and not isinstance(data, bool):
        data = np.asarray(data).astype(np.uint32)  # jnp.asarray(data, dtype='uint32')
    d = convert(ctx, operand(data, ctx), _U32, False)
    return bind(R.random_fold_in_p, k, d)


@export
def key_data(keys: Any) -> Any:
    """``jax.random.key_data``: the ``uint32`` data under a key array."""
    _, k = key_context(keys)
    return bind(R.random_key_data_p, k)


@export
def wrap_key_data(key_bits_array: Any, *, impl: Any = None, dtype: Any = None) -> Any:
    """``jax.random.wrap_key_data``: a typed key array from its ``uint32`` data."""
    kd = _impl(impl, dtype, "wrap_key_data")
    _, data = key_context(key_bits_array)
    return bind(R.random_wrap_p, data, impl=kd)


@export
def clone(key: Any) -> Any:
    """``jax.random.clone``: the same key (an identity outside key-reuse checking)."""
    _, k = key_context(key)
    return bind(R.random_clone_p, k)


def key_impl(keys: Any) -> Any:
    """``jax.random.key_impl``: the PRNG implementation of a key array (known from
    its dtype while tracing)."""
    _, k = key_context(keys)
    R.key_batch("key_impl", k.aval)
    if not R.is_typed(k.aval):  # nothing is lowered here: check a raw key as jax does
        _legacy_key_check()
    dt = k.aval[1] if R.is_typed(k.aval) else R.default_key_dtype()
    data: Any = np.zeros(R.key_shape(dt), np.uint32)  # a dummy key of that dtype
    return jax.random.key_impl(jax.random.wrap_key_data(data, impl=dt.numpy))


def _legacy_key_check() -> None:
    """``jax_legacy_prng_key``: a raw uint32 key is allowed, warned about, or an error."""
    mode = jax.config.jax_legacy_prng_key  # type: ignore[attr-defined]
    if mode == "allow":
        return
    msg = (
        "Legacy uint32 key array passed as key to jax.random function. Make typed keys "
        "with jax.random.key() (or weaktrace.random.key); to pass raw keys on purpose, "
        'set jax_legacy_prng_key="allow".'
    )
    if mode == "error":
        raise OperandValueError(msg)
    warnings.warn(msg, UserWarning, stacklevel=4)


def key_dtype(impl_spec: Any = None) -> Any:
    """``jax.random.key_dtype``: the key dtype of a PRNG implementation (jax's own)."""
    return jax.random.key_dtype(impl_spec)


export(key_impl)
export(key_dtype)
