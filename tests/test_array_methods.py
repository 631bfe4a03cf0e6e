"""jax.Array's methods and properties on traced values, and ``x.at[...]``, against jax.

Generated sweeps: every ``.at[]`` operation over dtype families, update kinds (Python
scalars, weak traced scalars, arrays of the same and of other dtypes), index
expressions (basic, advanced, mixed, masks, traced) and modes, x64 off and on. The
lighter `agree` (trace + eager program vs jax.make_jaxpr + jax eager) covers the
sweeps; `check` (which also compiles both sides) a sample. CI runs a deterministic
sample of each sweep; ``--run-slow`` runs all of it.
"""

from __future__ import annotations

import random

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.mirror_fast import agree, family, run
from tests.mirror_harness import check
from weaktrace.core.trace import Tracer

X64 = [False, True]
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint32", "bfloat16",
          "float16", "float32", "float64", "complex64"]  # fmt: skip
SHAPE = (4, 5, 3)


def choose(cases: list, n: int, n_values: int, seed: int, full: bool) -> list:
    """The cases a run checks, each with a flag: compare values too (else only types).
    CI: a deterministic sample of n cases, the first n_values with values; --run-slow:
    every case, with values."""
    if full:
        return [(*c, True) for c in cases]
    picked = cases if len(cases) <= n else random.Random(seed).sample(cases, n)
    return [(*c, i < n_values) for i, c in enumerate(picked)]


SWEEPS: dict[str, tuple] = {}  # test name -> (argnames, cases, n, n_values, seed)

# Where weaktrace disagrees with jax today (outside this work's code), by root cause:
# (test name, predicate on the case) -> reason. Those cases are strict xfails.
# (None today.)
KNOWN_MISMATCHES: dict[tuple[str, str], tuple] = {}


def known(test: str, case: tuple) -> str | None:
    for (name, _), (pred, reason) in KNOWN_MISMATCHES.items():
        if name == test and pred(case):
            return reason
    return None


def marked(test: str, cases: list) -> list:
    out = []
    for c in cases:
        reason = known(test, c)
        mark = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(*c, marks=mark))
    return out


def pytest_generate_tests(metafunc):
    test = metafunc.function.__name__
    spec = SWEEPS.get(test)
    if spec is not None:
        names, cases, n, n_values, seed = spec
        chosen = choose(cases, n, n_values, seed, full_run(metafunc.config))
        metafunc.parametrize((*names, "values"), marked(test, chosen))


_KEEP: list = []  # fresh index arrays stay alive, so no id is reused within the run


def fresh(key):
    """A copy of an index with new numpy arrays. jax (0.10.2) caches numpy constants by
    identity without its x64 mode: an index array seen with x64 off breaks the same
    array's use with x64 on (``lax.add`` of int32 and int64)."""
    if isinstance(key, tuple):
        return tuple(fresh(k) for k in key)
    if isinstance(key, np.ndarray):
        key = key.copy()
        _KEEP.append(key)
    return key


def array(dtype: str, shape=SHAPE, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(getattr(ml_dtypes, dtype, None) or dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -5, 9, shape).astype(dt)
    if dt.kind == "c":
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dt)
    return rng.normal(size=shape).astype(dt)


# -- .at[] ---------------------------------------------------------------------------

