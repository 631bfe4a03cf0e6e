"""PRNG primitives: key operations and one primitive per ``jax.random`` sampler.

A key operand is a typed key (dtype ``key<fry>``, kind "K") or a raw ``uint32`` key
(trailing dimensions the default implementation's key shape, ``(2,)`` for
threefry), as ``jax.random`` accepts both. Samplers take one key. Their rules give
the output aval from the resolved params: ``shape`` (as the user passed it, or
None), ``dtype`` (resolved by the mirror under the trace's policy) and, where the
result dtype or weak flag is not ``dtype``'s, ``result=(dtype, weak)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core.primitives import _def
from weaktrace.dtypes import registry
from weaktrace.dtypes.registry import DType
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue, Primitive

_make = AbstractValue.make
_U32 = registry.by_name("uint32")


def key_shape(dt: DType) -> tuple[int, ...]:
    """The data shape of one key of a typed key dtype."""
    return tuple(dt.numpy._impl.key_shape)  # type: ignore[union-attr]


def default_key_dtype() -> DType:
    """The key dtype raw keys are read as (jax's ``jax_default_prng_impl``)."""
    found = registry.key_dtype(jax.random.key_dtype())
    assert found is not None
    return found


def is_typed(aval: AbstractValue) -> bool:
    return aval[1].kind == "K"


def key_batch(name: str, key: AbstractValue, *, batched: bool = True) -> tuple[int, ...]:
    """The batch shape of a key operand (raw keys: without the key data dimensions);
    raises as ``jax.random``'s ``_check_prng_key`` does."""
    if is_typed(key):
        batch = key.shape
    else:
        data = key_shape(default_key_dtype())
        if key[1] is not _U32 or key.shape[len(key.shape) - len(data) :] != data:
            raise OperandTypeError(
                f"{name}: JAX encountered invalid PRNG key data (jax's words, which its "
                f"tests match): a raw PRNG key must be a uint32 array whose trailing shape is "
                f"{data}, got {key}. Make keys with jax.random.key or "
                "weaktrace.random.key (typed) or PRNGKey (raw)."
            )
        batch = key.shape[: len(key.shape) - len(data)]
    if not batched and batch:
        raise ShapeError(
            f"{name} accepts a single key, but was given a key array of shape {key.shape}. "
            "Use jax.vmap for batching."
        )
    return batch


def check_shape(name: str, shape: tuple[int, ...], *param_shapes: tuple[int, ...]) -> None:
    """``jax.random._check_shape``: parameters broadcast to exactly `shape`."""
    if not param_shapes:
        return
    try:
        out = tuple(np.broadcast_shapes(shape, *param_shapes))
    except ValueError:
        out = None
    if out != shape:
        raise ShapeError(
            f"{name} parameter shapes must be broadcast-compatible with shape argument, and "
            f"the result of broadcasting the shapes must equal the shape argument, but got "
            f"{out} for shape argument {shape} (parameter shapes {list(param_shapes)})."
        )


def broadcast(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShapeError(f"{name}: parameter shapes {list(shapes)} do not broadcast") from None


# -- key operations ----------------------------------------------------------------


def _out_key(key: AbstractValue, batch: tuple[int, ...]) -> AbstractValue:
    if is_typed(key):
        return _make(batch, key[1], False)
    return _make(batch + key_shape(default_key_dtype()), _U32, False)


def _split_rule(key: AbstractValue, *, shape: tuple[int, ...]) -> list[AbstractValue]:
    key_batch("split", key, batched=False)
    return [_out_key(key, shape)]


def _fold_in_rule(key: AbstractValue, data: AbstractValue) -> list[AbstractValue]:
    key_batch("fold_in", key, batched=False)
    if data.shape:
        raise ShapeError(
            f"fold_in accepts a scalar, but was given an array of shape {data.shape} != (). "
            "Use jax.vmap for batching."
        )
    return [_out_key(key, ())]


def _key_data_rule(key: AbstractValue) -> list[AbstractValue]:
    batch = key_batch("key_data", key)
    data = key_shape(key[1] if is_typed(key) else default_key_dtype())
    return [_make(batch + data, _U32, False)]


def _wrap_rule(data: AbstractValue, *, impl: DType) -> list[AbstractValue]:
    kshape = key_shape(impl)
    if data[1] is not _U32:
        raise OperandTypeError(f"wrap_key_data: key data must be uint32, got {data[1]}")
    if data.shape[len(data.shape) - len(kshape) :] != kshape:
        raise ShapeError(
            f"wrap_key_data: key data of shape {data.shape} does not end in the key shape "
            f"{kshape} of {impl}"
        )
    return [_make(data.shape[: len(data.shape) - len(kshape)], impl, False)]


def _seed_rule(
    *seed: AbstractValue, impl: DType, raw: bool, value: Any = None
) -> list[AbstractValue]:
    if seed:
        s = seed[0]
        name = "PRNGKey" if raw else "key"  # jax's messages name the constructor
        if is_typed(s):
            raise OperandTypeError(f"{name} accepts a scalar seed, but was given a PRNG key.")
        if s.shape:
            raise ShapeError(
                f"{name} accepts a scalar seed, but was given an array of shape {s.shape} "
                "!= (). Use jax.vmap for batching"
            )
        if s[1].kind not in "iub":
            raise OperandTypeError(f"PRNG key seed must be an integer; got dtype {s[1]}")
    if raw:
        return [_make(key_shape(impl), _U32, False)]
    return [_make((), impl, False)]


def _clone_rule(key: AbstractValue) -> list[AbstractValue]:
    key_batch("clone", key)
    return [key]


random_split_p = _def("random_split", _split_rule)
random_fold_in_p = _def("random_fold_in", _fold_in_rule)
random_key_data_p = _def("random_key_data", _key_data_rule)
random_wrap_p = _def("random_wrap", _wrap_rule)
random_seed_p = _def("random_seed", _seed_rule)
random_clone_p = _def("random_clone", _clone_rule)


# -- samplers ------------------------------------------------------------------------
# Each shape rule gets (name, shape param, operand avals, params) and returns the
# output shape, raising where jax.random raises.

ShapeRule = Callable[[str, Any, Sequence[AbstractValue], dict[str, Any]], tuple[int, ...]]


def _given(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    """A shape argument (a tuple): the result shape; operands must broadcast to it."""
    check_shape(name, shape, *[o.shape for o in ops])
    return tuple(shape)


def _plain(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    """A shape argument; operands broadcast against the samples (uniform's minval)."""
    return tuple(shape)


def _bcast(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    """``shape`` if given (operands must broadcast to it), else the operands' broadcast."""
    if shape is None:
        return broadcast(name, *[o.shape for o in ops])
    return _given(name, shape, ops, p)


def _ratio(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    """f: ``_bcast``, then jax divides the chi-square samples (of the result's shape) by
    each parameter with ``lax.div``, which takes a scalar or an array of the same rank."""
    out = _bcast(name, shape, ops, p)
    ranks = sorted({len(out), *(o.ndim for o in ops if o.ndim)})
    if len(ranks) > 1:
        raise ShapeError(
            f"div: arrays must have the same number of dimensions, got {set(ranks)} (jax.random"
            f".{name} divides samples of shape {out} by parameters of shapes "
            f"{[o.shape for o in ops]}; give the parameters the samples' rank)"
        )
    return out


def _elementwise(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    """Samples of `shape` combined elementwise with the operands (weibull_min)."""
    return broadcast(name, tuple(shape), *[o.shape for o in ops])


def _double_sided(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    params = broadcast(name, *[o.shape for o in ops])
    return (tuple(shape) or params) + params


def _last_axis(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    (alpha,) = ops
    if alpha.ndim < 1:
        raise ShapeError(f"{name} requires alpha.ndim >= 1, got alpha.ndim == {alpha.ndim}")
    batch = (
        alpha.shape[:-1]
        if shape is None
        else _given(name, shape, [alpha.update(shape=alpha.shape[:-1])], p)
    )
    return batch + alpha.shape[-1:]


def _mvn(name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]) -> tuple[int, ...]:
    mean, cov = ops
    if mean.ndim < 1:
        raise ShapeError(
            f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {mean.ndim}"
        )
    if cov.ndim < 2:
        raise ShapeError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {cov.ndim}")
    n = mean.shape[-1]
    if cov.shape[-2:] != (n, n):
        raise ShapeError(
            f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but got "
            f"cov.shape == {cov.shape}."
        )
    if shape is None:
        batch = broadcast(name, mean.shape[:-1], cov.shape[:-2])
    else:
        check_shape("normal", tuple(shape), mean.shape[:-1], cov.shape[:-2])
        batch = tuple(shape)
    return (*batch, n)


def _categorical(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    (logits,) = ops
    axis = p["axis"]
    if not -logits.ndim <= axis < max(logits.ndim, 1):
        raise ShapeError(
            f"categorical: axis {axis} is out of bounds for logits of shape {logits.shape}"
        )
    batch = tuple(np.delete(np.array(logits.shape, dtype=int), axis).tolist())
    if shape is None:
        return batch
    out = tuple(shape)
    check_shape(name, out, batch)
    if not p["replace"]:
        k = int(np.prod(out[: len(out) - len(batch)]))
        if k > logits.shape[axis]:
            raise ShapeError(
                f"Number of samples without replacement ({k}) cannot exceed number of "
                f"categories ({logits.shape[axis]})."
            )
    return out


def _counts(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    """multinomial: ``p.shape`` unless a shape is given."""
    return ops[1].shape if shape is None else tuple(shape)


def _suffix(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    """ball: (*shape, d); orthogonal: (*shape, n, m)."""
    if name == "ball":
        return (*tuple(shape), p["d"])
    m = p["n"] if p["m"] is None else p["m"]
    return (*tuple(shape), p["n"], m)


def _same(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    """permutation of an array: its shape; of an int: (n,)."""
    return ops[0].shape if ops else (p["n"],)


def _choice(
    name: str, shape: Any, ops: Sequence[AbstractValue], p: dict[str, Any]
) -> tuple[int, ...]:
    shape = tuple(shape)
    a = p["a_shape"]
    return shape if not a else a[: p["axis"]] + shape + a[p["axis"] + 1 :]


SAMPLERS: dict[str, tuple[tuple[str, ...], ShapeRule]] = {
    # name: (array operands, in jax's keyword names; shape rule)
    "bits": ((), _plain), "uniform": (("minval", "maxval"), _plain),
    "normal": ((), _plain), "exponential": ((), _plain), "cauchy": ((), _plain),
    "laplace": ((), _plain), "logistic": ((), _plain), "maxwell": ((), _plain),
    "gumbel": ((), _plain), "rademacher": ((), _plain), "generalized_normal": ((), _plain),
    "ball": ((), _suffix), "orthogonal": ((), _suffix),
    "randint": (("minval", "maxval"), _given),
    "truncated_normal": (("lower", "upper"), _bcast), "bernoulli": (("p",), _bcast),
    "beta": (("a", "b"), _bcast), "gamma": (("a",), _bcast), "loggamma": (("a",), _bcast),
    "pareto": (("b",), _bcast), "t": (("df",), _bcast), "chisquare": (("df",), _bcast),
    "f": (("dfnum", "dfden"), _ratio), "rayleigh": (("scale",), _bcast),
    "wald": (("mean",), _bcast), "triangular": (("left", "mode", "right"), _bcast),
    "lognormal": (("sigma",), _bcast), "poisson": (("lam",), _bcast),
    "geometric": (("p",), _bcast), "binomial": (("n", "p"), _bcast),
    "weibull_min": (("scale", "concentration"), _elementwise),
    "double_sided_maxwell": (("loc", "scale"), _double_sided),
    "dirichlet": (("alpha",), _last_axis), "multivariate_normal": (("mean", "cov"), _mvn),
    "categorical": (("logits",), _categorical), "multinomial": (("n", "p"), _counts),
    "permutation": (("x",), _same), "choice": (("a", "p"), _choice),
}  # fmt: skip


def _sampler(name: str, shape_rule: ShapeRule) -> Primitive:
    def rule(key: AbstractValue, *ops: AbstractValue, **params: Any) -> list[AbstractValue]:
        key_batch(name, key, batched=False)
        dt, weak = params.get("result") or (params["dtype"], False)
        used = ops if name != "choice" else ()  # choice's shape comes from a_shape
        return [_make(shape_rule(name, params.get("shape"), used, params), dt, weak)]

    return _def(f"random_{name}", rule)


SAMPLER_PRIMS: dict[str, Primitive] = {n: _sampler(n, r) for n, (_, r) in SAMPLERS.items()}
