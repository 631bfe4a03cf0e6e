"""Eager and traced weaktrace against eager and jitted JAX: four ways, one answer.

Every weaktrace.numpy function has one code path: outside a trace it evaluates eagerly
through the same primitives and lowering rules that a trace records and compiles. The
claim under test: weaktrace eager and weaktrace traced cannot disagree, and both agree
with JAX. Each program (random ones from tests/programs.py, and one call of every public
function) runs four ways:

    wt_eager    the program with weaktrace.numpy, called directly (no trace)
    wt_traced   ``weaktrace.trace(program)(*args)`` (traced, compiled, run)
    jax_eager   the program with jax.numpy, called directly
    jax_jit     ``jax.jit(program)(*args)``

and we compare wt_eager with jax_eager, wt_traced with jax_jit, and wt_eager with
wt_traced: shapes, dtypes, weak flags, values (integers and bools exactly, floating
values within a few ulps, NaN-aware), x64 off and on. Where JAX raises, weaktrace raises
in the same mode with an exception of the same builtin family (TypeError, ValueError,
...). Where JAX itself gives a different answer eager and under jit (a Python scalar is
a constant eagerly but a traced argument under jit, and jax.numpy looks at constants,
e.g. ``power(int_array, -2)``), weaktrace must follow JAX in each mode, so only the
first two comparisons apply. Eager weaktrace hands back jax arrays, never its tracers;
so, eagerly, operators and methods on its results (``x + 1``, ``x.astype``, ``x[0]``)
are jax's own, and only the traced run exercises weaktrace's operators.

CI runs a deterministic sample; ``--run-slow`` (or WEAKTRACE_FULL=1) runs the full sweep.
Mismatches we know of are listed in KNOWN_MISMATCHES, one entry per root cause with a
minimal repro marked xfail(strict=True); a sweep program whose first diverging step is
such a case is an xfail too, anything else fails.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import pathlib
import random
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.four_way_more import MORE
from tests.programs import OPERATORS, SCALARS, Program, Step, _apply, make_args, random_program
from weaktrace.core.trace import Tracer

WAYS = ("wt_eager", "wt_traced", "jax_eager", "jax_jit")
N_SWEEP = {"ci": 10, "full": 1500}  # random programs per x64 mode

# -- running a program four ways -------------------------------------------------------


def make_fn(program: Program, xnp: Any, computed: list[Any] | None = None) -> Callable[..., Any]:
    """tests.programs.make_fn, except that an operator whose operands are all plain
    Python or numpy values gets its first program value lifted with ``xnp.asarray``.
    Eagerly ``np_array + 3`` (or ``2 + 0.5``) is NumPy's (Python's) arithmetic, not
    the library's; traced, the same values are tracers. The lift makes eager compute
    what the trace computes, in both libraries alike. `computed` collects every step's
    result (to check that eager weaktrace hands out jax arrays only)."""

    def fn(*args: Any) -> tuple[Any, ...]:
        pool = list(args)
        for s in program.steps:
            vals = [pool[i] if i >= 0 else SCALARS[-1 - i] for i in s.operands]
            if s.op in OPERATORS and not any(_is_array(v) for v in vals):
                k = next(j for j, i in enumerate(s.operands) if i >= 0)
                vals[k] = xnp.asarray(vals[k])
            if s.op in _BITWISE and _narrows_int64(vals):
                s = Step("add", s.operands)
            out = _apply(xnp, s, vals)
            if computed is not None:
                computed.append(out)
            pool.append(out)
        return tuple(pool[-program.n_out :])

    return fn


_BITWISE = {"op_and", "op_or", "op_xor", "bitwise_and", "bitwise_or", "bitwise_xor"}


def _narrows_int64(vals: list[Any]) -> bool:
    """XLA's CPU compiler segfaults (jax 0.10.2) on a 64-bit integer array converted to a
    narrower integer and then and-ed/or-ed/xor-ed, e.g. under x64
    ``jax.jit(lambda a, b: a | b)(jnp.full((3,), 3), jnp.ones((3,), jnp.int32))``; such
    a step adds instead, on all four ways alike (a crash would end the whole run)."""
    dts = [np.dtype(v.dtype) for v in vals if hasattr(v, "dtype")]
    ints = [d for d in dts if d.kind in "biu"]
    return any(d.itemsize == 8 and d.kind in "iu" for d in ints) and any(
        d.itemsize != 8 for d in ints
    )


def _is_array(v: Any) -> bool:
    return isinstance(v, jax.Array | Tracer)


def _as_array(x: Any) -> jax.Array:
    """An output as a jax array: a program may return one of its arguments as it is (a
    Python scalar or numpy value eagerly; under jit it is a traced argument)."""
    return x if isinstance(x, jax.Array) else jnp.asarray(x)


@dataclasses.dataclass
class Runs:
    """The four results (a list of jax arrays, or the exception raised)."""

    results: dict[str, Any]
    non_arrays: list[str]  # eager weaktrace values that were not jax arrays

    def __str__(self) -> str:
        lines = [f"  {w:9s} {_describe(self.results[w])}" for w in WAYS]
        if self.non_arrays:
            lines.append(f"  eager weaktrace handed out non-jax values: {self.non_arrays}")
        return "\n".join(lines)


def _describe(r: Any) -> str:
    if isinstance(r, BaseException):
        return f"raised {type(r).__name__}: {str(r).splitlines()[0][:120] if str(r) else ''}"
    return "; ".join(
        f"{a.dtype}{list(a.shape)}{' weak' if a.weak_type else ''} {np.asarray(a).ravel()[:4]}"
        for a in r
    )


def run_four(build: Callable[[Any, list[Any] | None], Callable[..., Any]], args: Sequence[Any],
             x64: bool) -> Runs:  # fmt: skip
    """Run `build(xnp, computed)` (a function of `args`) the four ways under x64 or not."""
    computed: list[Any] = []
    thunks = {
        "wt_eager": lambda: build(wnp, computed)(*args),
        "wt_traced": lambda: wt.trace(build(wnp, None))(*args),
        "jax_eager": lambda: build(jnp, None)(*args),
        "jax_jit": lambda: jax.jit(build(jnp, None))(*args),
    }
    results: dict[str, Any] = {}
    for way, thunk in thunks.items():
        with jax.enable_x64(x64), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                results[way] = [_as_array(o) for o in jax.tree_util.tree_leaves(thunk())]
            except Exception as e:  # compared below
                results[way] = e
    non_arrays = [  # each leaf: split, unstack, meshgrid... return lists and tuples, as jax
        f"{type(v).__name__}"
        for v in jax.tree_util.tree_leaves(computed)
        if not isinstance(v, jax.Array) or _is_tracer(v)
    ]
    return Runs(results, non_arrays)


def _is_tracer(v: Any) -> bool:
    return isinstance(v, Tracer)


def program_runs(program: Program, x64: bool) -> Runs:
    args = make_args(program, seed=1, x64=x64)
    return run_four(lambda xnp, computed: make_fn(program, xnp, computed), args, x64)


# -- comparing -------------------------------------------------------------------------

_NOT_FAMILIES = (BaseException, Exception, ArithmeticError, LookupError)
_FAMILIES = tuple(
    c
    for c in vars(builtins).values()
    if isinstance(c, type) and issubclass(c, BaseException) and c not in _NOT_FAMILIES
)


def family(e: BaseException) -> set[type]:
    """The builtin exception classes `e` is an instance of (TypeError, ValueError, ...)."""
    return {c for c in _FAMILIES if isinstance(e, c)}


def _int_like(dt: np.dtype) -> bool:
    return dt.kind in "biu" or dt.name in ("int4", "uint4", "int2", "uint2")


def _values_differ(a: jax.Array, b: jax.Array) -> str | None:
    x, y = np.asarray(a), np.asarray(b)
    if _int_like(x.dtype):
        return None if np.array_equal(x, y) else f"values {x} != {y}"
    wide = np.complex128 if x.dtype.kind == "c" else np.float64
    base = np.finfo(x.dtype).dtype if x.dtype.kind == "c" else x.dtype
    eps = float(jnp.finfo(base).eps)
    try:
        np.testing.assert_allclose(
            y.astype(wide), x.astype(wide), rtol=8 * eps, atol=8 * eps, equal_nan=True
        )
    except AssertionError:
        return f"values {x} != {y}"
    return None


def differ(a: Any, b: Any) -> str | None:
    """Why two results disagree (None when they agree)."""
    ea, eb = isinstance(a, BaseException), isinstance(b, BaseException)
    if ea and eb:
        if family(a) & family(b):
            return None
        return f"raise different families: {type(a).__name__} vs {type(b).__name__}"
    if ea or eb:
        return "one raises, the other does not"
    if len(a) != len(b):
        return f"{len(a)} vs {len(b)} outputs"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        ax = (tuple(x.shape), np.dtype(x.dtype), bool(x.weak_type))
        ay = (tuple(y.shape), np.dtype(y.dtype), bool(y.weak_type))
        if ax != ay:
            return f"output {i}: aval {ax} vs {ay}"
        why = _values_differ(x, y)
        if why:
            return f"output {i}: {why}"
    return None


def disagreements(runs: Runs) -> list[str]:
    """The comparisons that fail: 'wt_eager~jax_eager: why', ..."""
    r = runs.results
    pairs = [("wt_eager", "jax_eager"), ("wt_traced", "jax_jit")]
    if differ(r["jax_eager"], r["jax_jit"]) is None:  # jax consistent: so must we be
        pairs.append(("wt_eager", "wt_traced"))
    out = [f"{a}~{b}: {why}" for a, b in pairs if (why := differ(r[a], r[b]))]
    if runs.non_arrays:
        out.append(f"eager weaktrace returned non-jax values {runs.non_arrays}")
    return out


# -- every public function, called directly -------------------------------------------

# Inputs, made inside the x64 mode they are used in (name -> maker).
INPUTS: dict[str, Callable[[], Any]] = {
    "jax_f32": lambda: jnp.asarray(np.linspace(-1.5, 2, 6, dtype=np.float32).reshape(2, 3)),
    "jax_i8": lambda: jnp.asarray(np.array([[1, -2, 3], [0, 5, -4]], np.int8)),
    "jax_u16": lambda: jnp.asarray(np.array([3, 0, 7], np.uint16)),
    "jax_bool": lambda: jnp.asarray(np.array([[True, False, True], [False, False, True]])),
    "jax_bf16": lambda: jnp.asarray(np.array([0.25, -3.5, 8], jnp.bfloat16)),
    "jax_f16": lambda: jnp.asarray(np.array([[0.5], [-2]], np.float16)),
    "jax_c64": lambda: jnp.asarray(np.array([1 + 2j, -0.5j, 3], np.complex64)),
    "jax_weak_f": lambda: jnp.full((2, 3), 1.5),  # weakly typed
    "jax_weak_i": lambda: jnp.full((3,), 2),
    "np_i32": lambda: np.array([[4, -1, 2], [7, 1, -3]], np.int32),
    "np_f64": lambda: np.array([0.5, -1.25, 3.0]),
    "np_u8_scalar": lambda: np.uint8(200),
    "np_f16_scalar": lambda: np.float16(-0.75),
    "py_int": lambda: 3,
    "py_float": lambda: 0.5,
    "py_complex": lambda: 1 - 2j,
    "py_bool": lambda: True,
}
_UNARY_INPUTS = list(INPUTS)
_BINARY_INPUTS = [
    ("jax_f32", "py_int"), ("jax_i8", "jax_i8"), ("py_float", "jax_bf16"), ("jax_u16", "py_int"),
    ("jax_bool", "jax_bool"), ("np_i32", "jax_f16"), ("jax_c64", "np_f64"), ("py_int", "jax_i8"),
    ("jax_weak_f", "jax_i8"), ("jax_weak_i", "np_u8_scalar"), ("np_f16_scalar", "jax_u16"),
    ("py_int", "py_float"), ("py_bool", "jax_bool"), ("jax_bf16", "jax_f16"),
    ("py_complex", "jax_weak_i"), ("np_i32", "py_bool"),
]  # fmt: skip

_ONE_ARRAY = [
    "abs", "absolute", "all", "any", "arccos", "arcsin", "arctan", "argmax", "argmin", "array",
    "asarray", "bitwise_not", "cbrt", "ceil", "conj", "conjugate", "cos", "cosh", "exp", "exp2",
    "expm1", "floor", "imag", "invert", "isfinite", "isinf", "isnan", "log", "log10", "log1p",
    "log2", "logical_not", "max", "mean", "min", "negative", "ones_like", "positive", "prod",
    "ravel", "real", "reciprocal", "round", "sign", "sin", "sinh", "sqrt", "square", "squeeze",
    "sum", "tan", "tanh", "transpose", "trunc", "zeros_like",
]  # fmt: skip
_TWO_ARRAYS = [
    "add", "arctan2", "bitwise_and", "bitwise_or", "bitwise_xor", "divide", "equal",
    "floor_divide", "greater", "greater_equal", "left_shift", "less", "less_equal",
    "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "mod", "multiply",
    "not_equal", "pow", "power", "remainder", "right_shift", "subtract", "true_divide",
]  # fmt: skip
_INT_DIVISION_FNS = {"floor_divide", "mod", "remainder"}


@dataclasses.dataclass(frozen=True)
class Call:
    """``fn(xnp, *arrays)`` for the inputs named in `inputs`: a call of the public
    function `name`; `tag` names the kind of call for KNOWN_MISMATCHES' recognisers."""

    id: str
    name: str
    fn: Callable[..., Any]
    inputs: tuple[str, ...]
    tag: str = ""

    @property
    def op(self) -> str:
        return self.tag or self.name


