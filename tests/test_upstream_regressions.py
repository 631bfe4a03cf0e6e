"""Bugs found outside the per-family suites: by running jax's own upstream test files
(tests/lax_numpy_*_test.py) with ``jax.numpy`` swapped for ``weaktrace.numpy``, and by
realistic programs. Each is checked here against jax, computed at test time, over
generated cases."""

from __future__ import annotations

import itertools
import math
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.mirror_harness import check

SHAPES = [(0,), (1,), (2,), (3, 0), (0, 3), (2, 3)]
DIFFS = [
    ("ediff1d", lambda m, a: m.ediff1d(a)),
    ("ediff1d ends", lambda m, a: m.ediff1d(a, to_end=m.asarray([7, 8], a.dtype), to_begin=3)),
    ("diff", lambda m, a: m.diff(a)),
    ("diff n=3", lambda m, a: m.diff(a, n=3)),
    ("diff axis 0", lambda m, a: m.diff(a, axis=0)),
    ("diff prepend", lambda m, a: m.diff(a, prepend=1, axis=0)),
]


CASES = list(itertools.product(SHAPES, ["int32", "float32", "bool"]))


@pytest.mark.parametrize(("shape", "dtype"), CASES)
def test_differences_of_empty_and_short_arrays_match_jax(shape, dtype, full):
    """An axis shorter than the difference (empty results) slices as Python does: jax's
    lax_numpy_operators_test found ``ediff1d`` of a (0,) array raising a ShapeError.
    CI runs a third of the cases in one x64 mode each; --run-slow runs all in both."""
    i = CASES.index((shape, dtype))
    if not full and (i + i // 3) % 3:
        pytest.skip("CI runs every third case (--run-slow: all)")
    a = (np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(dtype)
    for x64 in (False, True) if full else (bool(i % 2),):
        with jax.enable_x64(x64):
            for label, f in DIFFS:
                check(lambda v, f=f: f(wnp, v), lambda v, f=f: f(jnp, v), a,
                      context=f"{label} {shape} {dtype}")  # fmt: skip


WHERE_REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std", "all", "any",
                    "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar",
                    "nanstd"]  # fmt: skip


@pytest.mark.parametrize("name", WHERE_REDUCTIONS)
def test_refusals_are_the_exception_class_and_words_jax_tests_expect(name):
    """jax's lax_numpy_reducers_test expects ValueError and its own words: a non-boolean
    ``where``, a repeated axis, ``ddof`` with ``correction``."""
    x = np.zeros((4, 3), np.float32)
    calls = [
        lambda m: getattr(m, name)(x, where=np.ones((4, 3), np.int32)),
        lambda m: getattr(m, name)(x, axis=(0, 0)),
    ]
    if name in ("var", "std"):
        calls.append(lambda m: getattr(m, name)(x, ddof=1, correction=1))
    for call in calls:
        try:
            call(jnp)
        except (TypeError, ValueError) as err:
            expected = err
        else:
            continue  # jax takes it (argmax has no where=): so do we, elsewhere tested
        with pytest.raises(type(expected)) as ours:
            call(wnp)
        words = str(expected).split(";")[0].split(".")[0][:40]
        assert words in str(ours.value), (str(expected), str(ours.value))


QUANTILES = ["quantile", "nanquantile", "percentile", "nanpercentile"]


@pytest.mark.parametrize("name", QUANTILES)
def test_inverted_cdf_quantiles_with_and_without_weights_match_jax(name, full):
    """``method='inverted_cdf'`` and ``weights=`` (jax's testWeightedQuantile raised
    NotImplementedError here)."""
    rng = np.random.default_rng(0)
    scale = 100 if "percent" in name else 1
    layouts = [((7,), None), ((3, 5), 1), ((2, 3, 4), (0, 2)), ((3, 5), None)]
    kinds = ["float32", "float16", "int32"] if full else ["float32"]
    cases = list(itertools.product(layouts, kinds, [False, True]))
    if not full:  # CI: one layout per function, keepdims alternating with the weights
        i = QUANTILES.index(name)
        cases = [(layouts[i], "float32", i % 2 == 0)]
    for (shape, axis), dt, keepdims in cases:
        a = rng.normal(size=shape).astype(dt)
        if "nan" in name and dt != "int32":
            a.flat[1] = np.nan
        w = rng.uniform(0.1, 2, size=shape).astype("float32" if dt == "int32" else dt)
        q = np.asarray([0.25, 0.5, 0.75], w.dtype) * scale
        for weights in (w, None):
            for x64 in (False, True) if full else (bool(len(shape) % 2),):
                with jax.enable_x64(x64):
                    kw = {"axis": axis, "method": "inverted_cdf", "keepdims": keepdims}
                    check(lambda a, q, w, kw=kw: getattr(wnp, name)(a, q, weights=w, **kw),
                          lambda a, q, w, kw=kw: getattr(jnp, name)(a, q, weights=w, **kw),
                          a, q, weights, context=f"{name} {shape} {axis} {dt}",
                          rtol=1e-3, atol=1e-3)  # fmt: skip


def test_weights_refusals_match_jax():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    calls = [
        lambda m: m.quantile(a, 0.5, weights=np.ones(6, np.complex64).reshape(2, 3),
                             method="inverted_cdf"),
        lambda m: m.quantile(a, 0.5, weights=np.ones((2, 3), np.float32)),
        lambda m: m.quantile(a, 0.5, weights=np.ones(3, np.float32), method="inverted_cdf"),
        lambda m: m.quantile(a, 0.5, axis=1, weights=np.ones(2, np.float32),
                             method="inverted_cdf"),
    ]  # fmt: skip
    for call in calls:
        with pytest.raises(Exception) as theirs:
            call(jnp)
        with pytest.raises(type(theirs.value)):
            call(wnp)


FULL_INTS = [2**32 - 1, -1, 2**40, 2**64 - 1, 2**64, -(2**63), 300, 7]
FULL_DTYPES = ["uint32", "uint8", "int8", "float32", "uint64", "int64", "bool", "bfloat16"]


@pytest.mark.parametrize("x64", [False, True])
def test_full_takes_a_python_int_straight_to_its_dtype(x64):
    """``full(shape, 2**32 - 1, dtype=uint32)`` with x64 off fills uint32 as jax does (the
    int was made a weak int32 first, which it does not fit); ints wrap into integer
    dtypes, and beyond uint64 raise OverflowError, as jax's convert_element_type."""
    import warnings

    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for v, dt in itertools.product(FULL_INTS, FULL_DTYPES):
            try:
                want = jnp.full((2,), v, dtype=dt)
            except TypeError:  # numpy's object array of 2**64 cannot become bfloat16:
                continue  # a quirk of jax's np.asarray(v).astype(dt), not a rule
            except OverflowError:
                with pytest.raises(OverflowError):
                    wnp.full((2,), v, dtype=dt)
                continue
            for got in (wnp.full((2,), v, dtype=dt),
                        wt.trace(lambda v=v, dt=dt: wnp.full((2,), v, dtype=dt))()):  # fmt: skip
                assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type), (v, dt)
                np.testing.assert_array_equal(
                    np.asarray(got), np.asarray(want), err_msg=f"{v} {dt}"
                )