INDEXES = {
    "int": 1,
    "neg_int": -2,
    "slice": slice(1, 3),
    "full": slice(None),
    "step": slice(None, None, 2),
    "neg_step": slice(None, None, -1),
    "neg_step2": (slice(None), slice(4, 0, -2)),
    "ellipsis": ...,
    "ellipsis_int": (..., 1),
    "none": (None, 1),
    "mid_none": (1, None, slice(None)),
    "ints": (1, 2),
    "ints3": (3, -1, 0),
    "arr": np.array([0, 2, -1]),
    "arr_repeat": np.array([1, 1, 3]),
    "arr2d": np.array([[0, 1], [2, 3]]),
    "adv_adv": (np.array([0, 1]), np.array([2, 0])),
    "adv_separated": (np.array([0, 1]), slice(None), np.array([1, 2])),
    "adv_none_sep": (np.array([0, 1]), None, np.array([1, 2])),
    "slice_adv": (slice(None), np.array([0, 4])),
    "adv_int": (np.array([0, 3]), 1),
    "int_slice_adv": (1, slice(1, 4), np.array([2, 0])),
    "ellipsis_adv": (..., np.array([2, 0])),
    "mask": np.array([True, False, True, False]),
    "mask2d": np.ones((4, 5), bool) & (np.arange(5) % 2 == 0),
    "empty": slice(2, 2),
    "empty_arr": np.zeros((0,), np.int32),
    "uint_arr": np.array([3, 0], np.uint8),
    "int8_arr": np.array([-1, 2], np.int8),
    "bool_scalar": True,
}
OPS = ["set", "add", "subtract", "multiply", "divide", "power", "min", "max"]


def slice_shape(key) -> tuple[int, ...]:
    """The shape of x[key] (out-of-bounds indices included)."""
    x = jax.ShapeDtypeStruct(SHAPE, np.float32)
    return jax.eval_shape(lambda a: a.at[key].get(mode="fill"), x).shape


def updates(kind: str, dtype: str, key):
    """An update of kind `kind` for x of dtype `dtype` at `key`: (value, is_arg)."""
    shape = slice_shape(key)
    if kind == "py_int":
        return 3, False
    if kind == "py_neg_int":
        return -2, False
    if kind == "py_big_int":
        return 300, False
    if kind == "py_float":
        return 2.5, False
    if kind == "py_bool":
        return True, False
    if kind == "py_complex":
        return 1 - 2j, False
    if kind == "weak_arg":  # a Python float argument: a weak traced scalar
        return 1.5, True
    if kind == "weak_int_arg":
        return 2, True
    if kind == "same":
        return array(dtype, shape, seed=1), True
    if kind == "same_row":  # broadcast along the leading dimensions
        return array(dtype, shape[-1:], seed=2), True
    if kind == "scalar_array":
        return array(dtype, (), seed=3), True
    if kind == "f32":
        return array("float32", shape, seed=4), True
    if kind == "i8":
        return array("int8", shape, seed=5), True
    raise AssertionError(kind)


UPDATE_KINDS = ["py_int", "py_neg_int", "py_big_int", "py_float", "py_bool", "py_complex",
                "weak_arg", "weak_int_arg", "same", "same_row", "scalar_array", "f32",
                "i8"]  # fmt: skip


def at_call(op: str, key, mode=None, **kw):
    """``lambda x, y: x.at[key].op(y, ...)`` (works for jax arrays and our tracers);
    key "dynamic": the index is an argument, ``lambda x, i: x.at[i].op(5.0)``."""
    if mode is not None:
        kw["mode"] = mode
    if isinstance(key, str):
        if op == "get":
            return lambda x, i: x.at[i].get(**kw)
        return lambda x, i: getattr(x.at[i], op)(5.0, **kw)
    if op == "get":
        return lambda x: x.at[key].get(**kw)
    return lambda x, y: getattr(x.at[key], op)(y, **kw)


def _at_case(op, dtype, kind, key, x64, values, mode=None, **kw):
    key = fresh(key)
    x = array(dtype)
    with jax.enable_x64(x64):
        f = at_call(op, key, mode, **kw)
        what = f"{dtype}.at[{key}].{op}({kind}, mode={mode})"
        if op == "get":
            agree(f, f, x, context=what, values=values)
            return
        value, is_arg = updates(kind, dtype, key)
        if is_arg:
            agree(f, f, x, value, context=what, values=values)
        else:
            g = lambda x, f=f, v=value: f(x, v)  # noqa: E731
            agree(g, g, x, context=what, values=values)