def _one(name: str) -> Callable[..., Any]:
    return lambda xnp, x: getattr(xnp, name)(x)


def _two(name: str) -> Callable[..., Any]:
    if name in _INT_DIVISION_FNS:  # no integer zero divisors (see tests/programs.py)
        return lambda xnp, x, y: getattr(xnp, name)(x, _nonzero(xnp, y))
    return lambda xnp, x, y: getattr(xnp, name)(x, y)


def _nonzero(xnp: Any, y: Any) -> Any:
    if isinstance(y, bool | int):
        return y or 2
    return xnp.where(xnp.equal(y, 0), 1, y)


_IN1: list[tuple[str, ...]] = [("jax_f32",), ("jax_i8",), ("jax_weak_f",), ("jax_bf16",)]
_IN2: list[tuple[str, ...]] = [
    ("jax_f32", "np_f64"),
    ("jax_i8", "jax_u16"),
    ("jax_weak_f", "py_int"),
]


def _calls() -> list[Call]:
    calls = [Call(f"{n}({i})", n, _one(n), (i,)) for n in _ONE_ARRAY for i in _UNARY_INPUTS]
    calls += [
        Call(f"{n}({a},{b})", n, _two(n), (a, b)) for n in _TWO_ARRAYS for a, b in _BINARY_INPUTS
    ]
    special: list[tuple[str, Callable[..., Any], list[tuple[str, ...]]]] = [
        ("arange", lambda xnp: xnp.arange(5), [()]),
        ("arange", lambda xnp: xnp.arange(1, 7.5, 2), [()]),
        ("arange", lambda xnp: xnp.arange(4, dtype=jnp.uint8), [()]),
        ("full", lambda xnp, v: xnp.full((2, 3), v), [("py_float",), ("jax_weak_i",),
                                                      ("np_u8_scalar",), ("py_bool",)]),
        ("full", lambda xnp, v: xnp.full(3, v, dtype=jnp.int16), [("py_int",), ("np_f64",)]),
        ("ones", lambda xnp: xnp.ones((2,)), [()]),
        ("ones", lambda xnp: xnp.ones(3, dtype=jnp.bfloat16), [()]),
        ("zeros", lambda xnp: xnp.zeros((1, 2), bool), [()]),
        ("zeros", lambda xnp: xnp.zeros(()), [()]),
        ("broadcast_to", lambda xnp, x: xnp.broadcast_to(x, (4, 3)),
         [("jax_u16",), ("py_int",), ("np_f64",), ("jax_weak_f",)]),
        ("clip", lambda xnp, x, lo, hi: xnp.clip(x, lo, hi),
         [("jax_f32", "py_int", "py_float"), ("jax_i8", "py_int", "np_u8_scalar"),
          ("jax_u16", "jax_weak_i", "py_int"), ("np_i32", "jax_bf16", "jax_f16")]),
        ("clip", lambda xnp, x, hi: xnp.clip(x, max=hi), [("jax_i8", "py_float")]),
        ("concatenate", lambda xnp, x, y: xnp.concatenate([x, y]),
         [("jax_u16", "jax_weak_i"), ("jax_i8", "np_i32"), ("jax_bf16", "np_f64")]),
        ("concatenate", lambda xnp, x, y: xnp.concatenate([x, y], axis=None),
         [("jax_f32", "jax_i8")]),
        ("stack", lambda xnp, x, y: xnp.stack([x, y]),
         [("jax_f32", "jax_weak_f"), ("py_int", "py_float"), ("jax_u16", "jax_weak_i")]),
        ("stack", lambda xnp, x, y: xnp.stack([x, y], axis=-1), [("jax_i8", "np_i32")]),
        ("expand_dims", lambda xnp, x: xnp.expand_dims(x, 0),
         [("jax_f32",), ("py_int",), ("np_u8_scalar",)]),
        ("expand_dims", lambda xnp, x: xnp.expand_dims(x, (0, -1)), [("jax_bool",)]),
        ("reshape", lambda xnp, x: xnp.reshape(x, (3, -1)), [("jax_f32",), ("np_i32",)]),
        ("reshape", lambda xnp, x: xnp.reshape(x, ()), [("py_float",), ("np_f16_scalar",)]),
        ("full_like", lambda xnp, x, v: xnp.full_like(x, v),
         [("jax_i8", "py_float"), ("jax_weak_f", "py_int"), ("py_int", "py_float"),
          ("np_f64", "jax_bf16"), ("jax_bool", "py_complex")]),
        ("full_like", lambda xnp, x, v: xnp.full_like(x, v, dtype=jnp.float16),
         [("jax_weak_i", "py_int")]),
        ("astype", lambda xnp, x: xnp.astype(x, jnp.int8),
         [("jax_f32",), ("jax_weak_f",), ("py_float",), ("jax_c64",)]),
        ("astype", lambda xnp, x: xnp.astype(x, bool), [("jax_f16",), ("np_i32",)]),
        ("where", lambda xnp, c, x, y: xnp.where(c, x, y),
         [("jax_bool", "jax_f32", "py_int"), ("jax_bool", "py_int", "py_float"),
          ("py_bool", "jax_i8", "jax_u16"), ("jax_bool", "jax_weak_f", "jax_bf16")]),
        ("dot", lambda xnp, x, y: xnp.dot(x, y),
         [("jax_f32", "np_f64"), ("jax_i8", "jax_u16"), ("py_int", "jax_bf16"),
          ("jax_c64", "jax_c64"), ("jax_bool", "jax_u16")]),
        ("matmul", lambda xnp, x, y: xnp.matmul(x, y),
         [("jax_f32", "np_f64"), ("jax_i8", "jax_u16"), ("jax_weak_f", "jax_weak_i"),
          ("jax_bool", "jax_bool"), ("np_i32", "jax_bf16")]),
        ("sum", lambda xnp, x: xnp.sum(x, axis=0, keepdims=True),
         [("jax_i8",), ("jax_bool",), ("jax_weak_f",), ("jax_bf16",)]),
        ("sum", lambda xnp, x: xnp.sum(x, dtype=jnp.int16), [("jax_u16",), ("jax_f32",)]),
        ("mean", lambda xnp, x: xnp.mean(x, axis=-1), [("jax_i8",), ("jax_f16",),
                                                       ("jax_bool",)]),
        ("prod", lambda xnp, x: xnp.prod(x, axis=1), [("np_i32",), ("jax_weak_f",)]),
        ("max", lambda xnp, x: xnp.max(x, axis=0), [("jax_bool",), ("jax_u16",)]),
        ("min", lambda xnp, x: xnp.min(x, axis=1, keepdims=True), [("jax_f32",)]),
        ("argmax", lambda xnp, x: xnp.argmax(x, axis=1), [("jax_f32",), ("np_i32",)]),
        ("argmin", lambda xnp, x: xnp.argmin(x, axis=0, keepdims=True), [("jax_i8",)]),
        ("all", lambda xnp, x: xnp.all(x, axis=1), [("jax_bool",), ("jax_f32",)]),
        ("any", lambda xnp, x: xnp.any(x, axis=0), [("jax_i8",)]),
        ("transpose", lambda xnp, x: xnp.transpose(x, (1, 0)), [("jax_f32",)]),
        ("squeeze", lambda xnp, x: xnp.squeeze(x, axis=1), [("jax_f16",)]),
        ("round", lambda xnp, x: xnp.round(x, 1), [("jax_f32",), ("jax_weak_f",)]),
        ("asarray", lambda xnp, x: xnp.asarray(x, dtype=jnp.float16),
         [("py_int",), ("jax_i8",), ("np_f64",)]),
        ("array", lambda xnp, x: xnp.array(x, dtype=jnp.int16), [("py_float",), ("jax_f32",)]),
        ("isscalar", lambda xnp, x: jnp.asarray(xnp.isscalar(x)),
         [("py_int",), ("jax_f32",), ("np_f16_scalar",), ("jax_weak_i",)]),
        # creation, manipulation and indexing (weaktrace/numpy/manipulation.py, gathers.py,
        # creation_more.py, windows.py, index_tricks.py)
        ("append", lambda xnp, x, y: xnp.append(x, y),
         [("jax_i8", "jax_u16"), ("py_int", "jax_bf16")]),
        ("apply_along_axis", lambda xnp, x: xnp.apply_along_axis(lambda r: r[::-1], 1, x),
         [("jax_f32",), ("jax_weak_f",)]),
        ("apply_over_axes", lambda xnp, x: xnp.apply_over_axes(xnp.sum, x, [0]), [("jax_i8",)]),
        ("array_split", lambda xnp, x: xnp.array_split(x, 2, axis=1), [("jax_f32",), ("np_i32",)]),
        ("atleast_1d", lambda xnp, x: xnp.atleast_1d(x), [("py_float",), ("np_u8_scalar",)]),
        ("atleast_2d", lambda xnp, x, y: xnp.atleast_2d(x, y), [("jax_u16", "py_int")]),
        ("atleast_3d", lambda xnp, x: xnp.atleast_3d(x), [("jax_f32",), ("jax_weak_i",)]),
        ("bartlett", lambda xnp: xnp.bartlett(5), [()]),
        ("blackman", lambda xnp: xnp.blackman(4), [()]),
        ("hamming", lambda xnp: xnp.hamming(3), [()]),
        ("hanning", lambda xnp: xnp.hanning(6), [()]),
        ("kaiser", lambda xnp, b: xnp.kaiser(4, b), [("py_float",), ("jax_bf16",)]),
        ("block", lambda xnp, x, y: xnp.block([[x, x], [y, y]]), [("jax_f32", "jax_i8")]),
        ("broadcast_arrays", lambda xnp, x, y: xnp.broadcast_arrays(x, y),
         [("jax_f16", "jax_u16"), ("py_int", "jax_f32")]),
        ("broadcast_shapes", lambda xnp: jnp.asarray(xnp.broadcast_shapes((2, 1), (3,))), [()]),
        ("choose", lambda xnp, x, y: xnp.choose(jnp.asarray([0, 1, 1]), [x, y], mode="clip"),
         [("jax_u16", "jax_bf16"), ("np_f64", "py_int")]),
        ("column_stack", lambda xnp, x, y: xnp.column_stack([x, y]), [("jax_u16", "jax_bf16")]),
        ("compress", lambda xnp, x: xnp.compress(jnp.asarray([True, False, True]), x, axis=1,
                                                 size=2), [("jax_f32",), ("jax_bool",)]),
        ("concat", lambda xnp, x, y: xnp.concat([x, y], axis=1), [("jax_f32", "np_i32")]),
        ("copy", lambda xnp, x: xnp.copy(x), [("jax_weak_f",), ("py_int",)]),
        ("delete", lambda xnp, x: xnp.delete(x, 1, axis=1), [("jax_i8",), ("jax_weak_f",)]),
        ("diag", lambda xnp, x: xnp.diag(x, 1), [("jax_u16",), ("jax_f32",)]),
        ("diag_indices", lambda xnp: xnp.diag_indices(3), [()]),
        ("diag_indices_from", lambda xnp, x: xnp.diag_indices_from(x[:, :1]), [("jax_f16",)]),
        ("diagflat", lambda xnp, x: xnp.diagflat(x), [("jax_c64",), ("jax_weak_i",)]),
        ("diagonal", lambda xnp, x: xnp.diagonal(x, -1), [("jax_i8",), ("jax_bool",)]),
        ("dsplit", lambda xnp, x: xnp.dsplit(x[None], [1]), [("jax_f32",)]),
        ("dstack", lambda xnp, x, y: xnp.dstack([x, y]), [("jax_u16", "jax_bf16")]),
        ("empty", lambda xnp: xnp.empty((2,), jnp.int8), [()]),
        ("empty_like", lambda xnp, x: xnp.empty_like(x), [("jax_weak_f",), ("jax_bf16",)]),
        ("extract", lambda xnp, x: xnp.extract(jnp.asarray([[True, False, True]] * 2), x, size=5),
         [("jax_f32",), ("np_i32",)]),
        ("eye", lambda xnp: xnp.eye(2, 3, k=1, dtype=jnp.int16), [()]),
        ("fill_diagonal", lambda xnp, x, v: xnp.fill_diagonal(x, v, inplace=False),
         [("jax_f32", "py_int"), ("jax_i8", "py_float")]),
        ("flip", lambda xnp, x: xnp.flip(x), [("jax_f32",), ("py_int",)]),
        ("fliplr", lambda xnp, x: xnp.fliplr(x), [("jax_i8",)]),
        ("flipud", lambda xnp, x: xnp.flipud(x), [("jax_bf16",)]),
        ("fromfunction", lambda xnp: xnp.fromfunction(lambda i, j: i - j, (2, 3), dtype=int),
         [()]),
        ("geomspace", lambda xnp, x: xnp.geomspace(x, 100, 3), [("py_int",), ("jax_weak_f",)]),
        ("hsplit", lambda xnp, x: xnp.hsplit(x, 3), [("jax_f32",), ("jax_u16",)]),
        ("hstack", lambda xnp, x, y: xnp.hstack([x, y]), [("jax_u16", "jax_bf16"),
                                                          ("py_int", "jax_weak_i")]),
        ("identity", lambda xnp: xnp.identity(2, bool), [()]),
        ("indices", lambda xnp: xnp.indices((2, 3)), [()]),
        ("insert", lambda xnp, x, v: xnp.insert(x, 1, v), [("jax_u16", "py_int"),
                                                           ("jax_f32", "jax_bf16")]),
        ("ix_", lambda xnp, x: xnp.ix_(x, x), [("jax_u16",)]),
        ("linspace", lambda xnp, a, c: xnp.linspace(a, c, 4), [("py_int", "py_float"),
                                                                ("jax_bf16", "np_f64")]),
        ("logspace", lambda xnp, a: xnp.logspace(a, 2, 3), [("py_int",), ("jax_f16",)]),
        ("mask_indices", lambda xnp: xnp.mask_indices(3, xnp.triu, size=6), [()]),
        ("matrix_transpose", lambda xnp, x: xnp.matrix_transpose(x), [("jax_f32",)]),
        ("meshgrid", lambda xnp, x, y: xnp.meshgrid(x, y), [("jax_u16", "jax_bf16")]),
        ("moveaxis", lambda xnp, x: xnp.moveaxis(x, 0, 1), [("jax_f32",), ("jax_weak_f",)]),
        ("ndim", lambda xnp, x: jnp.asarray(xnp.ndim(x)), [("jax_f32",), ("py_int",)]),
        ("shape", lambda xnp, x: jnp.asarray(xnp.shape(x)), [("jax_f32",)]),
        ("size", lambda xnp, x: jnp.asarray(xnp.size(x)), [("np_i32",)]),
        ("iterable", lambda xnp, x: jnp.asarray(xnp.iterable(x)), [("jax_f32",), ("py_int",)]),
        ("permute_dims", lambda xnp, x: xnp.permute_dims(x, (1, 0)), [("jax_i8",)]),
        ("place", lambda xnp, x, v: xnp.place(x, x > 0, v, inplace=False),
         [("jax_f32", "py_int"), ("np_i32", "jax_u16")]),
        ("put", lambda xnp, x, v: xnp.put(x, jnp.asarray([0, 4]), v, inplace=False),
         [("jax_f32", "py_float"), ("jax_i8", "py_int")]),
        ("put_along_axis", lambda xnp, x, v: xnp.put_along_axis(
            x, jnp.asarray([[1], [0]]), v, axis=1, inplace=False), [("jax_f32", "py_int")]),
        ("ravel_multi_index", lambda xnp, x: xnp.ravel_multi_index((x, x), (3, 8), mode="clip"),
         [("jax_u16",), ("jax_weak_i",)]),
        ("unravel_index", lambda xnp, x: xnp.unravel_index(x, (2, 3)), [("jax_u16",), ("py_int",)]),
        ("repeat", lambda xnp, x: xnp.repeat(x, 2, axis=0), [("jax_f32",), ("jax_weak_i",)]),
        ("resize", lambda xnp, x: xnp.resize(x, (2, 2)), [("jax_u16",), ("py_float",)]),
        ("roll", lambda xnp, x: xnp.roll(x, 1, axis=1), [("jax_i8",), ("jax_weak_f",)]),
        ("rollaxis", lambda xnp, x: xnp.rollaxis(x, 1), [("jax_f32",)]),
        ("rot90", lambda xnp, x: xnp.rot90(x), [("jax_bool",)]),
        ("split", lambda xnp, x: xnp.split(x, [1], axis=1), [("jax_f32",), ("jax_weak_f",)]),
        ("swapaxes", lambda xnp, x: xnp.swapaxes(x, 0, 1), [("np_i32",)]),
        ("take", lambda xnp, x: xnp.take(x, jnp.asarray([0, 2, 5])), [("jax_f32",), ("jax_i8",),
                                                                        ("jax_weak_f",)]),
        ("take_along_axis", lambda xnp, x: xnp.take_along_axis(x, jnp.asarray([[2], [0]]), 1),
         [("jax_f32",), ("jax_bool",)]),
        ("tile", lambda xnp, x: xnp.tile(x, (2, 1)), [("jax_u16",), ("py_int",)]),
        ("tri", lambda xnp: xnp.tri(2, 3), [()]),
        ("tril_indices", lambda xnp: xnp.tril_indices(3, 1), [()]),
        ("tril_indices_from", lambda xnp, x: xnp.tril_indices_from(x), [("jax_f32",)]),
        ("triu_indices", lambda xnp: xnp.triu_indices(2, 0, 3), [()]),
        ("triu_indices_from", lambda xnp, x: xnp.triu_indices_from(x, -1), [("np_i32",)]),
        ("trim_zeros", lambda xnp: xnp.trim_zeros(np.array([0, 1, 0, 2, 0])), [()]),
        ("unstack", lambda xnp, x: xnp.unstack(x, axis=1), [("jax_f32",)]),
        ("vander", lambda xnp, x: xnp.vander(x), [("jax_u16",), ("jax_bf16",)]),
        ("vsplit", lambda xnp, x: xnp.vsplit(x, 2), [("jax_i8",)]),
        ("vstack", lambda xnp, x, y: xnp.vstack([x, y]), [("jax_u16", "jax_bf16")]),
        ("mgrid", lambda xnp: xnp.mgrid[0:2, 0:3], [()]),
        ("ogrid", lambda xnp: xnp.ogrid[0:2, 1:4:2], [()]),
        ("r_", lambda xnp, x, y: xnp.r_[x, y, 0:2], [("jax_u16", "jax_bf16")]),
        ("c_", lambda xnp, x, y: xnp.c_[x, y], [("jax_u16", "jax_bf16")]),
        # vectorize, ufuncs, set operations and bits (vectorizing.py, ufunc_api.py,
        # sets_more.py, functional.py)
        ("vectorize", lambda xnp, x, y: xnp.vectorize(lambda u, v: u * v - 1)(x, y),
         [("jax_f32", "jax_u16"), ("jax_i8", "py_float"), ("jax_weak_f", "jax_weak_i")]),
        ("vectorize", lambda xnp, x: xnp.vectorize(lambda r: xnp.sum(r), signature="(n)->()")(x),
         [("jax_i8",), ("jax_bf16",)]),
        ("piecewise", lambda xnp, x: xnp.piecewise(x, [x < 0, x > 1], [lambda v: v * 2, 0.5, 7]),
         [("jax_f32",), ("jax_i8",), ("jax_weak_f",), ("py_float",)]),
        ("frompyfunc", lambda xnp, x: xnp.frompyfunc(lambda a, b: a + b, 2, 1, identity=0)
         .reduce(x, axis=0), [("jax_i8",), ("jax_weak_f",), ("jax_bool",)]),
        ("frompyfunc", lambda xnp, x: xnp.frompyfunc(lambda a, b: a * b, 2, 1)
         .accumulate(x, axis=1), [("jax_f32",), ("np_i32",)]),
        ("ufunc", lambda xnp, x, y: xnp.ufunc(lambda a, b: a - b, 2, 1).outer(x, y),
         [("jax_u16", "jax_bf16"), ("py_int", "jax_f16")]),
        ("ufunc", lambda xnp, x, y: xnp.ufunc(lambda a, b: a + b, 2, 1)
         .at(x, jnp.asarray([0, 2, 2]), y, inplace=False), [("jax_u16", "py_int"),
                                                            ("jax_bf16", "py_float")]),
        ("intersect1d", lambda xnp, x, y: xnp.intersect1d(x, y, size=3, return_indices=True),
         [("jax_i8", "np_i32"), ("jax_u16", "jax_weak_i"), ("py_int", "jax_i8")]),
        ("setxor1d", lambda xnp, x, y: xnp.setxor1d(x, y, size=4),
         [("jax_i8", "np_i32"), ("jax_f32", "jax_weak_f"), ("py_int", "jax_u16")]),
        ("unpackbits", lambda xnp, x: xnp.unpackbits(x, count=5), [("np_u8_scalar",)]),
        ("unpackbits", lambda xnp: xnp.unpackbits(jnp.asarray(np.array([[3, 200]], np.uint8)),
                                                  axis=1, bitorder="little"), [()]),
        # more unary and binary functions, on a spread of inputs
        ("acos", lambda xnp, x: xnp.acos(x), _IN1),
        ("asin", lambda xnp, x: xnp.asin(x), _IN1),
        ("atan", lambda xnp, x: xnp.atan(x), _IN1),
        ("asinh", lambda xnp, x: xnp.asinh(x), _IN1),
        ("arcsinh", lambda xnp, x: xnp.arcsinh(x), _IN1),
        ("angle", lambda xnp, x: xnp.angle(x), _IN1),
        ("deg2rad", lambda xnp, x: xnp.deg2rad(x), _IN1),
        ("degrees", lambda xnp, x: xnp.degrees(x), _IN1),
        ("rad2deg", lambda xnp, x: xnp.rad2deg(x), _IN1),
        ("radians", lambda xnp, x: xnp.radians(x), _IN1),
        ("fabs", lambda xnp, x: xnp.fabs(x), _IN1),
        ("rint", lambda xnp, x: xnp.rint(x), _IN1),
        ("signbit", lambda xnp, x: xnp.signbit(x), _IN1),
        ("sinc", lambda xnp, x: xnp.sinc(x), _IN1),
        ("isneginf", lambda xnp, x: xnp.isneginf(x), _IN1),
        ("isposinf", lambda xnp, x: xnp.isposinf(x), _IN1),
        ("isreal", lambda xnp, x: xnp.isreal(x), _IN1),
        ("iscomplex", lambda xnp, x: xnp.iscomplex(x), _IN1),
        ("nan_to_num", lambda xnp, x: xnp.nan_to_num(x), _IN1),
        ("cumsum", lambda xnp, x: xnp.cumsum(x), _IN1),
        ("cumprod", lambda xnp, x: xnp.cumprod(x), _IN1),
        ("cumulative_sum", lambda xnp, x: xnp.cumulative_sum(x), _IN1),
        ("nancumsum", lambda xnp, x: xnp.nancumsum(x), _IN1),
        ("nansum", lambda xnp, x: xnp.nansum(x), _IN1),
        ("nanmax", lambda xnp, x: xnp.nanmax(x), _IN1),
        ("nanmin", lambda xnp, x: xnp.nanmin(x), _IN1),
        ("nanmean", lambda xnp, x: xnp.nanmean(x), _IN1),
        ("amax", lambda xnp, x: xnp.amax(x), _IN1),
        ("amin", lambda xnp, x: xnp.amin(x), _IN1),
        ("ptp", lambda xnp, x: xnp.ptp(x), _IN1),
        ("std", lambda xnp, x: xnp.std(x), _IN1),
        ("var", lambda xnp, x: xnp.var(x), _IN1),
        ("median", lambda xnp, x: xnp.median(x), _IN1),
        ("count_nonzero", lambda xnp, x: xnp.count_nonzero(x), _IN1),
        ("sort", lambda xnp, x: xnp.sort(x), _IN1),
        ("argsort", lambda xnp, x: xnp.argsort(x), _IN1),
        ("ediff1d", lambda xnp, x: xnp.ediff1d(x), _IN1),
        ("around", lambda xnp, x: xnp.around(x), _IN1),
        ("i0", lambda xnp, x: xnp.i0(x), _IN1),
        ("spacing", lambda xnp, x: xnp.spacing(x), _IN1),
        ("atan2", lambda xnp, x, y: xnp.atan2(x, y), _IN2),
        ("copysign", lambda xnp, x, y: xnp.copysign(x, y), _IN2),
        ("fmax", lambda xnp, x, y: xnp.fmax(x, y), _IN2),
        ("fmin", lambda xnp, x, y: xnp.fmin(x, y), _IN2),
        ("hypot", lambda xnp, x, y: xnp.hypot(x, y), _IN2),
        ("logaddexp", lambda xnp, x, y: xnp.logaddexp(x, y), _IN2),
        ("nextafter", lambda xnp, x, y: xnp.nextafter(x, y), _IN2),
        ("heaviside", lambda xnp, x, y: xnp.heaviside(x, y), _IN2),
        ("isclose", lambda xnp, x, y: xnp.isclose(x, y), _IN2),
        ("inner", lambda xnp, x, y: xnp.inner(x, y), _IN2),
        ("outer", lambda xnp, x, y: xnp.outer(x, y), _IN2),
        ("kron", lambda xnp, x, y: xnp.kron(x, y), _IN2),
        ("vdot", lambda xnp, x, y: xnp.vdot(x, y), _IN2),
        ("polyadd", lambda xnp, x, y: xnp.polyadd(x, y), _IN2),
        ("polysub", lambda xnp, x, y: xnp.polysub(x, y), _IN2),
        ("polymul", lambda xnp, x, y: xnp.polymul(x, y), _IN2),
        ("float_power", lambda xnp, x, y: xnp.float_power(x, y), _IN2),
        ("array_equal", lambda xnp, x, y: xnp.array_equal(x, y), _IN2),
        ("array_equiv", lambda xnp, x, y: xnp.array_equiv(x, y), _IN2),
        ("isin", lambda xnp, x, y: xnp.isin(x, y), _IN2),
    ]  # fmt: skip
    for name, fn, input_sets in special + MORE:
        calls += [Call(f"{name}({','.join(ins)})#{i}", name, fn, ins)
                  for i, ins in enumerate(input_sets)]  # fmt: skip
    # a sequence of arrays (not tracers, eagerly) -> array
    seq = lambda xnp, x, y: xnp.array([x, y])  # noqa: E731
    calls += [Call(f"array([{a},{b}])", "array", seq, (a, b), tag="array_of_arrays")
              for a, b in [("jax_i8", "jax_i8"), ("np_i32", "jax_weak_f"),
                           ("jax_bf16", "np_f64"), ("jax_weak_i", "jax_u16"),
                           ("jax_bf16", "np_f16_scalar")]]  # fmt: skip
    return calls


