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


# -- a traced size is refused in jax's words ---------------------------------------------
# lax_numpy_test's test_tri_bug_22751 matches jax's message for jax.jit(jnp.tri)(3, M=3,
# k=0); weaktrace's tri, eye, identity and reshape let a traced size fail in __index__
# (another message), and under weaktrace.trace reshape's refusal was turned into a
# ForeignFunctionError, as if a jax function had been called.

TRACED_SIZES = {
    "tri": lambda m: lambda n: m.tri(n, M=3, k=0),
    "tri M": lambda m: lambda n: m.tri(3, M=n),
    "eye": lambda m: lambda n: m.eye(n),
    "eye M": lambda m: lambda n: m.eye(3, n),
    "identity": lambda m: lambda n: m.identity(n),
    "reshape": lambda m: lambda n: m.reshape(m.ones(6), (n, -1)),
    "reshape int": lambda m: lambda n: m.reshape(m.ones(6), n),
    "zeros": lambda m: lambda n: m.zeros((n, 2)),
}


def _first_line(err: BaseException) -> str:
    return str(err).split(", got")[0]


@pytest.mark.parametrize("name", sorted(TRACED_SIZES))
def test_a_traced_size_is_a_type_error_in_jaxs_words(name: str) -> None:
    with pytest.raises(TypeError) as want:
        jax.jit(TRACED_SIZES[name](jnp))(3)
    assert _first_line(want.value).startswith("Shapes must be 1D sequences")
    for run in (jax.jit, wt.trace):
        with pytest.raises(TypeError) as got:
            run(TRACED_SIZES[name](wnp))(3)
        assert not isinstance(got.value, wt.ForeignFunctionError), name
        assert _first_line(got.value) == _first_line(want.value), (run, name)


# -- bad inputs get named errors (a fuzz of every function with None / str / dict) ---------


@pytest.mark.parametrize(
    "call",
    [lambda m: m.clip(None), lambda m: m.clip(None, 0), lambda m: m.lexsort({"a": 1})],
    ids=["clip None", "clip None min", "lexsort dict"],
)
def test_bad_inputs_raise_jaxs_error_class_not_an_internal_crash(call: Any) -> None:
    """clip(None) crashed with IndexError (list index out of range), lexsort of a dict
    with KeyError; jax raises ValueError and TypeError."""
    with pytest.raises(Exception) as want:
        call(jnp)
    with pytest.raises(wt.WeaktraceError) as got:
        call(wnp)
    assert isinstance(got.value, type(want.value))
