"""Bugs found by running jax's own tests/lax_numpy_{einsum,ufuncs,vectorize,setops,
indexing,reducers,operators}_test.py (jax v0.10.2) with ``jax.numpy`` and ``jax.lax``
swapped for weaktrace's mirrors. Each is checked here against jax, computed at test time."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.numpy as wnp
from tests.mirror_harness import check

# -- lax.dtype of a dtype-like ---------------------------------------------------------
# lax_numpy_indexing_test calls ``lax.dtype(np.float32)`` while collecting its cases;
# weaktrace's lax.dtype took only values (InvalidInputError), so the file did not load.

DTYPE_LIKES = [np.float32, np.float64, np.int64, np.uint16, float, int, bool, complex,
               "int8", "float64", "bfloat16", np.dtype("uint16"), jnp.bfloat16, 3, 2.5,
               np.int8(3), np.ones(2, np.float64)]  # fmt: skip


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("spec", DTYPE_LIKES, ids=repr)
def test_lax_dtype_takes_dtype_likes_as_jax_does(spec, x64):
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert wlax.dtype(spec) == jax.lax.dtype(spec)


def test_lax_dtype_of_none_is_jaxs_error():
    with pytest.raises(ValueError) as theirs:
        jax.lax.dtype(None)
    with pytest.raises(ValueError, match=str(theirs.value)):
        wlax.dtype(None)


# -- jax_numpy_rank_promotion ------------------------------------------------------------
# weaktrace ignored jax's rank-promotion setting: under ``jax.numpy_rank_promotion('raise')``
# (the mode every jax test runs in) ``add(f32[3,4], f32[4])`` broadcast silently where
# jax raises ValueError, and "warn" gave no warning. vectorize_test's
# test_rank_promotion_error found it.

M, V = np.ones((3, 4), np.float32), np.arange(4, dtype=np.float32)
RANK_CASES = {
    "add": (lambda m: m.add, (M, V)),
    "operator": (lambda m: lambda x, y: x * y, (M, V)),
    "arctan2": (lambda m: m.arctan2, (M, V)),
    "divide": (lambda m: m.divide, (M, V)),
    "fmax": (lambda m: m.fmax, (M, V)),
    "fmin": (lambda m: m.fmin, (V, M)),
    "allclose": (lambda m: m.allclose, (M, V)),
    "where": (lambda m: m.where, (M > 0, M, V)),
    "scalar": (lambda m: m.subtract, (M, np.float32(2))),  # rank 0: no promotion
    "vectorize": (lambda m: m.vectorize(m.add, signature="(),()->()"), (M, V)),
    "vectorize_core": (lambda m: m.vectorize(m.dot, signature="(n),(n)->()"), (M, V)),
}


@pytest.mark.parametrize("mode", ["raise", "allow"])
@pytest.mark.parametrize("name", sorted(RANK_CASES))
def test_rank_promotion_setting_is_followed(name, mode):
    """Error or result as jax's: eager and traced (``check`` runs weaktrace eagerly and
    under weaktrace.trace, jax eagerly and under jax.jit)."""
    make, args = RANK_CASES[name]
    with jax.numpy_rank_promotion(mode):
        check(make(wnp), make(jnp), *args, context=f"{name} {mode}")


def _warned(fn, *args):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fn(*args)
    return [str(w.message) for w in seen if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("name", ["add", "vectorize"])
def test_rank_promotion_warns_as_jax_does(name):
    make, _ = RANK_CASES[name]
    a, b = np.ones((2, 5), np.float32), np.ones(5, np.float32)  # shapes no other test uses
    with jax.numpy_rank_promotion("warn"):
        theirs = _warned(make(jnp), a, b)
        ours = _warned(make(wnp), a, b)
        traced = _warned(wt.trace(make(wnp)), np.ones((2, 6), np.float32), np.ones(6))
    assert theirs and all("rank promotion" in m for m in theirs)
    assert ours and all("rank promotion" in m for m in ours)
    assert traced and all("rank promotion" in m for m in traced)


COMPOSITES = {
    "var": lambda m: lambda x: m.var(x, axis=0),
    "std": lambda m: lambda x: m.std(x, axis=1, keepdims=True),
    "average": lambda m: lambda x: m.average(x, axis=1, weights=x[0]),
    "interp": lambda m: lambda x: m.interp(x, x[0], x[1]),
    "polyval": lambda m: lambda x: m.polyval(x[0], x),
    "percentile": lambda m: lambda x: m.percentile(x, 30.0, axis=0),
    "norm": lambda m: lambda x: m.linalg.norm(x, axis=1),
    "array_equiv_same": lambda m: lambda x: m.array_equiv(x, x),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_rank_promotion_raise_leaves_composites_alone(name):
    """A mirror built from others whose parts broadcast inside it with equal ranks
    runs under 'raise' as jax's does (rank promotion inside one: regressions_g)."""
    x = (np.arange(12, dtype=np.float32).reshape(3, 4) % 5) + 1
    with jax.numpy_rank_promotion("raise"):
        check(COMPOSITES[name](wnp), COMPOSITES[name](jnp), x, rtol=1e-4, context=name)