CALLS = _calls()


# Public names with no four-way call, each with its reason (dtype-hierarchy types, host-side
# I/O and printing): a new function either gets calls above or a justified line here.
_EXCLUDED = pathlib.Path(__file__).parent / "data" / "four_way_excluded.txt"


def _excluded() -> dict[str, str]:
    lines = [ln for ln in _EXCLUDED.read_text().splitlines() if ln and not ln.startswith("#")]
    return dict(ln.split("  ", 1) for ln in lines)


def test_calls_cover_every_public_function() -> None:
    called = {c.name for c in CALLS}
    excluded = _excluded()
    public = set(wnp.__all__)
    assert all(reason.strip() for reason in excluded.values()), "each exclusion needs a reason"
    assert not called - public, f"calls of non-public names: {sorted(called - public)}"
    assert not set(excluded) & called, (
        f"called, so remove from {_EXCLUDED.name}: {sorted(set(excluded) & called)}"
    )
    assert not set(excluded) - public, (
        f"not public, remove from {_EXCLUDED.name}: {sorted(set(excluded) - public)}"
    )
    uncovered = public - called - set(excluded)
    assert not uncovered, f"public functions with no four-way call: {sorted(uncovered)}"


def _sampled_calls(full: bool, x64: bool) -> list[Call]:
    """All calls, or (CI) one call per function, in one x64 mode drawn for it."""
    if full:
        return CALLS
    by_fn: dict[str, list[Call]] = {}
    for c in CALLS:
        by_fn.setdefault(c.name, []).append(c)
    out = []
    for name, cs in by_fn.items():
        rng = random.Random(f"calls-{name}")
        if (rng.random() < 0.5) == x64:
            out.append(rng.choice(cs))
    return out


