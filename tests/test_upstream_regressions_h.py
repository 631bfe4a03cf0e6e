"""Bugs found by running jax v0.10.2's tests/lax_numpy_test.py (the chunks not run since
session 9) and lax_numpy_{ufuncs,operators,reducers,indexing}_test.py under
JAX_ENABLE_X64=1, with jax.numpy / jax.lax swapped for weaktrace's. Each expected
answer is jax's, computed at test time."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace.numpy as wnp
from tests.mirror_harness import check

# -- packbits under jax_numpy_rank_promotion='raise' ----------------------------------------
# weaktrace's packbits shifted the (..., n, 8) bit groups by a rank-1 vector of bit
# positions, an implicit rank promotion: under 'raise' (the mode jax's tests run in)
# every packbits of a 2-d or larger array, or along an axis, raised RankPromotionError
# where jax's packbits works. Found by testPackbits (chunk 02).

PACK_CASES = {
    "matrix": ((np.arange(24).reshape(3, 8) % 3).astype(np.int32), None, "big"),
    "matrix_axis0": ((np.arange(24).reshape(8, 3) % 2).astype(bool), 0, "little"),
    "rank3_axis1": ((np.arange(60).reshape(3, 5, 4) % 4).astype(np.uint8), 1, "big"),
    "rank3_last": ((np.arange(60).reshape(3, 4, 5) % 2).astype(np.int8), -1, "little"),
}


@pytest.mark.parametrize("mode", ["raise", "allow"])
@pytest.mark.parametrize("name", sorted(PACK_CASES))
def test_packbits_needs_no_rank_promotion(name, mode):
    x, axis, order = PACK_CASES[name]
    with jax.numpy_rank_promotion(mode):
        check(
            lambda a: wnp.packbits(a, axis=axis, bitorder=order),
            lambda a: jnp.packbits(a, axis=axis, bitorder=order),
            x,
            context=f"packbits {name} {mode}",
        )


# -- copies: jnp.array(x) / jnp.copy(x) / asarray(x, copy=True) ------------------------------
# weaktrace returned the operand itself, so under jax.jit (which forwards an input that
# is also an output) the "copy" shared the input's buffer: deleting or donating x
# killed it. jax binds its ``copy`` primitive; weaktrace now has it too. jax's
# ``asarray(x)``/``array(x, copy=False)`` hand back x itself. Found by testArrayCopy,
# testArrayCopyAutodiff and testArrayCopyVmap.


def _ptr(a):
    return a.unsafe_buffer_pointer()


COPIES = {
    "array": lambda m: m.array,
    "copy": lambda m: m.copy,
    "asarray_copy": lambda m: lambda x: m.asarray(x, copy=True),
    "array_dtype": lambda m: lambda x: m.array(x, dtype="float32"),
}


@pytest.mark.parametrize("name", sorted(COPIES))
def test_copies_get_a_new_buffer_as_in_jax(name):
    for m in (jnp, wnp):
        fn = COPIES[name](m)
        x = m.ones(10, dtype="float32")
        for out in (fn(x), jax.jit(fn)(x)):
            assert _ptr(out) != _ptr(x), (m.__name__, name)
        assert str(jax.make_jaxpr(fn)(x)) == str(jax.make_jaxpr(COPIES[name](jnp))(x))
        y, ydot = jax.jvp(fn, (x,), (x,))
        assert y is not x and ydot is not x
        assert jax.vmap(fn)(x) is not x
        x.delete()


def test_asarray_and_no_copy_hand_back_the_array_itself():
    for m in (jnp, wnp):
        x = m.arange(4.0) * 2
        assert m.asarray(x) is x and m.array(x, copy=False) is x, m.__name__
        weak = m.asarray(3.0)
        assert m.asarray(weak).weak_type and m.array(weak).weak_type


def test_array_positional_copy_order_ndmin_warn_as_in_jax():
    def outcome(m, *args, **kwargs):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                out = m.array(*args, **kwargs)
            except TypeError as err:
                return ("TypeError", str(err))
        deprecations = [str(w.message) for w in seen if w.category is DeprecationWarning]
        return (out.shape, str(out.dtype), deprecations)

    x = np.arange(3, dtype=np.int32)
    calls = [
        ((x, None, False), {}),
        ((x, None, True, "K", 2), {}),
        ((x, None, True), {"copy": False}),
        ((x, None, True, "K", 0, "extra"), {}),
        ((x, "float32"), {"ndmin": 2}),
    ]
    for args, kwargs in calls:
        assert outcome(wnp, *args, **kwargs) == outcome(jnp, *args, **kwargs), (args, kwargs)


# -- arange: jax's values -------------------------------------------------------------------
# weaktrace computed arange with numpy (float64, rounded to the dtype) and transferred
# the array to the device; jax computes start + step * iota in the dtype (float32 for
# float16/bfloat16) from start and step converted first: the values differ by an ulp,
# and by whole steps for arange(3, 17, 1.1, dtype=int32) (jax steps by int(1.1) == 1).
# The transfer also failed under jax.transfer_guard("disallow"). Found by
# testArangeTransferGuard and a value sweep against jax.

ARANGES = [
    (0, 1, 0.1, None),
    (0.5, 10.3, 0.7, None),
    (-3, 7, 0.3, "float16"),
    (-3, 7, 0.3, "bfloat16"),
    (0.1, 3.3, 0.01, "float32"),
    (5, 1, -0.3, None),
    (3, 17, 1.1, "int32"),
    (1000.0, 1005.0, 0.37, None),
    (2.5, None, None, None),
    (1, 5.5, None, "float32"),
    (0, 7, None, None),
]


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("bounds", ARANGES, ids=str)
def test_arange_values_are_jaxs(bounds, x64):
    start, stop, step, dtype = bounds
    with jax.enable_x64(x64):
        want = jnp.arange(start, stop, step, dtype=dtype)
        got = wnp.arange(start, stop, step, dtype=dtype)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (got, want)


@pytest.mark.parametrize("bound", [5, 5.0, np.int32(5), np.float32(5)], ids=repr)
def test_arange_makes_no_host_to_device_transfer(bound):
    with jax.transfer_guard("disallow"):
        jnp.arange(bound)
        wnp.arange(bound)


# -- zeros(2, 3): jax's hint -----------------------------------------------------------------
# jax answers ``jnp.zeros(2, 3)`` (an int shape, an int "dtype") with a TypeError asking
# whether a shape tuple was meant; weaktrace only said it cannot interpret 3 as a dtype.
# Found by test_error_hint (chunk 03).


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_forgotten_shape_tuple_gets_jaxs_hint(name):
    with pytest.raises(TypeError) as want:
        getattr(jnp, name)(2, 3)
    with pytest.raises(TypeError) as got:
        getattr(wnp, name)(2, 3)
    assert "Did you accidentally write" in str(want.value)
    assert str(got.value) == str(want.value)


# -- searchsorted into 2**31 elements under x32 -------------------------------------------
# jax asks for int64 indices there; with x64 off it warns that int64 is truncated and
# raises OverflowError (2**31 does not fit int32). weaktrace returned int32 indices, which
# would wrap for such an array. Found by testSearchsortedDtype (abstract evaluation only).


def _searchsorted_outcome(fn, n):
    a = jax.ShapeDtypeStruct((n,), np.float32)
    v = jax.ShapeDtypeStruct((), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return str(jax.eval_shape(fn, a, v).dtype)
        except OverflowError:
            return "OverflowError"


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("n", [2**31 - 1, 2**31])
def test_searchsorted_index_dtype_for_huge_arrays(n, x64):
    with jax.enable_x64(x64):
        want = _searchsorted_outcome(jnp.searchsorted, n)
        assert _searchsorted_outcome(wnp.searchsorted, n) == want


# -- load: bfloat16 and object arrays ----------------------------------------------------------
# numpy saves bfloat16 as void16 ('V2'); jax's load views it as bfloat16 again, and hands
# an object array back as numpy's. weaktrace's load raised InvalidInputError for both.
# Found by testLoad (lax_numpy_test chunk 00).


@pytest.mark.parametrize(
    "values",
    [
        np.array([1.5, -2.0, 3.25], dtype="bfloat16"),
        np.array([1.5, 2], dtype=object),
        np.arange(4, dtype=np.float16),
    ],
    ids=["bfloat16", "object", "float16"],
)
def test_load_recovers_what_jax_recovers(values):
    import io

    def roundtrip(m):
        f = io.BytesIO()
        m.save(f, values)
        f.seek(0)
        return m.load(f, allow_pickle=True)

    want, got = roundtrip(jnp), roundtrip(wnp)
    assert type(got) is type(want) and got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# -- power by a concrete 0-d integer array ---------------------------------------------------
# jnp.power uses integer_pow (repeated multiplication) for any concrete integer exponent,
# also a 0-d integer jax or numpy array (operator.index takes them); weaktrace did so only
# for Python/numpy scalars and used pow (exp/log) otherwise: x ** jnp.int32(3) differed
# from jax's in the last bit for a third of float32 inputs. Found by testIntegerPower
# (its jaxpr held 41 equations instead of integer_pow).

EXPONENTS = {
    "jax_int32": lambda: jnp.int32(3),
    "jax_int32_7": lambda: jnp.array(7, dtype=jnp.int32),
    "numpy_0d": lambda: np.array(3),
    "numpy_0d_uint8": lambda: np.array(5, np.uint8),
    "jax_negative": lambda: jnp.int32(-2),
    "jax_bool": lambda: jnp.array(True),
}


@pytest.mark.parametrize("name", sorted(EXPONENTS))
def test_power_by_concrete_0d_integer_array_is_integer_pow(name):
    base = np.linspace(0.1, 7.3, 300, dtype=np.float32)
    p = EXPONENTS[name]()
    for x in (base, base.astype(np.int32)):
        check(lambda v, p=p: wnp.power(v, p), lambda v, p=p: jnp.power(v, p), x, rtol=0, atol=0)
    want = jax.make_jaxpr(lambda v: jnp.power(v, p))(base)
    got = jax.make_jaxpr(lambda v: wnp.power(v, p))(base)
    assert [e.primitive.name for e in got.eqns] == [e.primitive.name for e in want.eqns]


# -- *_like of a committed array -------------------------------------------------------------
# jax's lax.full_like (and jnp.zeros_like/ones_like/full_like/empty_like, built on it) puts
# the result of a concrete, committed (jax.device_put), strong array on that array's
# sharding, committed; weaktrace's results were uncommitted, so they could be combined
# with arrays on another device where jax's raise. Found by test_full_like_committed.

LIKES = {
    "lax.full_like": lambda L, N: lambda x: L.full_like(x, 1.1),
    "lax.full_like_shape": lambda L, N: lambda x: L.full_like(x, 1, shape=(2, 5)),
    "zeros_like": lambda L, N: N.zeros_like,
    "ones_like": lambda L, N: lambda x: N.ones_like(x, dtype="float32"),
    "full_like": lambda L, N: lambda x: N.full_like(x, 3),
    "empty_like": lambda L, N: N.empty_like,
}


@pytest.mark.parametrize("name", sorted(LIKES))
def test_like_functions_keep_the_commitment_of_their_array(name):
    import weaktrace.lax as wlax

    def placed(L, N):
        fn = LIKES[name](L, N)
        x = N.array((1, 2, 3), dtype=np.int32)
        committed = jax.device_put(x, jax.devices()[-1])
        weak = jax.device_put(N.asarray(2), jax.devices()[-1])
        outs = [fn(x), fn(committed), fn(weak)]
        return [(o.committed, o.sharding == committed.sharding) for o in outs]

    assert placed(wlax, wnp) == placed(jax.lax, jnp)


# -- stack's signature ---------------------------------------------------------------------------
# jax.numpy.stack(arrays, axis=0, out=None, dtype=None) follows numpy's order; weaktrace's
# had no `out`, so stack(xs, 0, None, dtype) put None... into dtype's place, and out=None
# was a TypeError. Found by NumpySignaturesTest.testWrappedSignaturesMatch.


def test_stack_takes_numpys_out_argument():
    import inspect

    assert list(inspect.signature(wnp.stack).parameters) == list(
        inspect.signature(jnp.stack).parameters
    )
    xs = [np.arange(3), np.arange(3, 6)]
    for args, kwargs in [((xs, 1, None, "float32"), {}), ((xs,), {"out": None})]:
        check(
            lambda a=args, k=kwargs: wnp.stack(*a, **k),
            lambda a=args, k=kwargs: jnp.stack(*a, **k),
        )
    with pytest.raises(NotImplementedError):
        wnp.stack(xs, out=np.zeros((2, 3)))


@pytest.mark.parametrize("promotion", ["strict", "standard"])
def test_packbits_of_bools_under_strict_promotion(promotion):
    """packbits compared a bool array with 0 (bool vs weak int), which
    jax_numpy_dtype_promotion='strict' forbids; jax's packbits takes bools as they are.
    Found by testPackbits under JAX_ENABLE_X64=1."""
    x = (np.arange(24).reshape(3, 8) % 3 == 0).astype(bool)
    with jax.numpy_dtype_promotion(promotion):
        check(lambda a: wnp.packbits(a, axis=1), lambda a: jnp.packbits(a, axis=1), x)


# -- jnp.array(python_int, dtype) range --------------------------------------------------------
# jax converts a Python int with an explicit dtype with numpy: 256 into uint8 raises
# OverflowError and 2**63 fits uint64 (x64). weaktrace's eager path passed the int to
# jax.jit as a weak int32 and converted it there: array(256, dtype='uint8') was 0 and
# array(-1, dtype='uint8') 255, silently; 2**63 raised. Found by testArrayFromInteger
# (x64) and a sweep of ints x dtypes against jax.


def _int_outcome(fn, value, dtype):
    try:
        out = fn(value, dtype=dtype)
    except OverflowError:
        return "OverflowError"
    return (np.asarray(out).tolist(), str(out.dtype), out.weak_type)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("fn", ["array", "asarray"])
def test_python_int_into_an_explicit_dtype_is_range_checked(fn, x64):
    cases = [(2**63, "uint64"), (256, "uint8"), (-1, "uint8"), (3, "int16"), (2**31, "int32"),
             (2**31 - 1, "int32"), (2**40, "float32"), (5, "bool")]  # fmt: skip
    with jax.enable_x64(x64):
        for value, dtype in cases:
            want = _int_outcome(getattr(jnp, fn), value, dtype)
            assert _int_outcome(getattr(wnp, fn), value, dtype) == want, (value, dtype)
