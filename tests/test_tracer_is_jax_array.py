"""A weaktrace tracer is a ``jax.Array`` (issue #14), as jax's tracers are under jax.jit.

jax documents that ``isinstance(x, jax.Array)`` holds inside and outside traced
functions; array filters (equinox's ``is_array``, flax's) rely on it. The tracer
subclasses jax.Array, whose base class defines placement attributes (``sharding``,
``devices``' shards ...) that raise a bare NotImplementedError: every attribute of
jax.Array is the tracer's own, and each answers as jax.jit's tracer does (the oracle:
jax.jit run at test time).
"""

from __future__ import annotations

import pickle
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
from weaktrace.core.trace import Tracer
from weaktrace.errors import WeaktraceError

X = np.arange(1.0, 5.0, dtype=np.float32)
X64 = pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])


def _seen_under_jit_and_trace(look: Any, x64: bool) -> tuple[Any, Any]:
    """What `look(x)` gives for the traced value inside jax.jit and inside weaktrace.trace."""
    seen: dict[str, Any] = {}

    def probe(who: str) -> Any:
        def f(x: Any) -> Any:
            seen[who] = look(x)
            return x

        return f

    with jax.enable_x64(x64):
        jax.jit(probe("jax"))(X)
        wt.trace(probe("wt"))(X)
    return seen["wt"], seen["jax"]


@X64
def test_isinstance_inside_a_trace_as_under_jit(x64: bool) -> None:
    classes = (jax.Array, wt.numpy.ndarray, jnp.ndarray)
    got, want = _seen_under_jit_and_trace(lambda x: [isinstance(x, c) for c in classes], x64)
    assert got == want == [True, True, True]


@X64
def test_a_jax_array_is_still_a_weaktrace_ndarray(x64: bool) -> None:
    with jax.enable_x64(x64):
        a = jnp.asarray(X)
        assert isinstance(a, wt.numpy.ndarray)
        assert not isinstance(X, wt.numpy.ndarray)  # as jnp.ndarray: numpy arrays are not
        assert isinstance(X, jnp.ndarray) == isinstance(X, wt.numpy.ndarray)


_OWN = {"__weakref__", "__slots__", "__module__", "__doc__", "__dict__"}


def test_every_jax_array_attribute_is_the_tracers() -> None:
    """Nothing reaches jax.Array's base class (a new jax attribute fails here)."""
    inherited = []
    for name in dir(jax.Array):
        if name in _OWN or (name in object.__dict__ and name not in jax.Array.__dict__):
            continue
        owner = next(c for c in Tracer.__mro__ if name in c.__dict__)
        if owner is not Tracer:
            inherited.append((name, owner))
    assert not inherited


def _attempt(x: Any, name: str) -> Any:
    """Read the attribute; call it if it is one of the placement methods."""
    value = getattr(x, name)
    if name == "addressable_data":
        return value(0)
    return value


_REFUSED = [
    "sharding",
    "device",
    "copy_to_host_async",
    "committed",
    "addressable_shards",
    "global_shards",
    "is_fully_addressable",
    "is_fully_replicated",
    "addressable_data",
]


@X64
@pytest.mark.parametrize("name", _REFUSED)
def test_placement_attributes_refuse_as_jax_jit_does(name: str, x64: bool) -> None:
    """jax.jit's tracer raises AttributeError (so hasattr is False) or a
    ConcretizationTypeError; ours raises a named error of that class."""
    errors: dict[str, BaseException] = {}

    def probe(key: str) -> Any:
        def f(x: Any) -> Any:
            try:
                _attempt(x, name)
            except Exception as e:
                errors[key] = e
            return x

        return f

    with jax.enable_x64(x64):
        jax.jit(probe("jax"))(X)
        wt.trace(probe("wt"))(X)
    assert "jax" in errors and "wt" in errors
    want = AttributeError if isinstance(errors["jax"], AttributeError) else type(errors["jax"])
    assert isinstance(errors["wt"], want), (errors["wt"], errors["jax"])
    assert isinstance(errors["wt"], WeaktraceError)


@X64
def test_hasattr_answers_as_under_jit(x64: bool) -> None:
    names = ("sharding", "device", "copy_to_host_async", "__numpy_dtype__", "aval", "dtype")
    got, want = _seen_under_jit_and_trace(lambda x: [hasattr(x, n) for n in names], x64)
    assert got == want


_COMPUTED = {
    "to_device": lambda x: x.to_device(jax.devices()[0]) * 2,
    "_split": lambda x: x._split([1, 3]),
    "_multi_slice": lambda x: x._multi_slice(((0,), (1,)), ((2,), (2,)), ((), (0,))),
    "np.dtype": lambda x: jnp.zeros(2, np.dtype(x)),
    "isscalar": lambda x: jnp.asarray(jnp.isscalar(x)),
}


@X64
@pytest.mark.parametrize("name", sorted(_COMPUTED))
def test_jax_array_methods_compute_as_under_jit(name: str, x64: bool) -> None:
    fn = _COMPUTED[name]
    with jax.enable_x64(x64):
        want = jax.jit(fn)(X)
        got = wt.trace(fn)(X)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@X64
def test_jax_functions_reading_placement_refuse_by_name(x64: bool) -> None:
    """jnp.zeros_like reads ``x.sharding`` of a jax.Array that is not jax's tracer: the
    base class's NotImplementedError must not escape (weaktrace's zeros_like computes)."""
    with jax.enable_x64(x64):
        got = wt.trace(lambda x: jnp.zeros_like(x) + x)(X)
        want = jax.jit(lambda x: jnp.zeros_like(x) + x)(X)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert got.dtype == want.dtype


def test_pickling_a_tracer_is_refused_by_name() -> None:
    with pytest.raises(wt.ConcretizationError, match="pickling a tracer"):
        wt.trace(lambda x: pickle.dumps(x) and x)(X)


@X64
def test_a_tracer_passed_to_a_nested_trace(x64: bool) -> None:
    """A tracer is no concrete jax array to the nested trace's argument handling."""
    with jax.enable_x64(x64):
        got = wt.trace(lambda a: wt.trace(lambda b: b * 2)(a) + 1)(X)
        want = jax.jit(lambda a: jax.jit(lambda b: b * 2)(a) + 1)(X)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert got.dtype == want.dtype
