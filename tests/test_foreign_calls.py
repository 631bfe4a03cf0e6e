"""numpy and jax functions handed a weaktrace value inside a trace raise a named error
that names the mirror to call; numpy arrays with operators still work."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import weaktrace as wt


@pytest.mark.parametrize(
    ("fn", "mirror"),
    [
        (lambda x: jnp.sin(x), "weaktrace.numpy.sin"),
        (lambda x: jax.nn.relu(x), "weaktrace.nn.relu"),
        (lambda x: lax.add(x, x), "weaktrace.lax.add"),
        (lambda x: np.sin(x), "weaktrace.numpy.sin"),
        (lambda x: np.sum(x), "weaktrace.numpy.sum"),
        (lambda x: jnp.asarray(x), "weaktrace"),
    ],
)
def test_foreign_function_names_the_mirror(fn, mirror):
    with pytest.raises(wt.ForeignFunctionError, match=mirror.replace(".", r"\.")):
        wt.trace(fn).trace(np.ones(3, np.float32))


def test_numpy_arrays_with_operators_still_work():
    a = np.ones(3, np.float32)
    got = wt.trace(lambda x: (a + x, a < x, a * 2 - x)).trace(np.ones(3, np.int8)).out_avals
    want = jax.eval_shape(lambda x: (a + x, a < x, a * 2 - x), np.ones(3, np.int8))
    assert [(g.shape, g.dtype) for g in got] == [(w.shape, w.dtype) for w in want]
