"""Bugs found by running jax's own tests/lax_test.py, lax_autodiff_test.py and
lax_vmap_op_test.py (jax v0.10.2) with ``jax.lax`` and ``jax.numpy`` swapped for
weaktrace's mirrors. Each is checked here against jax, computed at test time."""

from __future__ import annotations

from functools import partial

import jax
import numpy as np
import pytest
from jax import lax

import weaktrace as wt
import weaktrace.lax as wlax


def _jax_error(fn, *args, **kwargs):
    with pytest.raises(Exception) as theirs:
        fn(*args, **kwargs)
    return theirs.value


def _same_error(ours, theirs, *args, **kwargs):
    """ours(*args) raises jax's class with jax's exact message."""
    err = _jax_error(theirs, *args, **kwargs)
    with pytest.raises(type(err)) as got:
        ours(*args, **kwargs)
    assert str(got.value) == str(err)


# -- gather / scatter dimension-number checks ------------------------------------------
# jax checks gather/scatter dimension numbers rule by rule (XLA's InferGatherShape order)
# and tests match its messages; weaktrace checked fewer rules, in another order, in its
# own words (51 of lax_test's testGather/ScatterShapeCheckingRule cases failed).

G = lax.GatherDimensionNumbers
X5, I5 = (10, 9, 8, 7, 6), (5, 4, 3, 2, 5)
GATHER_CASES = {
    "leaf_dim": ((3,), (), G((), (0,), (0,)), (1,)),
    "offset_unsorted": (X5, I5, G((4, 5, 6, 8, 7), (), (0, 1, 2, 3, 4)), X5),
    "offset_repeat": (X5, I5, G((4, 5, 6, 7, 7), (), (0, 1, 2, 3, 4)), X5),
    "offset_bounds": (X5, I5, G((4, 5, 6, 7, 9), (), (0, 1, 2, 3, 4)), X5),
    "offset_negative": (X5, I5, G((-1, 5, 6, 7, 8), (), (0, 1, 2, 3, 4)), X5),
    "start_map_count": (X5, I5, G((4, 5, 6, 7, 8), (), (0, 1, 2, 3)), X5),
    "start_map_bounds": (X5, I5, G((4, 5, 6, 7, 8), (), (0, 1, 2, 3, 7)), X5),
    "start_map_repeat": (X5, I5, G((4, 5, 6, 7, 8), (), (0, 1, 2, 3, 3)), X5),
    "collapsed_unsorted_and_out_of_range": (X5, I5, G((4, 5, 6, 7), (19, 1), (0, 1, 2, 3, 4)), X5),
    "collapsed_bounds": (X5, I5, G((4, 5, 6, 7, 8), (0, 1, 2, 3, 19), (0, 1, 2, 3, 4)), X5),
    "collapsed_repeat": (X5, I5, G((4, 5, 6, 7, 8), (0, 1, 2, 3, 3), (0, 1, 2, 3, 4)), X5),
    "batch_repeat_before_unsorted": (
        X5, (5, 4, 3, 2, 3), G((4, 5, 6), (0, 1), (0, 1, 4), (3, 2, 3)), X5),
    "batch_unsorted": (X5, (5, 4, 3, 2, 3), G((4, 5, 6), (0, 1), (0, 1, 4), (3, 2)), X5),
    "batch_bounds": (X5, I5, G((4, 5, 6), (0, 1), (0, 1, 2, 3, 4), (0, 10)), X5),
    "collapsed_batch_overlap": (
        X5, (5, 4, 3, 2, 3), G((4, 5, 6), (0, 1, 2), (0, 1, 4), (2, 3)), X5),
    "start_map_batch_overlap": (
        X5, (5, 4, 3, 2, 4), G((4, 5, 6), (0, 1), (0, 1, 2, 4), (2, 3)), X5),
    "index_batch_repeat": (X5, I5, G((4, 5, 6), (0, 1), (0, 1, 2, 3, 4), (), (0, 1, 0)), X5),
    "index_batch_bounds": (X5, I5, G((4, 5, 6), (0, 1), (0, 1, 2, 3, 4), (), (0, 5)), X5),
    "index_batch_is_vector_dim": (X5, I5, G((4, 5, 6), (0, 1), (0, 1, 2, 3, 4), (), (0, 4)), X5),
    "batch_count": (X5, (5, 4, 3, 2, 4), G((4, 5, 6), (1, 2), (1, 2, 3, 4), (0,), (0, 1)), X5),
    "batch_sizes": (
        X5, (10, 9, 3, 2, 3), G((4, 5, 6, 7, 8), (2, 3, 4), (2, 3, 4), (0, 1), (1, 0)), X5),
    "slice_count": (X5, I5, G((4, 5, 6, 7), (), (0, 1, 2, 3, 4)), (10, 9, 8, 7)),
    "offset_count": (X5, I5, G((4, 5, 6, 7), (), (0, 1, 2, 3, 4)), X5),
    "slice_too_large": (X5, I5, G((4, 5, 6, 7), (2,), (0, 1, 2, 3, 4)), (10, 9, 8, 100, 6)),
    "slice_negative": (X5, I5, G((4, 5, 6, 7), (2,), (0, 1, 2, 3, 4)), (10, 9, 8, -1, 6)),
    "collapsed_not_1": (X5, I5, G((4, 5, 6, 7), (1,), (0, 1, 2, 3, 4)), X5),
    "batch_not_0_or_1": (X5, (9, 4, 3, 2, 4), G((4, 5, 6, 7), (), (0, 2, 3, 4), (1,), (0,)), X5),
}  # fmt: skip