def _scalar_mul(x, y):
    assert np.shape(x) == np.shape(y) == ()  # as jax's lax_numpy_ufuncs_test writes them
    return x * y


def test_frompyfunc_methods_run_on_tracers_and_compile_once():
    """jax's lax_numpy_ufuncs_test: a scalar function may ask numpy for its operands'
    shape (np.shape / np.ndim / np.size answer for a tracer as for a jax array), and a
    second eager call of a frompyfunc ufunc's methods compiles nothing new."""
    from jax._src import dispatch  # the counter jax's own _CompileAndCheck reads

    f = wnp.frompyfunc(_scalar_mul, nin=2, nout=1, identity=1)
    g = jnp.frompyfunc(_scalar_mul, nin=2, nout=1, identity=1)
    a, b = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3), np.float32(2)
    calls = [
        lambda m: m(a, b), lambda m: m.outer(a[0], a[1]), lambda m: m.reduce(a, axis=0),
        lambda m: m.accumulate(a, axis=1), lambda m: m.at(a, (0, 1), b, inplace=False),
        lambda m: m.reduceat(a, np.array([0, 1]), axis=1),
    ]  # fmt: skip
    for call in calls:
        np.testing.assert_allclose(np.asarray(call(f)), np.asarray(call(g)), rtol=1e-6)
        misses = dispatch.xla_primitive_callable.cache_info().misses
        call(f)
        assert dispatch.xla_primitive_callable.cache_info().misses == misses
        traced = wt.trace(lambda z, call=call: call(f))(0.0)
        np.testing.assert_allclose(np.asarray(traced), np.asarray(call(g)), rtol=1e-6)
    assert wt.trace(lambda x: x * np.size(x) + np.ndim(x))(a).shape == a.shape


