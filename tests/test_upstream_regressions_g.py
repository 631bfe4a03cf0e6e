"""Bugs found by sweeping weaktrace.numpy against jax.numpy under
``jax.numpy_rank_promotion('raise')`` (the mode jax's own tests run in), by PRNG key
arrays in comparisons, and by jax's tests/lax_numpy_test.py and lax_scipy_test.py
(jax v0.10.2) with jax.numpy / jax.lax / jax.scipy.special swapped for weaktrace's.
Each expected answer is jax's, computed at test time."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.mirror_harness import check

# -- rank promotion inside a mirror ---------------------------------------------------------
# jax checks jax_numpy_rank_promotion in every call jax.numpy makes, also the ones one
# function makes inside another: under 'raise' jnp.clip(f32[3,4], f32[4]) raises (its
# ``maximum``), as do cov, linspace (its ``stop - start``) and the functions jax builds
# with jnp.vectorize (vecdot, matvec, linalg.solve). weaktrace checked only the user's
# own call, so these broadcast silently. Checking every call made weaktrace's own
# helpers raise where they broadcast internally (searchsorted, digitize, histogram,
# ufunc.outer): those now broadcast explicitly. Found by a sweep of every function
# with operands of different ranks, compared with jax raise for raise.

M = (np.arange(12, dtype=np.float32).reshape(3, 4) % 5) + 1
V = np.arange(1, 5, dtype=np.float32)
T = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7
SQ = np.eye(4, dtype=np.float32)[None].repeat(3, 0) * 2

INSIDE = {
    "clip": (lambda m: lambda x, y: m.clip(x, y, 3.0), (M, V)),
    "clip_min_kw": (lambda m: lambda x, y: m.clip(x, min=y), (M, V)),
    "fmin": (lambda m: m.fmin, (M, V)),
    "cov": (lambda m: m.cov, (M, V)),
    "cov_swapped": (lambda m: m.cov, (V, M)),
    "corrcoef": (lambda m: m.corrcoef, (M, V)),
    "linspace": (lambda m: lambda x, y: m.linspace(x, y, 5), (M, V)),
    "linspace_one_open": (lambda m: lambda x, y: m.linspace(x, y, 1, endpoint=False), (M, V)),
    "linspace_one": (lambda m: lambda x, y: m.linspace(x, y, 1), (M, V)),
    "logspace": (lambda m: lambda x, y: m.logspace(x, y, 4), (V, M)),
    "vecdot": (lambda m: m.vecdot, (M, V)),
    "linalg_vecdot": (lambda m: m.linalg.vecdot, (T, M)),
    "matvec": (lambda m: m.matvec, (M, M)),
    "vecmat": (lambda m: m.vecmat, (M, M.T)),
    "solve_vector": (lambda m: m.linalg.solve, (SQ, V)),
    # weaktrace's own helpers that broadcast internally, which jax's do not:
    "array_equiv": (lambda m: m.array_equiv, (M, V)),
    "array_equiv_unbroadcastable": (lambda m: m.array_equiv, (V[:2], M.T[:2])),
    "searchsorted": (lambda m: m.searchsorted, (V, M)),
    "digitize": (lambda m: m.digitize, (M, V)),
    "histogram_bins": (lambda m: lambda x, y: m.histogram(x, bins=y)[0], (M, V)),
    "add_outer": (lambda m: m.add.outer, (M, V)),
}


ALLOWED_TOO = ["array_equiv_unbroadcastable", "clip", "linspace", "vecdot", "solve_vector",
               "array_equiv", "searchsorted",
               "digitize", "histogram_bins", "add_outer"]  # fmt: skip
MODES = [(n, "raise") for n in sorted(INSIDE)] + [(n, "allow") for n in ALLOWED_TOO]


@pytest.mark.parametrize(("name", "mode"), MODES)
def test_rank_promotion_is_checked_inside_mirrors_as_in_jax(name, mode):
    make, args = INSIDE[name]
    with jax.numpy_rank_promotion(mode), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(make(wnp), make(jnp), *args, rtol=1e-4, atol=1e-5, context=f"{name} {mode}")


def test_rank_promotion_inside_a_mirror_raises_a_value_error():
    """The class jax raises (weaktrace's RankPromotionError subclasses ValueError)."""
    with jax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError):
            jnp.clip(M, V, 3.0)
        with pytest.raises(ValueError, match="rank promotion"):
            wnp.clip(M, V, 3.0)
        with pytest.raises(ValueError, match="rank promotion"):
            wt.trace(lambda x, y: wnp.linspace(x, y, 3))(M, V)