DTYPE_CASES = [
    (op, d, k, i, x64)
    for op in OPS
    for d in DTYPES
    for k in UPDATE_KINDS
    for i in ("arr_repeat", "int_slice_adv")
    for x64 in X64
]

SWEEPS["test_at_update_every_dtype_and_update_kind"] = (
    ("op", "dtype", "kind", "index", "x64"),
    DTYPE_CASES,
    250,
    12,
    0,
)


def test_at_update_every_dtype_and_update_kind(op, dtype, kind, index, x64, values):
    _at_case(op, dtype, kind, INDEXES[index], x64, values)


INDEX_CASES = [
    (op, d, i, x64)
    for op in ("get", "set", "add", "min")
    for d in ("int8", "float32", "bool")
    for i in INDEXES
    for x64 in X64
]

SWEEPS["test_at_every_index_expression"] = (
    ("op", "dtype", "index", "x64"),
    INDEX_CASES,
    150,
    10,
    1,
)


def test_at_every_index_expression(op, dtype, index, x64, values):
    _at_case(op, dtype, "same_row", INDEXES[index], x64, values)


OOB_INDEXES = {
    "oob_int": 6,
    "oob_neg_int": -9,
    "oob_arr": np.array([0, 7, -9, 2]),
    "oob_pair": (np.array([1, 4]), np.array([6, 0])),
    "oob_slice_adv": (slice(1, 3), np.array([9])),
}
MODES = [None, "clip", "drop", "fill", "promise_in_bounds"]
MODE_CASES = [
    (op, d, i, m, x64)
    for op in ("get", "set", "add", "multiply", "max")
    for d in ("int32", "uint8", "float32", "bool")
    for i in OOB_INDEXES
    for m in MODES
    for x64 in X64
    if not (d == "bool" and op in ("add", "multiply"))
    and not (op != "get" and m == "promise_in_bounds")  # out of bounds: no promise kept
]
SWEEPS["test_at_modes_out_of_bounds"] = (
    ("op", "dtype", "index", "mode", "x64"),
    MODE_CASES,
    40,
    12,
    2,
)


def test_at_modes_out_of_bounds(op, dtype, index, mode, x64, values):
    """Out-of-bounds indices: what each mode does is in the values."""
    _at_case(op, dtype, "scalar_array", OOB_INDEXES[index], x64, values, mode=mode)


FILL_CASES = [
    (d, f, x64)
    for d in ("int8", "uint8", "float16", "float32", "bool", "complex64")
    for f in (None, -1, 2.5, True, np.float32(7))
    for x64 in X64
]
SWEEPS["test_at_get_fill_value"] = (("dtype", "fill", "x64"), FILL_CASES, 8, 4, 5)


def test_at_get_fill_value(dtype, fill, x64, values):
    x = array(dtype)
    key = fresh((np.array([0, 9, 2]), slice(None), -1))
    f = lambda a: a.at[key].get(mode="fill", fill_value=fill)  # noqa: E731
    with jax.enable_x64(x64):
        agree(f, f, x, context=f"{dtype} fill_value={fill!r}", values=values)


FLAGS = [{"wrap_negative_indices": False}, {"indices_are_sorted": True},
         {"unique_indices": True}, {"wrap_negative_indices": False, "mode": "clip"}]  # fmt: skip
FLAG_CASES = [
    (op, i, x64) for op in ("get", "set", "add") for i in range(len(FLAGS)) for x64 in X64
]
SWEEPS["test_at_flags"] = (("op", "flags", "x64"), FLAG_CASES, 12, 6, 7)


def test_at_flags(op, flags, x64, values):
    flags = FLAGS[flags]
    key = fresh(np.array([0, 1, -1] if flags.get("wrap_negative_indices") is False else [0, 2]))
    x = array("float32")
    f = at_call(op, key, **flags)
    with jax.enable_x64(x64):
        if op == "get":
            agree(f, f, x, context=f"get {flags}", values=values)
        else:
            agree(f, f, x, np.float32(3), context=f"{op} {flags}", values=values)