def _error_of(fn, *args):
    try:
        fn(*args)
    except Exception as err:  # the oracle's error, whatever its class
        return err
    raise AssertionError(f"{fn} did not raise")


CONCRETE_NEEDED = [
    ("one_hot num_classes", lambda m, n: m.nn.one_hot(m.numpy.arange(3), n)),
    ("bool of a tracer", lambda m, n: bool(m.numpy.asarray(n) > 1)),
    ("int of a tracer", lambda m, n: int(m.numpy.asarray(n))),
    ("float of a tracer", lambda m, n: float(m.numpy.asarray(n))),
    ("tracer as an index", lambda m, n: [1, 2][m.numpy.asarray(n)]),
    ("numpy array of a tracer", lambda m, n: np.asarray(m.numpy.asarray(n) + 1)),
    ("boolean mask", lambda m, n: m.numpy.arange(3)[m.numpy.arange(3) > n]),
]


@pytest.mark.parametrize(("name", "fn"), CONCRETE_NEEDED, ids=[c[0] for c in CONCRETE_NEEDED])
def test_a_traced_value_where_a_concrete_one_is_needed_raises_jaxs_class(name, fn):
    """jax's nn_test catches ``jax.errors.ConcretizationTypeError`` for one_hot with a
    traced num_classes; ours raised a plain TypeError. Every class jax raises here (under
    jax.jit) is a base class of ours."""
    import weaktrace.nn  # noqa: F401  (the mirror namespaces, as m.nn / m.numpy)

    expected = _error_of(jax.jit(lambda n: fn(jax, n)), 3)
    with pytest.raises(type(expected)):
        wt.trace(lambda n: fn(wt, n))(3)


ONE_ARRAY_SHAPES = [(3,), (2, 3), (1, 2, 0), (2, 3, 4), (0, 2)]
ONE_ARRAY_CALLS = [
    *[(f"concatenate axis={a}", "concatenate", {"axis": a}) for a in (0, 1, -1, None)],
    *[(f"stack axis={a}", "stack", {"axis": a}) for a in (0, 1, -1)],
    ("concatenate dtype", "concatenate", {"dtype": "int32"}),
    *[(n, n, {}) for n in ("hstack", "vstack", "dstack", "column_stack", "block")],
]


@pytest.mark.parametrize("shape", ONE_ARRAY_SHAPES, ids=str)
@pytest.mark.parametrize(("name", "fn", "kw"), ONE_ARRAY_CALLS, ids=[c[0] for c in ONE_ARRAY_CALLS])
def test_joining_one_array_joins_its_slices_as_jax_does(shape, name, fn, kw):
    """jax's testConcatenateArray / testStack: ``concatenate(x)`` of one array (not a
    list) joins its slices along axis 0; ours refused anything but a list or tuple."""
    x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    check(lambda a: getattr(wnp, fn)(a, **kw), lambda a: getattr(jnp, fn)(a, **kw), x)


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 0, 3)], ids=str)
@pytest.mark.parametrize("kw", [{"size": 3}, {"size": 4, "fill_value": -1}, {"size": 0}], ids=str)
def test_one_argument_where_is_nonzero(shape, kw):
    """jax's testWhereOneArgument: ``where(c)`` is ``nonzero(c)`` (traced with size=);
    ours refused the one-argument form even eagerly."""
    x = np.random.default_rng(len(shape)).integers(0, 2, shape).astype(np.float32)
    if shape:
        check(lambda a: wnp.where(a, **kw), lambda a: jnp.where(a, **kw), x)
        got, want = wnp.where(x), jnp.where(x)  # eager, no size: data-dependent shape
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
            assert g.dtype == w.dtype
    for bad in [lambda m: m.where(x, 1), lambda m: m.where(x, 1, 2, **kw)]:
        with pytest.raises(type(_error_of(bad, jnp))):
            bad(wnp)