def call_runs(call: Call, x64: bool) -> Runs:
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = [INPUTS[i]() for i in call.inputs]

    def build(xnp: Any, computed: list[Any] | None) -> Callable[..., Any]:
        def fn(*a: Any) -> Any:
            out = call.fn(xnp, *a)
            if computed is not None:
                computed.append(out)
            return out

        return fn

    return run_four(build, args, x64)


@pytest.mark.slow
@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_public_functions_four_ways(x64: bool, full: bool) -> None:
    """Each public function called directly returns a jax array (not a tracer, not a
    numpy value), and the four ways agree."""
    failures, known = [], []
    for call in _sampled_calls(full, x64):
        runs = call_runs(call, x64)
        bad = disagreements(runs)
        if not bad:
            continue
        entry = f"{call.id} x64={x64}: {bad}\n{runs}"
        cause = _known_call_cause(call, x64)
        (known if cause else failures).append(f"[{cause}] {entry}" if cause else entry)
    assert not failures, "\n".join(failures)
    if known:
        pytest.xfail("only KNOWN_MISMATCHES:\n" + "\n".join(known))


def _known_call_cause(call: Call, x64: bool) -> str | None:
    """A call of one public function is one step: the same recognisers apply."""
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ops = [INPUTS[i]() for i in call.inputs]
    for name, k in KNOWN_MISMATCHES.items():
        if k.recognise(call.op, ops, x64):
            return name
    return None