TRACED_INDEX_CASES = [
    (op, i, x64)
    for op in ("get", "set", "add", "max")
    for i in ("py_int", "neg_py_int", "i32_arr", "u8_arr", "i8_2d", "i32_scalar", "pair")
    for x64 in X64
]
SWEEPS["test_at_traced_indices"] = (("op", "index", "x64"), TRACED_INDEX_CASES, 20, 4, 3)


def test_at_traced_indices(op, index, x64, values):
    """Indices that are arguments of the traced function (dynamic)."""
    idx = fresh(
        {
            "py_int": 2,
            "neg_py_int": -1,
            "i32_arr": np.array([3, -4, 0], np.int32),
            "u8_arr": np.array([1, 3], np.uint8),
            "i8_2d": np.array([[0, -1], [2, 2]], np.int8),
            "i32_scalar": np.int32(-3),
            "pair": (np.array([0, 2]), np.array([4, -5])),
        }[index]
    )
    x = array("float32")
    with jax.enable_x64(x64):
        f = at_call(op, "dynamic")
        agree(f, f, x, idx, context=f"{op} at traced {index}", values=values)


APPLY_FUNCS = {
    "double": lambda v: v * 2,
    "sin": "sin",
    "square_plus_one": lambda v: v * v + 1,
    "negative": "negative",
}


APPLY_CASES = [
    (i, d, f, x64)
    for i in ("arr_repeat", "slice", "mask")
    for d in ("int32", "float32", "float16", "complex64")
    for f in APPLY_FUNCS
    for x64 in X64
]
SWEEPS["test_at_apply"] = (("index", "dtype", "name", "x64"), APPLY_CASES, 20, 4, 6)


def test_at_apply(index, dtype, name, x64, values):
    fn = APPLY_FUNCS[name]
    if isinstance(fn, str):
        ours, theirs = getattr(wnp, fn), getattr(jnp, fn)
    else:
        ours = theirs = fn
    key = fresh(INDEXES[index])
    x = array(dtype)
    f, g = (lambda a: a.at[key].apply(ours)), (lambda a: a.at[key].apply(theirs))
    with jax.enable_x64(x64):
        if name == "sin" and dtype == "int32":
            # jax traces it and fails when lowering (a float function in an int scatter);
            # weaktrace says so while tracing.
            assert isinstance(run(lambda: jax.jit(g)(x)), ValueError)
            assert isinstance(run(lambda: wt.trace(f).trace(x)), wt.OperandTypeError)
            return
        agree(f, g, x, context=f"{dtype}.at[{index}].apply({name})", values=values)  # fmt: skip


AT_ERRORS = {
    "bool_add": ("bool", lambda x: x.at[1].add(True)),
    "bool_multiply": ("bool", lambda x: x.at[1].multiply(False)),
    "bool_divide": ("bool", lambda x: x.at[1].divide(True)),
    "broadcast": ("float32", lambda x: x.at[1].set(jnp.ones(7))),
    "bad_mode": ("float32", lambda x: x.at[1].set(1.0, mode="bad")),
    "bad_get_mode": ("float32", lambda x: x.at[1].get(mode="wrong")),
    "list_index": ("float32", lambda x: x.at[[0, 1]].set(1.0)),
    "too_many": ("float32", lambda x: x.at[0, 0, 0, 0].set(1.0)),
    "two_ellipses": ("float32", lambda x: x.at[..., 0, ...].set(1.0)),
    "float_index": ("float32", lambda x: x.at[1.5].set(1.0)),
    "float_array_index": ("float32", lambda x: x.at[np.array([1.0])].set(1.0)),
    "fill_not_scalar": ("float32", lambda x: x.at[9].get(mode="fill", fill_value=np.ones(2))),
    "py_int_overflow": ("int32", lambda x: x.at[1].set(2**70)),
    "string_update": ("float32", lambda x: x.at[1].set("a")),
}


@pytest.mark.parametrize(("name", "x64"), marked("test_at_errors_as_jax", [
    (n, x64) for n in AT_ERRORS for x64 in X64]))  # fmt: skip