TRI_OFFSETS = [0, 2, -3, 10, 2**31, -(2**40), np.int8(2), np.uint32(3), np.int64(5),
               np.uint64(2**40), 1.5, True, np.float32(1)]  # fmt: skip


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("k", TRI_OFFSETS, ids=repr)
def test_tri_offset_may_be_traced(k, x64):
    """jax's testTri: ``tri(n, m, k)`` with a traced k; ours called operator.index(k).
    Constant and traced offsets, in range and beyond int32, and the dtypes jax refuses."""
    with jax.enable_x64(x64):
        if x64 or not isinstance(k, np.uint64):  # x32: jax.jit wraps it, jax eager raises
            check(lambda kk: wnp.tri(3, 4, kk), lambda kk: jnp.tri(3, 4, kk), k)
        check(lambda: wnp.tri(3, 4, k), lambda: jnp.tri(3, 4, k))


BOUND_SHAPES = list(itertools.product([(), (2,), (2, 2)], repeat=2))


@pytest.mark.parametrize(("start_shape", "stop_shape"), BOUND_SHAPES, ids=str)
@pytest.mark.ci_sample(2)
def test_linspace_and_logspace_of_array_bounds_of_different_ranks(start_shape, stop_shape, full):
    """jax's testLinspace/testLogspace: bounds of shapes () / (2,) / (2, 2) broadcast;
    ours subtracted the unbroadcast bounds for the step (a ShapeError). CI: a sample of
    num/endpoint/axis; --run-slow: all."""
    s = np.arange(math.prod(start_shape), dtype=np.float32).reshape(start_shape)
    t = np.full(stop_shape, 5.0, np.float32)
    nd = len(np.broadcast_shapes(start_shape, stop_shape))
    picks = {(0, True, 0), (1, False, -1), (5, True, -1), (2, False, 0)}  # CI's sample
    for num, endpoint, axis in itertools.product([0, 1, 2, 5], [True, False],
                                                 range(-nd - 1, nd + 1)):  # fmt: skip
        if not full and (num, endpoint, axis) not in picks:
            continue
        for name, kw in [("linspace", {"retstep": True}), ("linspace", {}), ("logspace", {})]:
            kw = {**kw, "num": num, "endpoint": endpoint, "axis": axis}
            check(lambda a, c, n=name, k=kw: getattr(wnp, n)(a, c, **k),
                  lambda a, c, n=name, k=kw: getattr(jnp, n)(a, c, **k), s, t)  # fmt: skip


GRID_KEYS = [
    (slice(1, 6, 8j), slice(2, 4)),
    (slice(0, 3), slice(0, 2, 0.5)),
    (slice(0, 3), slice(-1, 1, 5j), slice(0, 2)),
    (slice(3),),
]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("key", GRID_KEYS, ids=str)
@pytest.mark.parametrize("grid", ["mgrid", "ogrid"])
def test_grids_promote_with_standard_promotion_even_when_strict(grid, key, strict):
    """jax's testMgrid runs under 'strict' promotion: jax's mgrid/ogrid join their grids
    with 'standard' promotion regardless; ours raised a TypePromotionError."""
    with jax.numpy_dtype_promotion("strict" if strict else "standard"):
        want = getattr(jnp, grid)[key]
        got = getattr(wnp, grid)[key]
        traced = wt.trace(lambda: getattr(wnp, grid)[key]).trace().out_avals
    want, got = jax.tree.leaves(want), jax.tree.leaves(got)
    traced = [traced] if hasattr(traced, "dtype") else traced
    assert [(w.dtype, w.shape) for w in want] == [(g.dtype, g.shape) for g in got]
    assert [(w.dtype, w.shape) for w in want] == [(a.dtype, a.shape) for a in traced]
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["r_", "c_", "mgrid", "ogrid"])
def test_index_tricks_name_the_slice_bound_a_jax_tracer_gives(name):
    """jax's testR_/testC_/testOgrid: a slice bound traced by jax.jit raises a
    ConcretizationTypeError naming it ("slice start of jnp.r_")."""
    with pytest.raises(jax.errors.ConcretizationTypeError, match=f"slice start of jnp.{name}"):
        jax.jit(lambda i: getattr(wnp, name)[i:3])(1)
    with pytest.raises(jax.errors.ConcretizationTypeError, match=f"slice start of jnp.{name}"):
        jax.jit(lambda i: getattr(jnp, name)[i:3])(1)