def test_rank_promotion_warns_inside_a_mirror_as_jax_does():
    def warned(fn):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fn(M, V, 3.0)
        return [w for w in seen if "rank promotion" in str(w.message)]

    with jax.numpy_rank_promotion("warn"):
        assert warned(jnp.clip)
        assert warned(wnp.clip)


# -- PRNG key arrays in comparisons ----------------------------------------------------
# jax compares typed key arrays (dtype key<fry>) by their key data: jnp.equal/not_equal
# are ``eq``/``ne`` on the keys, isclose/allclose are ``eq``, isnan is ``ne(x, x)``, and
# zeros_like/ones_like/full_like/empty_like give key arrays wrapping filled data.
# weaktrace's eq/ne refused the key dtype (OperandTypeError), isclose reached abs, and
# the *_like functions and iscomplexobj asked numpy to read key<fry>.


def _keys():
    a = jax.random.split(jax.random.key(0), 4)
    b = jax.random.split(jax.random.key(1), 4).at[1].set(a[1]).at[3].set(a[3])
    return a, b


def _plain(x):
    """Key arrays as their key data, everything else as numpy."""
    if isinstance(x, bool):
        return x
    if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
        return ("key", str(x.dtype), np.asarray(jax.random.key_data(x)))
    return ("array", str(x.dtype), np.asarray(x))


KEY_FNS = {
    "equal": lambda m: m.equal,
    "not_equal": lambda m: m.not_equal,
    "operator_eq": lambda m: lambda x, y: x == y,
    "isclose": lambda m: m.isclose,
    "allclose": lambda m: m.allclose,
    "array_equal": lambda m: m.array_equal,
    "array_equiv": lambda m: m.array_equiv,
    "isnan": lambda m: lambda x, y: m.isnan(x),
    "zeros_like": lambda m: lambda x, y: m.zeros_like(x),
    "ones_like": lambda m: lambda x, y: m.ones_like(x, shape=(2, 3)),
    "empty_like": lambda m: lambda x, y: m.empty_like(x),
    "full_like": lambda m: lambda x, y: m.full_like(y, 7),
    "zeros_like_float": lambda m: lambda x, y: m.zeros_like(x, dtype="float32"),
}


@pytest.mark.parametrize("name", sorted(KEY_FNS))
def test_key_arrays_compare_as_in_jax(name):
    a, b = _keys()
    theirs = _plain(KEY_FNS[name](jnp)(a, b))
    theirs_jit = _plain(jax.jit(KEY_FNS[name](jnp))(a, b))
    for ours in (KEY_FNS[name](wnp)(a, b), wt.trace(KEY_FNS[name](wnp))(a, b)):
        got = _plain(ours)
        for want in (theirs, theirs_jit):
            assert got[:2] == want[:2], (name, got, want)
            np.testing.assert_array_equal(got[2], want[2])


@pytest.mark.parametrize("fn", ["iscomplexobj", "isrealobj"])
def test_key_arrays_have_no_complex_dtype(fn):
    a, _ = _keys()
    assert getattr(wnp, fn)(a) == getattr(jnp, fn)(a)


def test_keys_of_other_kinds_still_do_not_compare():
    """A key against an integer, or ordered, raises TypeError in jax and in weaktrace."""
    a, _ = _keys()
    for bad in (lambda m: m.equal(a, 3), lambda m: m.less(a, a), lambda m: m.isclose(a, 1)):
        with pytest.raises(TypeError):
            bad(jnp)
        with pytest.raises(TypeError):
            bad(wnp)


# -- lax_numpy_test ------------------------------------------------------------------------
# testArrayEquivExamples: array_equiv of shapes of different ranks that do not broadcast
# ((2,) against (2, 4), under 'allow') is False in jax (its broadcast is a ValueError it
# catches); weaktrace raised ShapeError. Covered by array_equiv_unbroadcastable above.


def test_broadcast_shapes_takes_a_shape_given_as_an_array():
    """testBroadcastShapes6: ``broadcast_shapes((1,), np.array([0, 1]))``."""
    args = ((1,), np.array([0, 1]))
    assert wnp.broadcast_shapes(*args) == jnp.broadcast_shapes(*args)