# -- known mismatches ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Known:
    """One root cause: a minimal program or call that shows it, and how to recognise it
    in a sweep program (at its first diverging step) or in a call of the table."""

    reason: str
    repro: Program | Call
    x64: bool
    recognise: Callable[[str, list[Any], bool], bool]  # (operation, operand values, x64)

    def runs(self) -> Runs:
        if isinstance(self.repro, Call):
            return call_runs(self.repro, self.x64)
        return program_runs(self.repro, self.x64)


def _dtype(v: Any) -> np.dtype:
    return np.dtype(getattr(v, "dtype", type(v)))


def _all_bool(operands: list[Any]) -> bool:
    return all(_dtype(v) == np.dtype(bool) for v in operands)


def _any_complex(operands: list[Any]) -> bool:
    return any(_dtype(v).kind == "c" for v in operands)


# jax.numpy's numeric promotion (jax._src.dtypes.to_numeric_dtype) maps bool to int32,
# always; it is not the default integer.
_NUMERIC_OF_BOOL = {
    "square", "power", "pow", "op_pow", "floor_divide", "op_floordiv", "remainder", "mod",
    "op_mod", "left_shift", "op_lshift", "right_shift", "op_rshift",
}  # fmt: skip

# (session 13: "full_of_big_python_int_x32" is fixed, see test_upstream_regressions_m.py;
# jnp.full/full_like and lax.full/full_like now convert a Python int fill as jax does)
KNOWN_MISMATCHES: dict[str, Known] = {}


