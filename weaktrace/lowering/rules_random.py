"""Lowering rules of ``weaktrace.core.primitives_random``: each calls the jax.random
function itself on the lowered key and operands, so samples are jax's bit for bit."""

from __future__ import annotations

import inspect
from typing import Any

import jax

from weaktrace.core import primitives_random as R
from weaktrace.dtypes.registry import DType
from weaktrace.ir.values import lowering_rules


def _np(dt: Any) -> Any:
    return dt.numpy if isinstance(dt, DType) else dt


def _sampler(name: str, names: tuple[str, ...]) -> Any:
    fn = getattr(jax.random, name)
    accepted = set(inspect.signature(fn).parameters) | {"n"}  # dtype only where jax takes it

    def rule(key: Any, *ops: Any, **params: Any) -> Any:
        kwargs = {k: _np(v) for k, v in params.items() if k in accepted}
        kwargs.update(zip(params.get("args", names), ops, strict=True))
        if "n" in kwargs and name in ("permutation", "choice"):  # an int population
            kwargs["x" if name == "permutation" else "a"] = kwargs.pop("n")
        return fn(key, **kwargs)

    return rule


for _name, (_names, _) in R.SAMPLERS.items():
    lowering_rules[R.SAMPLER_PRIMS[_name]] = _sampler(_name, _names)


def _seed(*seed: Any, impl: DType, raw: bool, value: Any = None) -> Any:
    s = seed[0] if seed else value
    return (jax.random.PRNGKey if raw else jax.random.key)(s, impl=impl.numpy)


lowering_rules[R.random_split_p] = lambda key, shape: jax.random.split(key, shape)
lowering_rules[R.random_fold_in_p] = jax.random.fold_in
lowering_rules[R.random_key_data_p] = jax.random.key_data
lowering_rules[R.random_wrap_p] = lambda data, impl: jax.random.wrap_key_data(data, impl=impl.numpy)
lowering_rules[R.random_seed_p] = _seed
lowering_rules[R.random_clone_p] = jax.random.clone
