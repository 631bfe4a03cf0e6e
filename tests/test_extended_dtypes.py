"""Values of jax's extended dtypes other than PRNG keys (custom element types,
``primal_tangent_dtype``) have no weaktrace type. A mirror function handed one by code
running under jax (outside any weaktrace trace) calls the jax function it mirrors, the
reference for them; inside a weaktrace trace they stay an InvalidInputError. Found by
jax's own dtypes_test.py (test_primal_tangent_dtype) and lax_test.py
(CustomElementTypesTest) run with jax.numpy / jax.lax swapped for weaktrace's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src import dtypes as jax_dtypes

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.numpy as wnp

PT = jax_dtypes.primal_tangent_dtype(jnp.int8, jnp.float32)
MASK = np.array([[True, False, True, False]] * 3)

# name -> call on (module, value); each is run under jax.jit, converted back to int8
CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "lax.slice_in_dim": lambda m, v: m.slice_in_dim(v, 1, 3),
    "lax.dynamic_slice_in_dim": lambda m, v: m.dynamic_slice_in_dim(v, 1, 2),
    "lax.dynamic_slice": lambda m, v: m.dynamic_slice(v, (1, 0), (2, 3)),
    "lax.select": lambda m, v: m.select(MASK, v, m.rev(v, (0,))),
    "lax.rev": lambda m, v: m.rev(v, (1,)),
    "lax.transpose": lambda m, v: m.transpose(v, (1, 0)),
    "lax.reshape": lambda m, v: m.reshape(v, (4, 3)),
    "lax.broadcast_in_dim": lambda m, v: m.broadcast_in_dim(v, (2, 3, 4), (1, 2)),
    "lax.concatenate": lambda m, v: m.concatenate([v, v], 1),
    "numpy.reshape": lambda m, v: m.reshape(v, (2, 6)),
    "numpy.flip": lambda m, v: m.flip(v, 0),
    "numpy.expand_dims": lambda m, v: m.expand_dims(v, 1),
    "numpy.stack": lambda m, v: m.stack([v, v], axis=2),
    "numpy.where": lambda m, v: m.where(MASK, v, m.flip(v, 1)),
    "numpy.swapaxes": lambda m, v: m.swapaxes(v, 0, 1),
    "numpy.int8": lambda m, v: m.int8(v),
}


def _module(name: str, ours: bool) -> Any:
    if name.startswith("lax."):
        return wlax if ours else jax.lax
    return wnp if ours else jnp


def _run(name: str, ours: bool) -> Any:
    call, mod = CALLS[name], _module(name, ours)
    x = jnp.arange(12, dtype=jnp.int8).reshape(3, 4) * 3 - 7
    return jax.jit(lambda v: call(mod, v.astype(PT)).astype(jnp.int8))(x)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_extended_dtype_value_runs_as_jax(name: str) -> None:
    ref, out = _run(name, ours=False), _run(name, ours=True)
    assert (out.dtype, out.shape) == (ref.dtype, ref.shape)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(ref))


def test_extended_dtype_inside_a_weaktrace_trace_is_refused() -> None:
    """weaktrace's own trace cannot type the value: an honest error, not jax's call."""

    def outer(x: Any) -> Any:
        pt = x.astype(PT)
        return wt.trace(lambda y: wnp.flip(pt, 0).astype(jnp.int8) + y)(x)

    with pytest.raises(wt.InvalidInputError, match="PrimalTangentDType"):
        jax.jit(outer)(jnp.ones(3, jnp.int8))


def test_other_invalid_inputs_still_raise() -> None:
    """Only extended dtypes are handed over: other bad input keeps weaktrace's error."""
    with pytest.raises(wt.InvalidInputError):
        wnp.flip(np.array(["a", "b"]), 0)
    with pytest.raises(wt.InvalidInputError):
        jax.jit(lambda: wlax.rev(np.array(["a"]), (0,)))()