@pytest.mark.parametrize("case", GATHER_CASES)
def test_gather_dimension_errors_are_jaxs(case):
    xs, ishape, dn, sizes = GATHER_CASES[case]
    x, idx = np.ones(xs, np.int32), np.ones(ishape, np.int32)
    _same_error(wlax.gather, lax.gather, x, idx, dn, sizes)


def test_gather_slice_size_unchecked_without_indices():
    # no start index (an empty batch): jax accepts slice sizes beyond the operand
    x, idx = np.ones((3, 4), np.float32), np.zeros((0, 1), np.int32)
    dn = G(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    want = jax.eval_shape(lambda: lax.gather(x, idx, dn, (1, 7)))
    for got in (
        wlax.gather(x, idx, dn, (1, 7)),
        wt.trace(lambda v: wlax.gather(v, idx, dn, (1, 7)))(x),
    ):
        assert (got.shape, got.dtype) == (want.shape, want.dtype)


S = lax.ScatterDimensionNumbers
X3 = (50, 49, 48, 47, 46)
I3 = (10, 9, 8, 7, 5)
SCATTER_CASES = {
    "leaf_dim": ((3,), (), (), S((), (0,), (0,))),
    "updates_rank": ((5,), (2, 1), (2, 1, 1), S((), (0,), (0,))),
    "window_unsorted": (X3, I3, (10, 9, 8, 7, 300, 300, 300, 300),
                        S((4, 5, 7, 6), (4,), (0, 1, 2, 3, 4))),
    "window_repeat": (X3, I3, (10, 9, 8, 7, 300, 300, 300, 300),
                      S((4, 5, 6, 6), (4,), (0, 1, 2, 3, 4))),
    "window_bounds": (X3, I3, (10, 9, 8, 7, 300, 300, 300, 300),
                      S((4, 5, 6, 8), (4,), (0, 1, 2, 3, 4))),
    "inserted_unsorted": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                          S((4, 5, 6), (2, 1), (0, 1, 2, 3, 4))),
    "inserted_repeat": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                        S((4, 5, 6), (1, 1), (0, 1, 2, 3, 4))),
    "inserted_bounds": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                        S((4, 5, 6), (1, 5), (0, 1, 2, 3, 4))),
    "batch_unsorted": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                       S((4, 5, 6), (), (0, 1, 2, 3, 4), (3, 1))),
    "batch_repeat": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                     S((4, 5, 6), (), (0, 1, 2, 3, 4), (1, 1))),
    "batch_bounds": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                     S((4, 5, 6), (), (0, 1, 2, 3, 4), (1, 5))),
    "inserted_batch_overlap": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                               S((4, 5, 6), (1, 2), (0, 1, 3, 4), (2, 4))),
    "to_operand_batch_overlap": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                                 S((4, 5, 6), (0,), (0, 1, 2, 3, 4), (2, 4))),
    "index_batch_repeat": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                           S((4, 5, 6), (0, 1), (0, 1, 2, 3, 4), (), (0, 1, 0))),
    "index_batch_bounds": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                           S((4, 5, 6), (0, 1), (0, 1, 2, 3, 4), (), (0, 5))),
    "index_batch_is_vector_dim": (X3, I3, (10, 9, 8, 7, 300, 300, 300),
                                  S((4, 5, 6), (0, 1), (0, 1, 2, 3, 4), (), (0, 4))),
    "batch_count": (X3, (10, 9, 8, 7, 4), (10, 9, 8, 7, 3, 3, 3),
                    S((4, 5, 6), (1, 2), (1, 2, 3, 4), (0,), (0, 1))),
    "index_batch_sizes": ((8, 9, 10), (8, 7, 1), (8, 7, 10),
                          S((2,), (1,), (1,), (0,), (1,))),
    "updates_batch_sizes": ((8, 9, 10), (8, 7, 1), (6, 7, 10),
                            S((2,), (1,), (1,), (0,), (0,))),
    "window_size": (X3, I3, (10, 9, 8, 7, 3, 2, 4),
                    S((4, 5, 6), (1,), (0, 1, 2, 3, 4))),
    "to_operand_count": (X3, I3, (10, 9, 8, 7, 30, 29, 28, 27, 26),
                         S((4, 5, 6, 7, 8), (), (0, 1, 2, 3))),
    "to_operand_bounds": (X3, I3, (10, 9, 8, 7, 30, 29, 28, 27, 26),
                          S((4, 5, 6, 7, 8), (), (0, 1, 2, 3, 10))),
    "to_operand_repeat": (X3, I3, (10, 9, 8, 7, 30, 29, 28, 27, 26),
                          S((4, 5, 6, 7, 8), (), (0, 1, 2, 2, 3))),
    "window_bound": ((50, 49, 48, 47, 46), I3, (10, 9, 8, 7, 3, 2, 4, 100),
                     S((4, 5, 6, 7), (1,), (0, 1, 2, 3, 4))),
    "scatter_bound": ((50, 49, 48, 47, 46), I3, (10, 9, 8, 6, 3, 2, 4, 1),
                      S((4, 5, 6, 7), (1,), (0, 1, 2, 3, 4))),
}  # fmt: skip