def first_divergence(program: Program, x64: bool) -> tuple[Step, list[Any], list[str]] | None:
    """The first step whose value the four ways disagree on: that step, its operand
    values (as jax eager sees them) and the disagreements."""
    for k in range(1, len(program.steps) + 1):
        prefix = Program(program.args, program.steps[:k], 1)
        bad = disagreements(program_runs(prefix, x64))
        if bad:
            step = program.steps[k - 1]
            pool = _jax_eager_pool(prefix, x64)
            ops = [pool[i] if i >= 0 else SCALARS[-1 - i] for i in step.operands]
            return step, ops, bad
    return None


def _jax_eager_pool(program: Program, x64: bool) -> list[Any]:
    args = make_args(program, seed=1, x64=x64)
    pool: list[Any] = list(args)
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(Exception):
            make_fn(program, jnp, pool)(*args)
    return pool


def known_cause(program: Program, x64: bool) -> tuple[str | None, str]:
    """The KNOWN_MISMATCHES entry explaining a failing program (or None), and where it
    first diverges."""
    found = first_divergence(program, x64)
    if found is None:
        return None, "no single step diverges (the whole program does)"
    step, ops, bad = found
    where = f"first diverging step: {step.op}{step.operands} on {[_operand(v) for v in ops]}: {bad}"
    for name, known in KNOWN_MISMATCHES.items():
        if known.recognise(step.op, ops, x64):
            return name, where
    return None, where