SHAPE_ARGS = [np.array([2, 3]), jnp.array([2, 3]), np.int64(3), jnp.int32(2), [np.int32(2), 3],
              (2.0,), 1.0, [[2]], -1, (-1, 1), True, np.array([[2]]),
              np.array([], int)]  # fmt: skip
SHAPED = [
    ("zeros", lambda m, s: m.zeros(s)),
    ("ones int8", lambda m, s: m.ones(s, np.int8)),
    ("empty", lambda m, s: m.empty(s)),
    ("full", lambda m, s: m.full(s, 2)),
    ("zeros_like shape", lambda m, s: m.zeros_like(np.ones(2), shape=s)),
]


@pytest.mark.parametrize("shape", SHAPE_ARGS, ids=repr)
@pytest.mark.parametrize(("name", "fn"), SHAPED, ids=[c[0] for c in SHAPED])
def test_shape_arguments_are_what_jax_takes(name, fn, shape):
    """jax's testZerosOnes/testSizeAlongAxisTuple/testZerosShapeErrors: a 1-d numpy or
    jax array is a shape; floats and nested sequences raise jax's TypeError."""
    try:
        want = fn(jnp, shape)
    except Exception as err:  # the oracle refuses: ours refuses with its class
        with pytest.raises(type(err)):
            fn(wnp, shape)
        with pytest.raises(type(err)):
            wt.trace(lambda: fn(wnp, shape)).trace()
        return
    got = fn(wnp, shape)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    traced = wt.trace(lambda: fn(wnp, shape)).trace().out_avals
    assert (traced.shape, traced.dtype) == (want.shape, want.dtype)


def test_a_traced_shape_names_static_argnums():
    with pytest.raises(TypeError, match=r"Shapes must be 1D sequences.*\n.*static_argnums"):
        wt.trace(wnp.zeros)(2)


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (), (1, 1), 5, [0, 1], np.int64(1)], ids=str)
def test_size_along_axes(axis):
    """jax's testSizeAlongAxisDuplicate: a repeated axis raises ValueError."""
    x = np.zeros((2, 3, 4))
    try:
        want = jnp.size(x, axis)
    except Exception as err:
        with pytest.raises(type(err), match="repeated axis" if "repeated" in str(err) else None):
            wnp.size(x, axis)
        return
    assert wnp.size(x, axis) == want


def _index_arrays(shape, seed):
    """Index arrays of ranks 0, 1, 2 for each dimension, a few out of bounds (jax's
    testRavelMultiIndex draws them so)."""
    rng = np.random.default_rng(seed)
    return tuple(rng.integers(-1, d + 1, (3,) * k) for k, d in enumerate(shape))


def _outcome(fn):
    try:
        return np.asarray(fn())
    except Exception as err:  # the outcome may be an error: compared by class
        return err


def _same_outcome(got, want):
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), (got, want)
    else:
        assert not isinstance(got, Exception), got
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(2, 3, 4), (3, 1), (5,)], ids=str)
def test_ravel_multi_index_with_constant_and_traced_indices(shape, order, mode):
    """jax's testRavelMultiIndex: numpy-scalar constants among the indices made
    mode='raise' compare None with 0; traced mode='raise' names wrap/clip as jax does.
    Eager calls are concrete as in jax; under a trace even constants are not, as under
    jax.jit."""
    kw = {"mode": mode, "order": order}
    for seed in range(3):
        idx = _index_arrays(shape, seed)
        want = _outcome(lambda i=idx: jnp.ravel_multi_index(i, shape, **kw))
        _same_outcome(_outcome(lambda i=idx: wnp.ravel_multi_index(i, shape, **kw)), want)
        want = _outcome(lambda i=idx: jax.jit(lambda: jnp.ravel_multi_index(i, shape, **kw))())
        got = _outcome(lambda i=idx: wt.trace(lambda: wnp.ravel_multi_index(i, shape, **kw))())
        _same_outcome(got, want)
    fn = lambda *i: wnp.ravel_multi_index(i, shape, mode=mode, order=order)  # noqa: E731
    if mode == "raise":
        with pytest.raises(jax.errors.ConcretizationTypeError, match="mode='wrap' or mode='clip'"):
            wt.trace(fn)(*idx)
    else:
        check(fn, lambda *i: jnp.ravel_multi_index(i, shape, mode=mode, order=order), *idx)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose_with_constant_and_traced_indices(mode):
    """jax's testChoose: a constant index (numpy scalar) with mode='raise'."""
    choices = [np.arange(3.0), np.full(3, 7.0), np.zeros(3)]
    for a in [np.int32(1), np.int32(5), np.array([0, 2, 1]), np.array([3, -1, 0])]:
        want = _outcome(lambda a=a: jnp.choose(a, choices, mode=mode))
        _same_outcome(_outcome(lambda a=a: wnp.choose(a, choices, mode=mode)), want)
        want = _outcome(lambda a=a: jax.jit(lambda: jnp.choose(a, choices, mode=mode))())
        traced = _outcome(lambda a=a: wt.trace(lambda: wnp.choose(a, choices, mode=mode))())
        _same_outcome(traced, want)
    if mode == "raise":
        with pytest.raises(jax.errors.ConcretizationTypeError, match="mode='wrap' or mode='clip'"):
            wt.trace(lambda i: wnp.choose(i, choices, mode=mode))(np.array([0, 1, 2]))