def _scatter_of(lx, shapes, dn, name="scatter"):
    xs, ishape, us = shapes
    idx = np.zeros(ishape, np.int32)

    def f(x, y):
        return getattr(lx, name)(lx.broadcast(x, xs), idx, lx.broadcast(y, us), dn)

    return lambda: jax.eval_shape(f, np.int32(1), np.int32(1))


@pytest.mark.parametrize("name", ["scatter", "scatter_add"])
@pytest.mark.parametrize("case", SCATTER_CASES)
def test_scatter_dimension_errors_are_jaxs(case, name):
    *shapes, dn = SCATTER_CASES[case]
    _same_error(_scatter_of(wlax, shapes, dn, name), _scatter_of(lax, shapes, dn, name))


def test_scatter_apply_checks_its_update_shape():
    x, idx = np.zeros((5,), np.float32), np.zeros((2, 1), np.int32)
    dn = S(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))

    def run(lx):
        return lambda: lx.scatter_apply(x, idx, lambda v: v + 1, dn, update_shape=(3,))

    _same_error(run(wlax), run(lax))


# -- lax.pad's errors -------------------------------------------------------------------
# lax_test's testPadErrors matches jax's words ("padding_value must be a scalar", ...);
# weaktrace raised ValueError in its own words, and checked interior padding per axis.