def test_at_errors_as_jax(name, x64):
    dtype, fn = AT_ERRORS[name]
    with jax.enable_x64(x64):
        theirs = run(lambda: jax.jit(fn)(array(dtype)))
        assert isinstance(theirs, Exception), f"{name}: jax did not raise (fix the case)"
        agree(fn, fn, array(dtype), context=name)


@pytest.mark.parametrize("x64", X64)
def test_at_strict_promotion_raises_as_jax(x64):
    x = array("int8")
    with jax.enable_x64(x64), jax.numpy_dtype_promotion("strict"):
        for y in (np.float32(2.5), np.int16(3)):
            agree(lambda a, b: a.at[1].set(b), lambda a, b: a.at[1].set(b), x, y, context="strict")
        agree(lambda a: a.at[1].set(3), lambda a: a.at[1].set(3), x, context="strict py int")


def test_at_fill_value_must_be_concrete():
    f = lambda a, v: a.at[9].get(mode="fill", fill_value=v)  # noqa: E731
    with pytest.raises(TypeError):
        jax.jit(f)(array("float32"), 2.0)
    with pytest.raises(wt.ConcretizationError):
        wt.trace(f).trace(array("float32"), 2.0)


def test_at_unsafe_cast_warns_as_jax():
    x = array("int8")
    with pytest.warns(FutureWarning):
        jax.jit(lambda a: a.at[1].set(2.5))(x)
    with pytest.warns(FutureWarning, match="scatter inputs have incompatible types"):
        wt.trace(lambda a: a.at[1].set(2.5)).trace(x)
    with warnings_as_errors():
        wt.trace(lambda a: a.at[1].set(3)).trace(x)  # safe: no warning


def warnings_as_errors():
    import warnings

    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("error")

    class _Exit:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            ctx.__exit__(*exc)
            return False

    return _Exit()


@pytest.mark.parametrize(
    "fn",
    [lambda a: a.at[np.array([0, 0, 2])].add(1.0), lambda a: a.at[::2, 1].set(7.0),
     lambda a: a.at[1].apply(wnp.negative if isinstance(a, Tracer) else jnp.negative),
     lambda a: a.at[9].get(mode="fill", fill_value=-3.0), lambda a: a.at[..., None, 1].min(0.0),
     lambda a: a.at[0].divide(2), lambda a: a.at[:, np.array([4, 4])].multiply(-1.0)],
)  # fmt: skip
def test_at_compiled_and_eager(fn):
    """The full harness: weaktrace eager, traced and compiled vs jax eager and jit."""
    with jax.enable_x64(hash(fn.__code__.co_firstlineno) % 2 == 0):
        check(fn, fn, array("float32"))


# -- methods and properties -------------------------------------------------------------

X = {"f32_234": ("float32", (2, 3, 4)), "i8_34": ("int8", (3, 4)), "c64_4": ("complex64", (4,)),
     "bool_23": ("bool", (2, 3)), "bf16_4x1": ("bfloat16", (4, 1)), "u32_0d": ("uint32", ()),
     "f16_2x1x3": ("float16", (2, 1, 3)), "i64_6": ("int64", (6,))}  # fmt: skip