class _ArrayLike:
    """An object that converts itself with __array__ (jax's testArrayMethod)."""

    dtype = np.dtype("float32")

    def __array__(self, dtype=None, copy=None):
        return np.array(3.0, dtype=dtype)


def _array_inputs():
    import array as pyarray

    return [[], [[], []], ((),), bytearray(b"*\xf3"), memoryview(b"ab"),
            pyarray.array("l", [0, 1, 2]), pyarray.array("d", [0.5]), _ArrayLike(),
            [0.0, None], [[1, None]]]  # fmt: skip


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("i", range(len(_array_inputs())))
@pytest.mark.parametrize("fn", ["array", "asarray"])
def test_array_takes_what_jnp_array_takes(fn, i, x64):
    """jax's testArrayOutputsArrays/testMemoryView/testAsarrayCopy/testArrayMethod/
    testArrayNone: empty sequences, buffers and __array__ objects make arrays; None
    inside a sequence raises ValueError."""
    a = _array_inputs()[i]
    with jax.enable_x64(x64):
        want = _outcome(lambda: getattr(jnp, fn)(a))
        for got in [_outcome(lambda: getattr(wnp, fn)(a)),
                    _outcome(lambda: wt.trace(lambda: getattr(wnp, fn)(a))())]:  # fmt: skip
            _same_outcome(got, want)
            if not isinstance(want, Exception):
                assert got.dtype == want.dtype


@pytest.mark.parametrize("args", [(1 + 2j, 5 + 3j), (0, 5, 1 + 1j), (1.0 + 0j, 5.0),
                                  (np.complex64(1),)], ids=str)  # fmt: skip
def test_arange_refuses_complex_bounds(args):
    err = _error_of(jnp.arange, *args)
    with pytest.raises(type(err), match="complex start/stop/step"):
        wnp.arange(*args)


SEQUENCE_CALLS = [
    ("array_equal", lambda m: m.array_equal([1, 2], [1, 2])),
    ("array_equal shapes", lambda m: m.array_equal([1, 2], (1, 2, 3))),
    ("array_equal scalar", lambda m: m.array_equal(1, [1])),
    ("array_equal nan", lambda m: m.array_equal([np.nan, 1.0], [np.nan, 1.0], equal_nan=True)),
    ("array_equiv", lambda m: m.array_equiv([1, 2], [[1, 2], [1, 2]])),
    ("iscomplexobj", lambda m: m.iscomplexobj([1j])),
    ("iscomplexobj real", lambda m: m.iscomplexobj([1, 2.0])),
    ("isrealobj", lambda m: m.isrealobj([np.complex64(1), 2])),
]


@pytest.mark.parametrize(("name", "fn"), SEQUENCE_CALLS, ids=[c[0] for c in SEQUENCE_CALLS])
def test_functions_that_asarray_take_lists(name, fn):
    """jax's testArrayEqualExamples/testArrayEquivExamples/testIsComplexObj: these
    functions asarray their inputs, so lists and tuples are arrays to them."""
    want = fn(jnp)
    assert bool(fn(wnp)) == bool(want)
    if not isinstance(want, bool):
        assert wt.trace(lambda: fn(wnp)).trace().out_avals.dtype == want.dtype


