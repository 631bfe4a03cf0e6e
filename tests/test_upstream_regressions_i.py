"""Bugs found by more of jax's own test files (jax v0.10.2) run with jax.numpy / jax.lax /
jax.scipy swapped for weaktrace's (polynomial_test.py, jax_numpy_error_test.py, ...), and
by a sweep of the four-way calls under strict promotion. Expected answers come from jax,
computed at test time."""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.nn as wnn
import weaktrace.numpy as wnp


def _outcome(fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        out = fn(*args, **kwargs)
    except Exception as err:  # compared with jax's
        return err
    return (out.dtype, out.shape, np.asarray(out))


def _same(ref: Any, got: Any) -> None:
    if isinstance(ref, Exception):
        assert isinstance(got, Exception), f"jax raised {ref!r}, weaktrace gave {got}"
        assert (
            isinstance(got, type(ref))
            or type(ref) in type(got).__mro__
            or (isinstance(ref, NotImplementedError) and isinstance(got, NotImplementedError))
        ), (ref, got)
        return
    assert not isinstance(got, Exception), f"weaktrace raised {got!r}; jax gave {ref[:2]}"
    assert got[:2] == ref[:2]
    # roots come in no defined order: compare them as sorted sets
    np.testing.assert_allclose(np.sort_complex(got[2]), np.sort_complex(ref[2]), rtol=1e-4,
                               atol=1e-5)  # fmt: skip


# -- jnp.roots under strict promotion ----------------------------------------------------
# weaktrace computed roots' complex dtype with result_type(p, complex64), a promotion that
# strict mode refuses: jnp.roots(float32) raised TypePromotionError where jax casts
# (dtypes.to_complex_dtype). Found by polynomial_test.py testRoots, which runs strict.

COEFFS = [[1, 2, 0, 3], [0, 0, 1, 0, 2]]


@pytest.mark.parametrize("dtype", ["int32", "float32", "complex64"])
@pytest.mark.parametrize("x64", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["x32", "x64"])  # fmt: skip
@pytest.mark.ci_sample(2)
def test_roots_dtype_is_a_cast_not_a_promotion(dtype: str, x64: bool) -> None:
    with jax.enable_x64(x64), jax.numpy_dtype_promotion("strict"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for c in COEFFS:
            p = np.array(c, dtype)
            _same(_outcome(jnp.roots, p), _outcome(wnp.roots, p))
        traced = wt.trace(lambda q: wnp.roots(q, strip_zeros=False))
        ref = jax.jit(lambda q: jnp.roots(q, strip_zeros=False))
        _same(_outcome(ref, p), _outcome(traced, p))


# -- aliases are functions of their own name ---------------------------------------------
# jnp.acos is not jnp.arccos: each alias is its own function, named by its own name, and
# code names cases by ``f.__name__`` (jax_numpy_error_test.py builds test names from it;
# weaktrace's acos was arccos itself, so the generated names collided).

# jax's own wrapping gives this one another name; weaktrace's keeps the public one
NAME_EXCEPTIONS = {("jax.lax", "random_gamma_grad"): "jax's is named up_and_broadcast"}


@pytest.mark.parametrize(
    "ours, theirs",
    [(wnp, jnp), (wlax, jax.lax), (wnn, jax.nn), (wnp.linalg, jnp.linalg), (wnp.fft, jnp.fft)],
    ids=["numpy", "lax", "nn", "linalg", "fft"],
)
def test_public_functions_carry_jax_names(ours: Any, theirs: Any) -> None:
    wrong = []
    for name in dir(theirs):
        ref = getattr(theirs, name)
        got = getattr(ours, name, None)
        if name.startswith("_") or got is None or isinstance(ref, type) or not callable(ref):
            continue
        if (theirs.__name__, name) in NAME_EXCEPTIONS:
            continue
        if getattr(got, "__name__", None) != getattr(ref, "__name__", None):
            wrong.append(f"{name}: {getattr(got, '__name__', None)} != {ref.__name__}")
    assert not wrong, wrong


def test_alias_twins_compute_as_their_targets() -> None:
    x = np.linspace(-0.9, 0.9, 5, dtype=np.float32)
    for alias, target in [("acos", "arccos"), ("abs", "absolute"), ("pow", "power"),
                          ("mod", "remainder"), ("atan2", "arctan2")]:  # fmt: skip
        a, t = getattr(wnp, alias), getattr(wnp, target)
        assert a is not t
        args = (x,) if alias in {"acos", "abs"} else (x, np.float32(0.5))
        np.testing.assert_array_equal(np.asarray(a(*args)), np.asarray(t(*args)))
        f = wt.trace(lambda *v, a=a: a(*v))
        g = jax.jit(lambda *v, alias=alias: getattr(jnp, alias)(*v))
        assert f(*args).dtype == g(*args).dtype
        np.testing.assert_allclose(np.asarray(f(*args)), np.asarray(g(*args)), rtol=1e-6)


# -- strict promotion: weaktrace's own helpers must not promote where jax's do not -------
# A sweep of the four-way calls (tests/test_eager_traced.py) under
# jax.numpy_dtype_promotion('strict') found weaktrace raising where jax does not:
# packbits(bool) compared the bools with a Python 0 (jax casts); array_equiv of two
# dtypes without a strict path raised (jax's ``equal`` raises TypePromotionError, a
# ValueError, which array_equiv catches: False); and i0 of a weak value lost its weak
# flag (in both modes: a strong 0 in its select). CI checks a sample; --run-slow all.


def _strict_outcomes(call: Any, x64: bool) -> tuple[Any, Any]:
    from tests.test_eager_traced import INPUTS

    def run(xnp: Any, args: list[Any]) -> Any:
        try:
            out = call.fn(xnp, *args)
        except Exception as err:  # compared with jax's
            return err
        return [jnp.asarray(o) for o in jax.tree_util.tree_leaves(out)]

    with jax.enable_x64(x64), jax.numpy_dtype_promotion("strict"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = [INPUTS[i]() for i in call.inputs]
        return run(jnp, args), run(wnp, args)


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_four_way_calls_under_strict_promotion(x64: bool, full: bool) -> None:
    import random

    from tests.test_eager_traced import CALLS, differ, family

    calls = CALLS if full else random.Random(f"strict-{x64}").sample(CALLS, 40)
    must = [c for c in CALLS if c.name in {"packbits", "array_equiv", "i0"}]
    bad = []
    for call in [*calls, *(c for c in must if c not in calls)]:
        ref, got = _strict_outcomes(call, x64)
        if isinstance(ref, Exception) or isinstance(got, Exception):
            if not (isinstance(ref, Exception) and isinstance(got, Exception)):
                bad.append(f"{call.id}: jax {ref!r:.80} / weaktrace {got!r:.160}")
            elif not family(ref) & family(got):
                bad.append(f"{call.id}: jax raised {type(ref)}, weaktrace {type(got)}")
            continue
        d = differ(ref, got)
        if d:
            bad.append(f"{call.id}: {d}")
    assert not bad, "\n".join(bad)


# -- vectorize called eagerly compiles once ---------------------------------------------
# Eagerly, weaktrace.numpy.vectorize mapped with a fresh lax.scan body on every call, which
# jax compiled anew each time (jax's vmap dispatches cached primitives): a repeated call
# compiled again. Found by jax's scipy_spatial_test (its kernels are vectorized).

VECTORIZED = {
    "signature": (lambda m: m.vectorize(lambda a, b: m.dot(a, b) * 0.5, signature="(n),(n)->()"),
                  lambda: (np.ones((4, 3), np.float32), np.arange(3, dtype=np.float32))),
    "scalar": (lambda m: m.vectorize(lambda a, b: m.where(a > b, a, b - 1)),
               lambda: (np.arange(6, dtype=np.int16).reshape(2, 3), 2)),
    "two_outputs": (lambda m: m.vectorize(lambda a: (m.sum(a), m.max(a)), signature="(k)->(),()"),
                    lambda: (np.linspace(0, 1, 10, dtype=np.float32).reshape(2, 5),)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(VECTORIZED))
def test_vectorize_repeated_eager_call_compiles_nothing(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jax._src import dispatch
    from jax._src import util as jax_util

    events: list[str] = []  # jax's test events (what jax's test_util counts lowerings by)
    monkeypatch.setattr(jax_util, "test_event_listener", lambda name, *a: events.append(name))
    make, args = VECTORIZED[name]
    ours, ref = make(wnp), make(jnp)
    want, got = ref(*args()), ours(*args())
    for w, g in zip(jax.tree_util.tree_leaves(want), jax.tree_util.tree_leaves(got), strict=True):
        assert (g.dtype, g.shape, g.weak_type) == (w.dtype, w.shape, w.weak_type)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    assert "lower_jaxpr_to_module" in events  # the listener sees jax's lowerings
    misses = dispatch.xla_primitive_callable.cache_info().misses
    events.clear()
    ours(*args())
    assert "lower_jaxpr_to_module" not in events
    assert dispatch.xla_primitive_callable.cache_info().misses == misses


# -- lax.linalg.eigh's options ------------------------------------------------------------
# weaktrace.lax.linalg.eigh refused sort_eigenvalues=False, implementation= and
# subset_by_index with its own NotImplementedError; jax takes them (and XLA refuses on
# CPU what this platform lacks, with jax's words). Found by eigh_test.py swapped.

EIGH_OPTIONS = [
    {},
    {"sort_eigenvalues": False},
    {"implementation": jax.lax.linalg.EighImplementation.QR},
    {"implementation": jax.lax.linalg.EighImplementation.JACOBI},
    {"subset_by_index": (1, 3)},
    {"lower": False, "symmetrize_input": False},
]


def _eigh_outcome(fn: Any, a: Any) -> Any:
    try:
        v, w = fn(a)
    except Exception as err:  # compared with jax's
        return (type(err).__name__, str(err).splitlines()[0])
    return (v.dtype, v.shape, w.dtype, w.shape, np.asarray(w))


@pytest.mark.parametrize("options", EIGH_OPTIONS, ids=lambda o: ",".join(o) or "defaults")
def test_lax_eigh_options_as_jax(options: dict[str, Any]) -> None:
    rng = np.random.RandomState(0)
    a = rng.randn(2, 4, 4).astype(np.float32)
    a = a + a.transpose(0, 2, 1)
    pairs = [
        (lambda x: jax.lax.linalg.eigh(x, **options), lambda x: wlax.linalg.eigh(x, **options)),
        (jax.jit(lambda x: jax.lax.linalg.eigh(x, **options)),
         wt.trace(lambda x: wlax.linalg.eigh(x, **options))),
    ]  # fmt: skip
    for ref_fn, our_fn in pairs:
        ref, got = _eigh_outcome(ref_fn, a), _eigh_outcome(our_fn, a)
        assert got[:-1] == ref[:-1] if len(ref) == 5 else got == ref
        if len(ref) == 5:
            np.testing.assert_allclose(got[-1], ref[-1], rtol=1e-5, atol=1e-5)


# -- array() of a ragged list holding jax arrays -------------------------------------------
# Eagerly, weaktrace.numpy.array([bf16[3] jax array, np.float16 scalar]) raised numpy's
# ValueError (inhomogeneous shape) where jax stacks and raises TypeError; traced it already
# stacked. Found by the four-way calls run in full.


def test_array_of_ragged_list_with_jax_arrays_raises_as_jax() -> None:
    x = jnp.asarray(np.array([0.25, -3.5, 8], jnp.bfloat16))
    for value in ([x, np.float16(-0.75)], [[1, 2], [3]], [x, x], [x[0], np.float16(1)]):
        ref, got = _outcome(jnp.array, value), _outcome(wnp.array, value)
        if isinstance(ref, Exception):
            assert isinstance(got, type(ref)), (ref, got)
        else:
            assert got[:2] == ref[:2]
            np.testing.assert_array_equal(got[2], ref[2])