def test_iscomplexobj_of_a_list_of_jax_tracers():
    """testIsComplexObj: a list of values jax.jit traces (no numpy value to read)."""
    x = np.ones(3, np.complex64)
    for fn in ("iscomplexobj", "isrealobj"):
        theirs = jax.jit(lambda v, f=fn: getattr(jnp, f)([v[0], v[1]]))(x)
        assert jax.jit(lambda v, f=fn: getattr(wnp, f)([v[0], v[1]]))(x) == theirs


RAISE_MODES = {
    "choose": lambda m: lambda a: m.choose(a, [np.ones(4), np.zeros(4)], mode="raise"),
    "ravel_multi_index": lambda m: lambda a: m.ravel_multi_index((a, a), (2, 2), mode="raise"),
}


@pytest.mark.parametrize("name", sorted(RAISE_MODES))
def test_mode_raise_under_jax_jit_is_jaxs_concretization_error(name):
    """testChoose/testRavelMultiIndex: jax.jit of an eager call with mode='raise' is a
    ConcretizationTypeError naming the function (weaktrace: numpy's conversion error)."""
    a = np.array([0, 1, 1, 0], np.int32)
    with pytest.raises(jax.errors.ConcretizationTypeError) as theirs:
        jax.jit(RAISE_MODES[name](jnp))(a)
    with pytest.raises(jax.errors.ConcretizationTypeError) as ours:
        jax.jit(RAISE_MODES[name](wnp))(a)
    want = str(theirs.value).split("The error occurred because ")[1].split(".")[0]
    assert want in str(ours.value)


ARANGE_ARGS = {"stop": lambda m: m.arange, "start": lambda m: lambda s: m.arange(s, 3),
               "step": lambda m: lambda s: m.arange(0, 3, s)}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ARANGE_ARGS))
def test_arange_of_a_jax_tracer_names_the_argument(name):
    """testArangeConcretizationError: jax.jit(jnp.arange)(3) is a ConcretizationTypeError
    'It arose in the jnp.arange argument ...'; weaktrace hit operator.index."""
    with pytest.raises(jax.errors.ConcretizationTypeError, match=f"argument '{name}'"):
        jax.jit(ARANGE_ARGS[name](jnp))(1)
    with pytest.raises(jax.errors.ConcretizationTypeError, match=f"argument '{name}'"):
        jax.jit(ARANGE_ARGS[name](wnp))(1)
    with pytest.raises(jax.errors.ConcretizationTypeError, match=f"argument '{name}'"):
        wt.trace(ARANGE_ARGS[name](wnp))(1)


SPLITS = {
    "tracer": lambda m: lambda i: m.split(m.zeros((12, 2)), i),
    "list": lambda m: lambda i: m.split(m.zeros((12, 2)), (1, i.astype(np.int32))),
}


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_split_at_a_jax_tracer(name):
    """testSplitTypeError: jax.jit's tracer is jax's 'Abstract tracer value' error; a
    concrete one (jax.jvp of a constant) and a float count of 2.0 split as in jax."""
    with pytest.raises(TypeError, match="Abstract tracer value encountered"):
        jax.jit(SPLITS[name](jnp))(2.0)
    with pytest.raises(TypeError, match="Abstract tracer value encountered"):
        jax.jit(SPLITS[name](wnp))(2.0)
    theirs = jax.jvp(SPLITS[name](jnp), (2.0,), (1.0,))[0]
    ours = jax.jvp(SPLITS[name](wnp), (2.0,), (1.0,))[0]
    assert [p.shape for p in ours] == [p.shape for p in theirs]


# Helpers that broadcast ranks internally (found once every call was checked: jax's
# lax_numpy_test testArgpartition, and a sweep of composites under 'raise').
INTERNAL = {
    "argpartition": (lambda m, nn: lambda x: m.argpartition(x, 2), T),
    "partition": (lambda m, nn: lambda x: m.partition(x, 1, axis=1), T),
    "causal_attention": (lambda m, nn: lambda x: nn.dot_product_attention(x, x, x, is_causal=True),
                         T[None]),
    "window_attention": (lambda m, nn: lambda x: nn.dot_product_attention(
        x, x, x, local_window_size=(1, 1)), T[None]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(INTERNAL))
def test_helpers_need_no_rank_promotion_under_raise(name):
    import weaktrace.nn as wnn

    make, x = INTERNAL[name]
    with jax.numpy_rank_promotion("raise"):
        check(make(wnp, wnn), make(jnp, jax.nn), x, rtol=1e-4, atol=1e-5, context=name)