def _broadcast_bad(m):
    return m.broadcast_to(m.zeros((3, 4, 5)), (4, 5))


MESSAGE_CASES = [
    ("hypot complex", lambda m: m.hypot(np.ones(2, np.complex64), 1.0)),
    ("spacing complex", lambda m: m.spacing(np.ones(2, np.complex64))),
    ("fabs complex", lambda m: m.fabs(np.ones(2, np.complex64))),
    ("copysign complex", lambda m: m.copysign(np.ones(2, np.complex64), 1.0)),
    ("clip complex", lambda m: m.clip(np.ones(2, np.complex64), 0, 1)),
    ("interp complex", lambda m: m.interp(1j, 1j * np.arange(3.0), np.arange(3.0))),
    ("broadcast_to fewer dims", _broadcast_bad),
    ("broadcast_to incompatible", lambda m: m.broadcast_to(np.ones((2, 3)), (1, 3))),
    ("array int beyond int32", lambda m: m.array(2**31)),
]


@pytest.mark.parametrize(("name", "fn"), MESSAGE_CASES, ids=[c[0] for c in MESSAGE_CASES])
def test_refusals_start_with_jaxs_words(name, fn):
    """jax's tests match its messages (testHypotComplexInputError, testClipComplexInputError,
    testBroadcastToInvalidShape, testArrayFromInteger, testArrayUnsupportedDtypeError...):
    ours raise jax's class, and its first sentence comes first."""
    err = _error_of(fn, jnp)
    first = re.split(r"(?<=[.:;(])\s", str(err))[0].rstrip(".:;( ")
    first = re.sub(r"\s*\(.*", "", first)[:40]
    with pytest.raises(type(err), match=re.escape(first)):
        fn(wnp)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.ci_sample(2)
def test_frexp_and_ldexp_differentiate_as_jax(dtype, x64):
    """jax's testGradFrexp/testGradLdexp: frexp's mantissa has derivative 2**-e (jax's
    custom JVP) and ldexp's is 2**n; ours were zero (bit operations), a silent wrong
    gradient. Values of both stay bit-identical to jax's, subnormals included."""
    import ml_dtypes

    if dtype == "float64" and not x64:
        pytest.skip("float64 needs x64")
    dt = np.dtype(getattr(ml_dtypes, dtype, None) or dtype)
    info = ml_dtypes.finfo(dt)
    edges = [0, -0.0, 1, 0.3, 1e3, info.tiny, info.smallest_subnormal, info.max, np.inf, np.nan]
    rng = np.random.default_rng(0)
    with jax.enable_x64(x64):
        vals = np.concatenate([np.array(edges, dt), (rng.standard_normal(20) * 50).astype(dt)])
        for n in [-3, 0, 4, 200]:
            check(lambda v, n=n: wnp.ldexp(v, n), lambda v, n=n: jnp.ldexp(v, n), vals)
        check(wnp.frexp, jnp.frexp, vals)
        xs = (rng.uniform(0.1, 100, 12) * rng.choice([-1, 1], 12)).astype(dt)
        tol = 1e-2 if dt.itemsize == 2 else 1e-6  # jax's JVP uses exp2, ours exact powers
        for fn in [lambda m, v: m.frexp(v)[0], lambda m, v: m.ldexp(v, 3)]:
            want = jax.grad(lambda v, fn=fn: fn(jnp, v).astype(jnp.float32).sum())(xs)
            got = jax.grad(lambda v, fn=fn: fn(wnp, v).astype(jnp.float32).sum())(xs)
            np.testing.assert_allclose(np.asarray(got, np.float32), np.asarray(want, np.float32),
                                       rtol=tol)  # fmt: skip


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_sinc_derivatives_at_zero_are_jaxs(dtype):
    """jax's testSincAtZero: sinc's derivatives at 0 come from its Maclaurin series (jax's
    custom JVP); ours gave 0 for the second derivative (-pi**2 / 3 in jax)."""
    fns = {"jax": [jnp.sinc], "ours": [wnp.sinc]}
    for chain in fns.values():
        for _ in range(4):
            chain.append(jax.grad(chain[-1]))
    xs = np.array([0.0, 0.5, -1.25], dtype)
    tol = 1e-2 if dtype == "float16" else 1e-5
    for want, got in zip(fns["jax"], fns["ours"], strict=True):
        np.testing.assert_allclose(
            np.asarray(jax.jit(jax.vmap(got))(xs), np.float32),
            np.asarray(jax.jit(jax.vmap(want))(xs), np.float32),
            rtol=tol,
            atol=tol,
        )