def _operand(v: Any) -> str:
    if isinstance(v, jax.Array):
        return f"{v.dtype}{list(v.shape)}{' weak' if v.weak_type else ''}"
    if isinstance(v, np.ndarray | np.generic):
        return f"numpy {v.dtype}{list(np.shape(v))}"
    return repr(v)


# -- the random sweep ------------------------------------------------------------------


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "sweep_seed" in metafunc.fixturenames:
        n = N_SWEEP["full" if full_run(metafunc.config) else "ci"]
        metafunc.parametrize("sweep_seed", range(n))


@pytest.mark.slow
@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_random_programs_four_ways(x64: bool, sweep_seed: int) -> None:
    program = random_program(random.Random(f"eager-traced-{sweep_seed}"))
    runs = program_runs(program, x64)
    bad = disagreements(runs)
    if not bad:
        return
    cause, where = known_cause(program, x64)
    context = f"x64={x64}\n{program}\n{runs}\n{where}"
    if cause is not None:
        pytest.xfail(f"KNOWN_MISMATCHES[{cause!r}]: {context}")
    pytest.fail("\n".join(bad) + "\n" + context)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=known.reason))
        for name, known in KNOWN_MISMATCHES.items()
    ],
)
def test_known_mismatch(name: str) -> None:
    known = KNOWN_MISMATCHES[name]
    runs = known.runs()
    bad = disagreements(runs)
    assert not bad, "\n".join(bad) + f"\n{known.repro}\n{runs}"


# the sweep's machinery must see a mismatch when there is one
def test_disagreements_are_seen() -> None:
    a = [jnp.asarray(np.float32(1.0))]
    b = [jnp.asarray(np.float32(1.5))]
    c = [jnp.asarray(1.0)]  # weak
    same = {"wt_eager": a, "wt_traced": a, "jax_eager": a, "jax_jit": a}
    assert disagreements(Runs(same, [])) == []
    assert disagreements(Runs({**same, "wt_traced": b}, []))  # values
    assert disagreements(Runs({**same, "wt_eager": c}, []))  # weak flag
    assert disagreements(Runs({**same, "wt_eager": ValueError()}, []))  # raises
    te, ve = TypeError("x"), ValueError("y")
    raising = {"wt_eager": te, "wt_traced": te, "jax_eager": ve, "jax_jit": ve}
    assert disagreements(Runs(raising, []))  # families
    assert disagreements(Runs(same, ["Tracer"]))
    # jax eager and jit differ: weaktrace follows each
    split = {"wt_eager": ve, "wt_traced": a, "jax_eager": ve, "jax_jit": a}
    assert disagreements(Runs(split, [])) == []
    assert disagreements(Runs({**split, "wt_traced": ve}, []))