# -- einsum's refusal words ------------------------------------------------------------


def test_einsum_three_operand_step_is_refused_in_jaxs_words():
    """einsum_test's test_einsum_unsupported_optimization matches jax's sentence."""
    arrs = [np.ones(s, np.float32) for s in [(2, 3), (2, 4), (2, 5)]]
    with pytest.raises(NotImplementedError) as theirs:
        jnp.einsum("ij,ik,il->jkl", *arrs, optimize=[(0, 1, 2)])
    with pytest.raises(NotImplementedError) as ours:
        wnp.einsum("ij,ik,il->jkl", *arrs, optimize=[(0, 1, 2)])
    assert str(ours.value).startswith(str(theirs.value).split(" operands")[0])


# -- mirrors inline into a caller's jax trace ----------------------------------------------
# reducers_test's testReducerF16Casts/testMeanF16Casts read the equations of
# ``jax.make_jaxpr(jnp.sum)``: jax.numpy's functions are ``jit(inline=True)``, so their
# primitives sit in the caller's jaxpr; weaktrace's eager path left one nested ``jit``.


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["sum", "prod", "mean"])
def test_eager_mirror_is_inlined_under_make_jaxpr(name, dtype):
    x = jnp.ones(10, dtype)
    for kw in ({}, {"dtype": dtype}):
        ours = jax.make_jaxpr(lambda a: getattr(wnp, name)(a, **kw))(x)  # noqa: B023
        theirs = jax.make_jaxpr(lambda a: getattr(jnp, name)(a, **kw))(x)  # noqa: B023
        assert [e.primitive for e in ours.eqns] == [e.primitive for e in theirs.eqns], kw


# -- complex max/min identities ---------------------------------------------------------
# ufuncs_test's test_binary_ufunc_reduce_initial printed a numpy ComplexWarning from
# weaktrace's lowering: the identity of a complex max/min was cast to float32 to ask
# whether it is infinite. jax warns nothing.

COMPLEX_REDUCTIONS = {
    "max": lambda m, x: m.max(x),
    "min": lambda m, x: m.min(x, axis=0),
    "maximum.reduce": lambda m, x: m.maximum.reduce(x, initial=0),
    "minimum.reduce": lambda m, x: m.minimum.reduce(x, axis=None),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_REDUCTIONS))
def test_complex_max_min_reductions_warn_nothing(name):
    x = np.array([[1 + 2j, 3 - 1j], [-2 + 0j, 3 + 5j]], np.complex64)
    fn = COMPLEX_REDUCTIONS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        theirs = fn(jnp, x)
        ours = fn(wnp, x)
        traced = wt.trace(lambda a: fn(wnp, a))(x)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(traced, theirs)