PAD_ERRORS = {
    "value_not_scalar": ((2,), np.zeros(2), ((0, 0, 0),)),
    "config_length": ((2,), 0.0, ((0, 1, 0), (0, 1, 0))),
    "interior_negative": ((2,), 0.0, ((0, 1, -1),)),
    "interior_before_size": ((2, 3), 0.0, ((-9, 0, 0), (0, 0, -1))),
    "size_negative": ((2,), 0.0, ((-3, 0, 0),)),
}


@pytest.mark.parametrize("case", PAD_ERRORS)
def test_pad_errors_are_jaxs(case):
    shape, value, config = PAD_ERRORS[case]
    _same_error(wlax.pad, lax.pad, np.zeros(shape), value, config)


# -- ragged_dot_general: group_sizes of rank > 1, jax's checks, out_sharding ------------
# lax_test's RaggedTest: weaktrace refused a [b..., x..., g] group_sizes
# (NotImplementedError), checked in another order and words, and dropped out_sharding,
# so under an explicit mesh jax's lowering raised "sharding inference not implemented".

R = lax.RaggedDotDimensionNumbers
RAGGED_ERRORS = {
    "two_ragged": ([11, 5], [3, 5, 7], [3], R((([1], [1]), ([], [])), [0, 1], [0])),
    "ragged_range": ([11, 5], [3, 5, 7], [3], R((([1], [1]), ([], [])), [2], [0])),
    "gs_rank0": ([11, 5], [3, 5, 7], [], R((([1], [1]), ([], [])), [0], [0])),
    "gs_2d_noncontracting": ([11, 5], [3, 5, 7], [2, 3], R((([1], [1]), ([], [])), [0], [0])),
    "gs_nd_noncontracting": (
        [19, 17, 11, 5], [3, 19, 5, 7], [19, 11, 3], R((([3], [2]), ([0], [1])), [2], [0])),
    "gs_nd_contracting": (
        [19, 11, 17, 5], [19, 17, 5, 7], [19, 11, 3], R((([2, 3], [1, 2]), ([0], [0])), [3], [])),
    "gs_nd_batch": (
        [17, 19, 11, 5], [17, 19, 5, 7], [19, 3], R((([3], [2]), ([0, 1], [0, 1])), [1], [])),
    "group_is_batch": ([19, 11, 5], [19, 5, 7], [19, 3], R((([2], [1]), ([0], [0])), [1], [0])),
    "group_is_contracting": ([11, 3], [3, 3, 7], [3], R((([1], [1]), ([], [])), [0], [1])),
    "group_range": ([11, 5], [3, 5, 7], [3], R((([1], [1]), ([], [])), [0], [3])),
    "group_size": ([11, 5], [3, 5, 7], [2], R((([1], [1]), ([], [])), [0], [0])),
    "group_for_batch": ([2, 11, 5], [3, 2, 5, 7], [3], R((([2], [2]), ([0], [1])), [0], [0])),
    "group_for_contracting": ([11, 5], [3, 5, 7], [3], R((([1], [1]), ([], [])), [1], [0])),
    "no_group": ([11, 5], [5, 7], [3], R((([1], [0]), ([], [])), [0], [])),
    "float_group_sizes": ([11, 5], [3, 5, 7], [3.0], R((([1], [1]), ([], [])), [0], [0])),
}  # fmt: skip


def _ragged_args(xs, ys, gs):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(np.float32)
    y = rng.standard_normal(ys).astype(np.float32)
    if gs and isinstance(gs[0], float):
        return x, y, np.ones(3, np.float32)
    return x, y, np.ones(gs, np.int32)


@pytest.mark.parametrize("case", RAGGED_ERRORS)
def test_ragged_dot_general_errors_are_jaxs(case):
    xs, ys, gs, dn = RAGGED_ERRORS[case]
    _same_error(wlax.ragged_dot_general, lax.ragged_dot_general, *_ragged_args(xs, ys, gs), dn)