RESHAPES = [(6, 4), (4, 6), (-1,), (24,), (2, -1, 3), (1, 24, 1), (2, 3, 4)]


@pytest.mark.parametrize("order", ["C", "F", "A", "K", "Q"])
def test_reshape_and_ravel_orders(order):
    """jax's testReshape/testRavel: order="F" is column-major; ours refused it in reshape
    and ignored it in ravel (a silent C-order answer). "A"/"K" raise as in jax."""
    x = np.arange(24.0).reshape(2, 3, 4)
    for shape in RESHAPES:
        check(lambda a, s=shape: wnp.reshape(a, s, order=order),
              lambda a, s=shape: jnp.reshape(a, s, order=order), x)  # fmt: skip
    check(lambda a: wnp.ravel(a, order=order), lambda a: jnp.ravel(a, order=order), x)
    check(lambda a: a.ravel(order=order), lambda a: a.ravel(order=order), x)


@pytest.mark.parametrize("period", [0.59, 2 * np.pi, -3.0, np.float32(4)], ids=str)
@pytest.mark.parametrize("side", [None, 0, "extrapolate"], ids=str)
def test_interp_with_a_period(period, side):
    """jax's testInterp: interp(period=...) wraps x and xp into one period and sorts xp
    (lax.sort_key_val); ours raised NotImplementedError. A traced period too."""
    rng = np.random.default_rng(0)
    xp = np.sort(rng.uniform(0, 10, 8)).astype(np.float32)
    fp, x = np.sin(xp), rng.uniform(-5, 15, 6).astype(np.float32)
    kw = {"left": side, "right": side, "period": period}
    check(lambda a, b, c: wnp.interp(a, b, c, **kw), lambda a, b, c: jnp.interp(a, b, c, **kw),
          x, xp, fp)  # fmt: skip
    p = np.float32(period)
    check(lambda a, b, c, q: wnp.interp(a, b, c, period=q),
          lambda a, b, c, q: jnp.interp(a, b, c, period=q), x, xp, fp, p)  # fmt: skip
    with pytest.raises(ValueError, match="period must be a scalar"):
        wnp.interp(0.0, xp, fp, period=np.array([1.0]))


ONE_HOT_TAKES = [((5,), (7,), 0), ((3, 4), (3, 6), 1), ((3, 4), (2, 4), 0),
                 ((2, 3, 4), (2, 3, 5), -1), ((2, 3, 4), (2, 6, 4), 1),
                 ((2, 0, 3), (2, 2, 3), 1)]  # fmt: skip


@pytest.mark.parametrize(("x_shape", "i_shape", "axis"), ONE_HOT_TAKES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int32", "float16", "bool"])
def test_take_along_axis_one_hot_mode(x_shape, i_shape, axis, dtype):
    """jax's testTakeAlongAxis: mode="one_hot" contracts a boolean one-hot of the indices
    with the array; ours raised NotImplementedError."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(x_shape) * 5).astype(dtype)
    n = x_shape[axis]
    i = rng.integers(-n if n else 0, n if n else 1, i_shape).astype(np.int32)
    check(lambda a, b: wnp.take_along_axis(a, b, axis=axis, mode="one_hot"),
          lambda a, b: jnp.take_along_axis(a, b, axis=axis, mode="one_hot"), x, i)  # fmt: skip


@pytest.mark.parametrize("name", ["ndim", "shape", "size"])
def test_shape_queries_of_a_list_warn_as_jax(name):
    """jax's testNdimShapeSizeNonArrayInput: a list is deprecated (DeprecationWarning),
    and the answer is numpy's."""
    with pytest.warns(DeprecationWarning, match=f"{name} requires ndarray or scalar"):
        want = getattr(jnp, name)([1, 2, 3])
    with pytest.warns(DeprecationWarning, match=f"{name} requires ndarray or scalar"):
        assert getattr(wnp, name)([1, 2, 3]) == want