METHODS = {
    "T": lambda a: a.T,
    "mT": lambda a: a.mT,
    "flatten": lambda a: a.flatten(),
    "flatten_F": lambda a: a.flatten(order="F"),
    "ravel": lambda a: a.ravel(),
    "ravel_F": lambda a: a.ravel("F"),
    "ravel_K": lambda a: a.ravel(order="K"),
    "reshape_-1": lambda a: a.reshape(-1),
    "reshape_args": lambda a: a.reshape(a.size, 1),
    "reshape_tuple": lambda a: a.reshape((1, -1)),
    "reshape_F": lambda a: a.reshape((1, -1), order="F"),
    "reshape_F_shape": lambda a: a.reshape(*a.shape[::-1], order="F"),
    "reshape_A": lambda a: a.reshape(-1, order="A"),
    "reshape_bad": lambda a: a.reshape(a.size + 1),
    "squeeze": lambda a: a.squeeze(),
    "squeeze_axis": lambda a: a.squeeze(axis=-2),
    "transpose": lambda a: a.transpose(),
    "transpose_args": lambda a: a.transpose(*range(a.ndim)[::-1]),
    "transpose_tuple": lambda a: a.transpose(tuple(range(a.ndim))),
    "transpose_none": lambda a: a.transpose(None),
    "swapaxes": lambda a: a.swapaxes(0, -1),
    "swapaxes_oob": lambda a: a.swapaxes(0, 5),
    "copy": lambda a: a.copy(),
    "conj": lambda a: a.conj(),
    "conjugate": lambda a: a.conjugate(),
    "real": lambda a: a.real,
    "imag": lambda a: a.imag,
    "clip": lambda a: a.clip(1, 5),
    "clip_max": lambda a: a.clip(max=2),
    "round": lambda a: a.round(),
    "round_1": lambda a: a.round(1),
    "pyround": lambda a: round(a),
    "pyround_2": lambda a: round(a, 2),
    "byteswap": lambda a: a.byteswap(),
    "sum": lambda a: a.sum(),
    "sum_axis": lambda a: a.sum(axis=0, keepdims=True),
    "sum_dtype": lambda a: a.sum(dtype=jnp.float32 if isinstance(a, jax.Array) else wnp.float32),
    "prod": lambda a: a.prod(axis=-1),
    "mean": lambda a: a.mean(),
    "max": lambda a: a.max(axis=0),
    "min": lambda a: a.min(keepdims=True),
    "all": lambda a: a.all(),
    "any": lambda a: a.any(axis=-1),
    "argmax": lambda a: a.argmax(),
    "argmin": lambda a: a.argmin(axis=0, keepdims=True),
    "cumsum": lambda a: a.cumsum(),
    "cumprod": lambda a: a.cumprod(axis=0),
    "std": lambda a: a.std(),
    "ptp": lambda a: a.ptp(),
    "sort": lambda a: a.sort(),
    "argsort": lambda a: a.argsort(),
    "diagonal": lambda a: a.diagonal(),
    "trace": lambda a: a.trace(),
    "take": lambda a: a.take(fresh(np.array([0, 1]))),
    "repeat": lambda a: a.repeat(2),
    "dot": lambda a: a.dot(a.T),
    "eq_tuple": lambda a: a == (1, 2),
    "ne_list": lambda a: a != [1, 2],
    "eq_none": lambda a: a == None,  # noqa: E711
    "divmod": lambda a: divmod(a, 2),
    "flat": lambda a: a.flat,
    "view_same": lambda a: a.view(a.dtype),
    "view_none": lambda a: a.view(),
}
VIEW_TARGETS = ["bool", "int8", "uint8", "int16", "float16", "bfloat16", "int32", "uint32",
                "float32", "int64", "float64", "complex64", "int4"]  # fmt: skip
for _t in VIEW_TARGETS:
    METHODS[f"view_{_t}"] = lambda a, _t=_t: a.view(
        getattr(jnp if isinstance(a, jax.Array) else wnp, _t)
    )
    METHODS[f"astype_{_t}"] = lambda a, _t=_t: a.astype(_t)

NEEDS = {  # methods that forward to a weaktrace.numpy function other work may add
    "cumsum": "cumsum", "cumprod": "cumprod", "std": "std", "ptp": "ptp", "sort": "sort",
    "argsort": "argsort", "diagonal": "diagonal", "trace": "trace", "take": "take",
    "repeat": "repeat", "divmod": "divmod",
}  # fmt: skip

METHOD_CASES = [(m, x, x64) for m in METHODS for x in X for x64 in X64]
SWEEPS["test_method"] = (("method", "x", "x64"), METHOD_CASES, 250, 8, 4)


