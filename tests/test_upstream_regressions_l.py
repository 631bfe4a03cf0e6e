"""Gaps of weaktrace.numpy as a drop-in for jax.numpy (issue #13), session 12. Expected
answers come from jax, computed at test time."""

from __future__ import annotations

import functools
import itertools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp

# -- apply_along_axis traces its function once -------------------------------------------
# weaktrace called func1d once per slice (a 1,000-row array gave a 1,000-copy program, and a
# function with a side effect ran 1,000 times); jax calls it once, under vmap. It is now the
# body of one scan over the slices.

FUNCS = {
    "reverse": lambda m: lambda r: r[::-1],
    "first plus one": lambda m: lambda r: r[0] + 1,
    "python float": lambda m: lambda r: 2.0,
    "outer": lambda m: lambda r: m.outer(r, r[:2]),
    "sum int": lambda m: lambda r: m.sum(r, dtype=m.int32),
}
SHAPES = [((3, 4), 1), ((2, 3, 4), 0), ((2, 3, 4), -1), ((2, 1, 5), 1)]


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("fname", sorted(FUNCS))
@pytest.mark.ci_sample(2)
def test_apply_along_axis_traces_its_function_once_and_matches_jax(fname: str, x64: bool) -> None:
    calls = []

    def counted(m: Any) -> Any:
        f = FUNCS[fname](m)

        def g(r: Any) -> Any:
            calls.append(1)
            return f(r)

        return g

    def jax_fn(a: Any, axis: int) -> Any:
        return jnp.apply_along_axis(FUNCS[fname](jnp), axis, a)

    def wt_fn(a: Any, axis: int) -> Any:
        return wnp.apply_along_axis(counted(wnp), axis, a)

    with jax.enable_x64(x64):
        for (shape, axis), weak in itertools.product(SHAPES, (False, True)):
            x = jnp.asarray(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
            arg = jax.ShapeDtypeStruct(shape, jnp.float32, weak_type=weak)
            want = jax.eval_shape(functools.partial(jax_fn, axis=axis), arg)
            calls.clear()
            got = wt.trace(functools.partial(wt_fn, axis=axis)).trace(arg)
            assert len(calls) == 1, (shape, axis, len(calls))
            aval = got.out_avals
            assert (aval.shape, aval.dtype, aval.weak_type) == (
                want.shape,
                want.dtype,
                want.weak_type,
            ), (shape, axis, weak)
            ref = jax.jit(functools.partial(jax_fn, axis=axis))(x)
            calls.clear()
            eager = wt_fn(x, axis)
            assert len(calls) == 1
            traced = wt.trace(functools.partial(wt_fn, axis=axis))(x)
            for out in (eager, traced):
                assert out.dtype == ref.dtype and out.shape == ref.shape
                np.testing.assert_allclose(np.asarray(out), np.asarray(ref), rtol=1e-6)