RAGGED_OK = {
    "noncontracting_2d": ([2, 6, 5], [3, 2, 5, 7], [2, 3], R((([2], [2]), ([0], [1])), [1], [0])),
    "contracting_2d": ([2, 6, 5], [2, 5, 7], [2, 3], R((([2], [1]), ([0], [0])), [2], [])),
    "batch": ([6, 4, 5], [6, 5, 7], [3], R((([2], [1]), ([0], [0])), [0], [])),
}  # fmt: skip


@pytest.mark.parametrize("case", RAGGED_OK)
def test_ragged_dot_general_of_nd_group_sizes_is_jaxs(case):
    xs, ys, gs, dn = RAGGED_OK[case]
    x, y, _ = _ragged_args(xs, ys, gs)
    sizes = np.full(gs, xs[dn.lhs_ragged_dimensions[0]] // gs[-1], np.int32)
    want = lax.ragged_dot_general(x, y, sizes, dn)
    for got in (
        wlax.ragged_dot_general(x, y, sizes, dn),
        wt.trace(lambda a, b, s: wlax.ragged_dot_general(a, b, s, dn))(x, y, sizes),
    ):
        assert (got.shape, got.dtype) == (want.shape, want.dtype)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_ragged_dot_passes_out_sharding_to_jax():
    from jax.sharding import AxisType

    mesh = jax.make_mesh((1,), ("x",), axis_types=(AxisType.Explicit,))
    args = [np.ones((16, 4), np.float32), np.ones((2, 4, 3), np.float32), np.array([8, 8])]
    spec = jax.P("x", None)
    with jax.set_mesh(mesh):
        want = jax.jit(lambda *a: lax.ragged_dot(*a, out_sharding=spec))(*args).sharding
        for run in (wlax.ragged_dot, jax.jit(wlax.ragged_dot, static_argnames="out_sharding")):
            assert run(*args, out_sharding=spec).sharding == want


# -- errors lax_test matches by jax's words ---------------------------------------------
# testReduceWindowFailures, testSplitErrors, testReshapeWithUnusualShapes and
# test_conv_general_dilated_different_input_ranks_error: weaktrace raised its own words
# (and lax.reshape took 3.0 or an array as a dimension through int()).

WORDED_ERRORS = {
    "reduce_window_empty": ("reduce_window", (np.ones((1,)), 0.0, lax.add),
                            {"padding": "VALID", "window_dimensions": (0,),
                             "window_strides": (1,)}),
    "reduce_window_stride_0": ("reduce_window", (np.ones((1,)), 0.0, lax.add),
                               {"padding": "VALID", "window_dimensions": (1,),
                                "window_strides": (0,)}),
    "reduce_window_max_stride_0": ("reduce_window", (np.ones((3,)), -np.inf, lax.max),
                                   {"padding": "VALID", "window_dimensions": (2,),
                                    "window_strides": (0,)}),
    "split_negative": ("split", (np.arange(5), [-1]), {}),
    "split_sum": ("split", (np.arange(5), [6]), {}),
    "split_axis": ("split", (np.arange(5),), {"sizes": (), "axis": 1}),
    "reshape_array_dim": ("reshape", (np.ones(3), (np.array([3, 1]),)), {}),
    "reshape_float_dim": ("reshape", (np.ones(3), (3.0, 1)), {}),
    "conv_ranks": ("conv_general_dilated", (np.ones((1, 1, 1)), np.ones((1, 1, 1, 1))),
                   {"window_strides": (1,), "padding": ((0, 0),),
                    "dimension_numbers": lax.ConvDimensionNumbers(*[(0, 1, 2)] * 3)}),
}  # fmt: skip


@pytest.mark.parametrize("case", WORDED_ERRORS)
def test_errors_in_jaxs_words(case):
    name, args, kwargs = WORDED_ERRORS[case]
    _same_error(getattr(wlax, name), getattr(lax, name), *args, **kwargs)


def test_reshape_takes_concrete_integer_values():
    x = np.ones(3, np.float32)
    want = lax.reshape(x, (lax.add(1, 2), np.int64(1)))
    got = wlax.reshape(x, (wlax.add(1, 2), np.int64(1)))
    assert (got.shape, got.dtype) == (want.shape, want.dtype)


def test_reduce_window_output_structure_error_is_jaxs():
    # lax_test's testReduceWindowFailures: jax raises ValueError in these words
    def run(lx):
        return lambda: lx.reduce_window(np.ones((1,)), 0.0, lambda x, y: [x + y], (1,), (1,),
                                        "VALID")  # fmt: skip

    _same_error(run(wlax), run(lax))


# -- precision reaches jax ----------------------------------------------------------------
# lax_autodiff_test's testDotGrad / testDotGeneralContractAndBatchGrads: weaktrace dropped
# `precision` (dot, dot_general, conv_general_dilated, ragged_dot_general), so jax ran
# them at default precision (a different result on TPU/GPU) and the pullback had none.

DN = (([1], [0]), ([], []))
PRECISION_CASES = {
    "dot": (lambda lx, p: partial(lx.dot, precision=p), [(3, 2), (2, 4)]),
    "dot_general": (lambda lx, p: partial(lx.dot_general, dimension_numbers=DN, precision=p),
                    [(3, 2), (2, 4)]),
    "conv": (lambda lx, p: partial(lx.conv, window_strides=(1,), padding="SAME", precision=p),
             [(1, 2, 5), (3, 2, 2)]),
    "ragged_dot": (lambda lx, p: lambda a, b: lx.ragged_dot(a, b, np.array([1, 2], np.int32),
                                                             precision=p),
                   [(3, 2), (2, 2, 4)]),
}  # fmt: skip


def _eqns(jaxpr):
    for e in jaxpr.eqns:
        yield e
        for v in e.params.values():
            inner = getattr(v, "jaxpr", v)  # a ClosedJaxpr or a Jaxpr (weaktrace's pjit)
            if hasattr(inner, "eqns"):
                yield from _eqns(inner)


def _precisions(fn, *args):
    jaxpr = jax.make_jaxpr(lambda *a: jax.vjp(fn, *a)[1](fn(*a)))(*args)
    return [e.params["precision"] for e in _eqns(jaxpr.jaxpr) if "precision" in e.params]


@pytest.mark.parametrize("precision", [lax.Precision.HIGHEST, "high", None])
@pytest.mark.parametrize("case", PRECISION_CASES)
def test_precision_reaches_jax(case, precision):
    make, shapes = PRECISION_CASES[case]
    args = [np.ones(s, np.float32) for s in shapes]
    want = _precisions(make(lax, precision), *args)
    assert _precisions(make(wlax, precision), *args) == want
    assert _precisions(wt.trace(make(wlax, precision)), *args) == want


# -- lax.broadcast_shapes validates its shapes ------------------------------------------
# lax_vmap_test's testBroadcastShapesFaultyInputs: weaktrace broadcast (-1,) to (-1,)
# silently and took "hello" for a shape error only by accident (operator.index of a str).

BROADCAST_SHAPES_ERRORS = {
    "negative": [(-1,)],
    "negative_second": [(2,), (-1,)],
    "string": ["hello"],
    # not 2.0: jax caches broadcast_shapes by its arguments, and (2.0, 3) == (2, 3), so once
    # any test broadcast (2, 3) jax answers from its cache instead of raising (order-dependent)
    "float": [(2.5, 3)],
    "incompatible": [(3, 1), (4, 1)],
}


@pytest.mark.parametrize("case", BROADCAST_SHAPES_ERRORS)
def test_broadcast_shapes_errors_are_jaxs(case):
    _same_error(wlax.broadcast_shapes, lax.broadcast_shapes, *BROADCAST_SHAPES_ERRORS[case])