def test_method(method, x, x64, values):
    dtype, shape = X[x]
    fn = METHODS[method]
    with jax.enable_x64(x64):
        if method in NEEDS and not hasattr(wnp, NEEDS[method]):
            with pytest.raises(NotImplementedError, match=f"weaktrace.numpy.{NEEDS[method]}"):
                wt.trace(fn).trace(array(dtype, shape))
            return
        agree(fn, fn, array(dtype, shape), context=f"{method} of {x}", values=values)


def test_var_method_on_a_tracer():
    """``x.var()`` is jax.Array's method (the tracer's IR atom has another name)."""
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    for kw in ({}, {"axis": 0}, {"axis": 1, "ddof": 1, "keepdims": True}):
        want = jax.make_jaxpr(lambda v, kw=kw: v.var(**kw))(x).out_avals[0]
        got = wt.trace(lambda v, kw=kw: v.var(**kw)).trace(x).out_avals
        assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)


@pytest.mark.parametrize("x64", X64)
@pytest.mark.parametrize("x", list(X))
def test_static_properties(x, x64):
    """shape, dtype, ndim, size, nbytes, itemsize, weak_type, len: Python values under
    a trace, as under jax.jit."""
    dtype, shape = X[x]
    props = ("shape", "dtype", "ndim", "size", "nbytes", "itemsize", "weak_type")
    seen: dict[str, list] = {"jax": [], "wt": []}

    def probe(who):
        def f(a):
            seen[who].append([getattr(a, p) for p in props] + [len(a) if a.ndim else None])
            return a

        return f

    with jax.enable_x64(x64):
        for arg in (array(dtype, shape), 2.5):
            jax.jit(probe("jax"))(arg)
            wt.trace(probe("wt")).trace(arg)
    assert seen["wt"] == seen["jax"]


@pytest.mark.parametrize("what", ["item", "tolist", "len0d", "iter0d", "bool", "setitem"])
def test_concrete_only_methods_raise_as_jax(what):
    fn = {
        "item": lambda a: a.item(),
        "tolist": lambda a: a.tolist(),
        "len0d": lambda a: len(a[0, 0]),
        "iter0d": lambda a: list(a[0, 0]),
        "bool": lambda a: bool(a[0, 0]),
        "setitem": lambda a: a.__setitem__(0, 1.0),
    }[what]
    x = array("float32", (2, 3))
    theirs = run(lambda: jax.jit(fn)(x))
    ours = run(lambda: wt.trace(fn).trace(x))
    assert isinstance(theirs, Exception) and isinstance(ours, Exception)
    assert isinstance(ours, family(theirs)), (theirs, ours)


def test_iteration_and_contains_as_jax():
    x = array("float32", (3, 2))
    agree(lambda a: list(a), lambda a: list(a), x)
    agree(lambda a: [r.sum() for r in a], lambda a: [r.sum() for r in a], x)
    for fn in (lambda a: 1.0 in a, lambda a: 1.0 in a[0, :], lambda a: None in a):
        theirs, ours = run(lambda f=fn: jax.jit(f)(x)), run(lambda f=fn: wt.trace(f).trace(x))
        assert isinstance(ours, family(theirs)), (theirs, ours)


def test_array_namespace_is_weaktrace_numpy():
    seen = []
    wt.trace(lambda a: seen.append(a.__array_namespace__()) or a).trace(np.ones(2))
    assert seen == [wnp]


@pytest.mark.parametrize(
    "fn",
    [lambda a: a.T @ a, lambda a: a.reshape(2, -1, order="F").sum(axis=0),
     lambda a: a.view(jnp.int32 if isinstance(a, jax.Array) else wnp.int32) >> 23,
     lambda a: a.mT.clip(0, 1).round(), lambda a: a.byteswap().flatten()],
)  # fmt: skip
def test_methods_compiled_and_eager(fn):
    with jax.enable_x64(True):
        check(fn, fn, array("float32", (3, 4)))
