"""NEP 50 promotion, differentially: weaktrace's ``policy("numpy")`` against the live numpy.

The cases of NumPy's own NEP 50 tests (``numpy/_core/tests/test_nep50_promotions.py`` in
numpy/numpy) are ported one by one (``UPSTREAM``) and grown into generators:

- ``strong``: numpy x numpy operands, every pair of numeric dtypes, as N-d arrays, 0-d arrays
  and numpy scalars (NumPy 2 treats 0-d arrays like N-d ones), dynamic or constant;
- ``python``: weak Python scalars (bool, int, float, complex; every int dtype's bounds and one
  beyond, ints only a float holds, ints and floats that overflow float16/32/64, non-finite
  values) with every dtype, on either side, as dynamic arguments and as constants inside the
  traced function (``lambda a: a + 300``);
- ``pypy``: Python x Python (``np.add(1, 2.0)``);
- ``alias``: numpy scalar types that are not the canonical class of their dtype
  (``np.longlong``, ``np.ulonglong``) and arrays in non-native byte order (upstream's ``>u4``);
- ``func``: out-of-range Python ints in array creation (``wnp.array([256], "uint8")``) and
  in ``where``, ``clip``, ``concatenate``, ``full``, ``full_like``;
- ``promote_types`` / ``result_type``: dtypes, scalar types, names, type codes, arrays, 0-d
  arrays, numpy scalars, Python scalars and Python types (upstream's
  ``test_expected_promotion`` families included).

Each binary case runs every ufunc the file names or implies (add ... arctan2), as
``wnp.<ufunc>`` and as the Python operator. The oracle is numpy, called at test time on the
same operands: a case agrees when both raise (weaktrace with one of its own errors or an
OverflowError), or when neither does and the traced dtype (never weak), the compiled
result's dtype (exactly) and its values (``compare_values``) are numpy's.

Cost: tracing is cheap and every case's trace is checked, under jax's x64 flag off or on (a
stable half each, ``mode``). XLA compiles ~5-30 ms per operation, so compiled values are
checked on a stable sample of each case's value pairs (``VALUE_RATES``), many per program.
CI runs a sample of cases (``SAMPLE``); ``--run-slow`` all of them.

Known disagreements are listed in ``KNOWN_MISMATCHES``, one entry per root cause, each with
a predicate that names its cases. Their cases run as strict xfails (a sample of them, with
every compiled value checked): an item fails when the entry is fixed (XPASS) and, for exact
entries, when any case it names already agrees (the list stays minimal). NumPy semantics a
compiled XLA program cannot have are in ``INHERENT``; those cases must raise a clear
error or are not compared.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import operator
import random
import subprocess
import sys
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import weaktrace as wt
import weaktrace.numpy as wnp

NUMPY = wt.policy("numpy")

# -- the universe --------------------------------------------------------------------------

_NAMES = "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
NUMERIC = tuple(np.dtype(n) for n in [*_NAMES.split(), "complex64", "complex128"])
INTS = tuple(d for d in NUMERIC if d.kind in "iu")
# dtypes numpy has and XLA does not: weaktrace refuses them (see test_unsupported_dtypes)
UNSUPPORTED = (np.longdouble, np.clongdouble, object, "S3", "U2", "datetime64[s]", "m8[ns]")

OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
    "true_divide": operator.truediv, "floor_divide": operator.floordiv,
    "remainder": operator.mod, "power": operator.pow, "equal": operator.eq,
    "not_equal": operator.ne, "less": operator.lt, "less_equal": operator.le,
    "greater": operator.gt, "greater_equal": operator.ge, "bitwise_and": operator.and_,
    "bitwise_or": operator.or_, "bitwise_xor": operator.xor, "left_shift": operator.lshift,
    "right_shift": operator.rshift,
}  # fmt: skip
BINARY = (*OPERATORS, "maximum", "minimum", "logical_and", "logical_or", "logical_xor", "arctan2")
COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")


def _cond(x: Any) -> np.ndarray:
    return np.arange(math.prod(x.shape)).reshape(x.shape) % 2 == 0


# functions with a weak Python scalar `s` next to an array `x` (x gives the dtype to creation)
FUNCS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "where(c, x, s)": lambda xp, x, s: xp.where(_cond(x), x, s),
    "where(c, s, x)": lambda xp, x, s: xp.where(_cond(x), s, x),
    "clip(x, s, None)": lambda xp, x, s: xp.clip(x, s, None),
    "clip(x, None, s)": lambda xp, x, s: xp.clip(x, None, s),
    "concatenate([x, s])": lambda xp, x, s: xp.concatenate([x, s], axis=None),
    "full_like(x, s)": lambda xp, x, s: xp.full_like(x, s),
    "full(shape, s, dtype)": lambda xp, x, s: xp.full(x.shape, s, x.dtype),
    "array([s], dtype)": lambda xp, x, s: xp.array([s], x.dtype),
    "asarray([s], dtype)": lambda xp, x, s: xp.asarray([s], x.dtype),
    "array(s, dtype)": lambda xp, x, s: xp.array(s, x.dtype),
}


def _int_edges() -> set[int]:
    out = set()
    for d in INTS:
        lo, hi = int(np.iinfo(d).min), int(np.iinfo(d).max)
        out |= {lo - 1, lo, hi, hi + 1}
    return out


# upstream's values (-2 * 100, 9, 10, 11, 2**63, 300, 1000, ...), every int dtype's bounds and
# one beyond, 2**53 + 1 (no float64 holds it), ints that overflow float16/32/64 (upstream's
# ``int(finfo.max) * 2``), floats that overflow float16 and float32, non-finite values
PY_INTS = sorted(
    _int_edges()
    | {0, 1, 2, 3, 5, 9, 10, 11, -1, -2, -200, 200, 300, -300, 1000, 2**53 + 1, 2**100}
    | {-(2**100), *(2 * int(np.finfo(d).max) for d in ("e", "f", "d"))}
)
PY_FLOATS = [0.0, -0.0, 0.1, 0.5, -1.5, 2.0, 3.0, 1e-8, 65504.0, 65520.0, 3e38, 3.5e38,
             3e100, 1e300, math.inf, -math.inf, math.nan]  # fmt: skip
PY_COMPLEX = [0j, 1j, 1.5 - 2j, complex(2**300), complex(math.inf, 0), complex(math.nan, 1),
              1e300 + 1j]  # fmt: skip
PY_VALUES = [False, True, *PY_INTS, *PY_FLOATS, *PY_COMPLEX]
# fewer values where two of them meet, or where they meet functions
PYPY_VALUES = [False, True, 0, 1, -1, 3, 255, 2**31, 2**63 - 1, 2**63, 2**64, 2**100, 0.0, -1.5,
               1e300, math.inf, math.nan, 1j, 1.5 - 2j]  # fmt: skip
FUNC_VALUES = [False, True, 0, -1, 3, 127, 128, -129, 255, 256, 300, 65535, 65536, 2**31, 2**32,
               2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**100, 0.5, -1.5, 65520.0, 3.5e38, 1e300,
               math.inf, math.nan, 1j, complex(2**300)]  # fmt: skip


def domain(dt: np.dtype) -> list[Any]:
    """The values an N-d operand of dtype ``dt`` holds: bounds, signs, zeros, non-finites."""
    if dt.kind == "b":
        return [False, True]
    if dt.kind in "iu":
        lo, hi = int(np.iinfo(dt).min), int(np.iinfo(dt).max)
        return sorted(v for v in {lo, lo + 1, -2, -1, 0, 1, 2, 3, 7, hi - 1, hi} if lo <= v <= hi)
    if dt.kind == "f":
        m, inf = float(np.finfo(dt).max), math.inf
        return [-inf, -m, -2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, m, inf, math.nan]
    return [0j, 1 + 0j, -1.5 + 2j, 0.5j, 3 - 1j, complex(math.inf, 0), complex(math.nan, 0)]


@functools.cache
def scalar_values(dt: np.dtype) -> list[Any]:
    """The values a 0-d operand or numpy scalar takes, one call each: fewer than domain()."""
    if dt.kind == "b":
        return [False, True]
    if dt.kind in "iu":
        lo, hi = int(np.iinfo(dt).min), int(np.iinfo(dt).max)
        return sorted({lo, -1 if lo else 0, 0, 1, 3, hi})
    if dt.kind == "f":
        return [-1.5, 0.0, 2.0, math.inf, math.nan]
    return [1 + 0j, -1.5 + 2j, complex(math.nan, 0)]


# -- cases ----------------------------------------------------------------------------------


class Operand(NamedTuple):
    form: str  # "nd": N-d array, "0d": 0-d array, "sc": numpy scalar, "py": Python scalar
    dtype: Any  # np.dtype, or the Python type of a Python scalar
    how: str  # "arg": a dynamic argument of the traced function, "lit": a constant inside it
    value: Any = None  # a given value (a tuple for "nd"); None: the form's value set

    def __repr__(self) -> str:
        if self.form == "py":
            return f"{self.value!r}<{self.how}>"
        if self.form == "sc":
            name = self.dtype.type.__name__  # ulonglong is not uint64
        else:
            name = self.dtype.name if self.dtype.isnative else self.dtype.str
        shape = {"nd": "[n]", "0d": "[]", "sc": ""}[self.form]
        value = "" if self.value is None else f"={self.value!r}"
        return f"{name}{shape}{value}<{self.how}>"


class Case(NamedTuple):
    kind: str  # which generator made it (strong, python, pypy, alias, func, upstream)
    op: str  # a ufunc name, or a FUNCS key
    spelling: str  # "fn": wnp.<op> / np.<op>; "op": the Python operator
    a: Operand
    b: Operand

    def __repr__(self) -> str:
        if self.op in FUNCS:
            return f"{self.op} with x={self.a!r}, s={self.b!r}"
        how = f"np.{self.op}" if self.spelling == "fn" else self.op
        return f"{how}({self.a!r}, {self.b!r})"


def kind_of(o: Operand) -> str:
    """b, i, u, f, c: the kind of an operand's dtype (a Python int is 'i')."""
    if o.form == "py":
        return {bool: "b", int: "i", float: "f", complex: "c"}[o.dtype]
    return o.dtype.kind


def spellings(op: str) -> tuple[str, ...]:
    return ("fn", "op") if op in OPERATORS else ("fn",)


def strong_cases() -> Iterator[Case]:
    """numpy x numpy: every dtype pair, every form; constants on either side."""
    args = [("nd", "arg"), ("0d", "arg"), ("sc", "arg")]
    lits = [("0d", "lit"), ("sc", "lit")]
    shapes = [(x, y) for x in args for y in args] + [(x, y) for x in args[:2] for y in lits]
    shapes += [(x, args[0]) for x in lits]
    for op in BINARY:
        for spelling, da, db, ((fa, ha), (fb, hb)) in itertools.product(
            spellings(op), NUMERIC, NUMERIC, shapes
        ):
            yield Case("strong", op, spelling, Operand(fa, da, ha), Operand(fb, db, hb))


def python_cases() -> Iterator[Case]:
    """numpy x Python scalar and Python scalar x numpy, the scalar dynamic or constant."""
    for op in BINARY:
        for spelling, dt, form, how, left, v in itertools.product(
            spellings(op), NUMERIC, ("nd", "0d", "sc"), ("arg", "lit"), (False, True), PY_VALUES
        ):
            strong, py = Operand(form, dt, "arg"), Operand("py", type(v), how, v)
            yield Case("python", op, spelling, *((py, strong) if left else (strong, py)))


def pypy_cases() -> Iterator[Case]:
    """Python x Python: NumPy makes both weak (``np.add(1, 2.0)`` is float64)."""
    hows = [("arg", "arg"), ("arg", "lit"), ("lit", "arg"), ("lit", "lit")]
    for op, (ha, hb), x, y in itertools.product(BINARY, hows, PYPY_VALUES, PYPY_VALUES):
        yield Case("pypy", op, "fn", Operand("py", type(x), ha, x), Operand("py", type(y), hb, y))


ALIASES = [Operand("sc", np.dtype(c), how) for c in "qQ" for how in ("arg", "lit")]
ALIASES += [Operand("nd", np.dtype(s), "arg") for s in (">i2", ">u4", ">i8", ">f4", ">f8", ">c16")]


def alias_cases() -> Iterator[Case]:
    """Scalar types that are not their dtype's canonical class, non-native byte orders."""
    for op in BINARY:
        for spelling, alias, dt, left in itertools.product(
            spellings(op), ALIASES, NUMERIC, (False, True)
        ):
            other = Operand("nd", dt, "arg")
            yield Case("alias", op, spelling, *((alias, other) if left else (other, alias)))


_KIND_ORDER = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
CREATION = ("full_like(x, s)", "full(shape, s, dtype)", "array([s], dtype)",
            "asarray([s], dtype)", "array(s, dtype)")  # fmt: skip


def func_cases() -> Iterator[Case]:
    """Functions with a weak Python scalar: creation, where, clip, concatenate, full.
    Creation with a dtype of a lower kind than the value's (a float into int8) is an
    unsafe cast, not promotion, and not generated."""
    for op, dt, how, v in itertools.product(FUNCS, NUMERIC, ("arg", "lit"), FUNC_VALUES):
        py = Operand("py", type(v), how, v)
        if op in CREATION and _KIND_ORDER[kind_of(py)] > _KIND_ORDER[dt.kind]:
            continue
        yield Case("func", op, "fn", Operand("nd", dt, "arg"), py)


# -- upstream's cases, one by one ---------------------------------------------------------


def _sc(dt: Any, v: Any, how: str = "arg") -> Operand:
    return Operand("sc", np.dtype(dt), how, v)


def _0d(dt: Any, v: Any, how: str = "arg") -> Operand:
    return Operand("0d", np.dtype(dt), how, v)


def _nd(dt: Any, *vs: Any) -> Operand:
    return Operand("nd", np.dtype(dt), "arg", vs or None)


def _py(v: Any, how: str = "lit") -> Operand:
    return Operand("py", type(v), how, v)


def _both(v: Any) -> list[Operand]:
    """A Python scalar as a constant (as upstream writes it) and as a dynamic argument."""
    return [_py(v, "lit"), _py(v, "arg")]


def upstream_cases() -> Iterator[tuple[str, Case]]:
    """(upstream test, case): test_nep50_promotions.py's cases, in its order, plus the
    brief's examples. Python scalars run as constants and as dynamic arguments."""

    def up(test: str, op: str, a: Operand, b: Operand, spelling: str = "op") -> tuple[str, Case]:
        return test, Case("upstream", op, spelling, a, b)

    t = "test_nep50_examples"
    for s in _both(2):
        yield up(t, "add", _sc("uint8", 1), s)
    yield up(t, "add", _nd("uint8", 1), _sc("int64", 1))
    yield up(t, "add", _nd("uint8", 1), _0d("int64", 1))
    for s in _both(200):
        yield up(t, "add", _sc("uint8", 100), s)
    for s in _both(3e100):
        yield up(t, "add", _sc("float32", 1), s)
    yield up(t, "equal", _nd("float32", 0.1), _sc("float64", 0.1))
    yield up(t, "add", _nd("float32", 0.1), _sc("float64", 0.1))
    yield up(t, "add", _nd("float32", 1.0), _sc("int64", 3))
    t = "test_nep50_weak_integers"
    for dt in INTS:
        for s in _both(int(np.iinfo(dt).max)):
            yield up(t, "add", _sc(dt, 100), s)
            yield up(t, "add", _0d(dt, 100), s)
    t = "test_nep50_weak_integers_with_inexact"
    for dt in "efdFD":
        for s in _both(int(np.finfo(dt).max) * 2):
            yield up(t, "add", _sc(dt, 1), s)
            yield up(t, "add", _0d(dt, 1), s, "fn")
    t = "test_weak_promotion_scalar_path"
    for op, s in itertools.product(("add", "power"), (5, 1000)):
        for p in _both(s):
            yield up(t, op, _sc("uint8", 3), p)
        for p in _both(float(s)):
            yield up(t, op, _sc("float32", 3), p)
    t = "test_nep50_complex_promotion"
    for s in _both(complex(2**300)):
        yield up(t, "add", _sc("complex64", 3), s)
    t = "test_nep50_integer_conversion_errors"
    for s in _both(300):
        yield up(t, "add", _nd("uint8", 1), s)
        yield up(t, "add", _sc("uint8", 1), s)
    for s in _both(-1):
        yield up(t, "add", _sc("uint8", 1), s)
    t = "test_nep50_huge_integers"
    for op in ("add", "power"):
        for dt, x, y in [("int64", 0, 2**63), ("uint64", 0, 2**64), ("uint64", 1, 2**63),
                         ("int64", 1, 2**63), ("int64", 1, 2**100)]:  # fmt: skip
            for s in _both(y):
                yield up(t, op, _sc(dt, x), s, "fn")
        for s in _both(2**100):
            yield up(t, op, _py(1.0), s, "fn")
    t = "test_nep50_in_concat_and_choose"
    for s in _both(1.0):
        yield up(t, "concatenate([x, s])", _sc("float32", 1), s, "fn")
    t = "test_integer_comparison"
    for dt, other, comp in itertools.product(
        INTS, [-2 * 100, -1, 0, 9, 10, 11, 2**63, 2 * 100], COMPARISONS
    ):
        for x in (_sc(dt, 10), _nd(dt, 10, 10)):
            yield up(t, comp, x, _py(other))
            yield up(t, comp, _py(other), x)
    t = "test_integer_comparison_with_cast"
    for comp in ("greater_equal", "less"):
        yield up(t, comp, _nd(">u4", 1, 1, 1), _py(-1))
        yield up(t, comp, _nd("uint8", 1, 1, 1), _py(-1))
    t = "test_integer_integer_comparison"
    for comp in COMPARISONS:
        yield up(t, comp, _py(2**200), _py(-(2**200)), "fn")
    t = "test_oob_creation"
    for dt in INTS:
        lo, hi = int(np.iinfo(dt).min), int(np.iinfo(dt).max)
        for v, f in itertools.product(
            (lo - 1, lo, hi, hi + 1), ("array([s], dtype)", "array(s, dtype)")
        ):
            for s in _both(v):
                yield up(t, f, _nd(dt), s, "fn")
    t = "brief"  # the task's own examples
    for s in _both(-1):
        yield up(t, "less", _nd("uint64", 0, 1, 2**64 - 1), s)
    for s in _both(300):
        yield up(t, "less", _sc("int8", 1), s)
    yield up(t, "power", _nd("float16", 1.5), _nd("int32", 3))
    yield up(t, "power", _nd("bool", True, False), _py(True))
    for s in _both(256):
        yield up(t, "add", _nd("uint8", 1, 1), s)
    for dt, v in (("uint8", 256), ("uint64", 2**64 - 1)):
        for s in _both(v):
            yield up(t, "array([s], dtype)", _nd(dt), s, "fn")


UPSTREAM = dict((repr(c), (test, c)) for test, c in upstream_cases())

GENERATORS: dict[str, Callable[[], Iterator[Any]]] = {
    "strong": strong_cases,
    "python": python_cases,
    "pypy": pypy_cases,
    "alias": alias_cases,
    "func": func_cases,
    "upstream": lambda: (c for _, c in UPSTREAM.values()),
}


# -- promote_types and result_type ---------------------------------------------------------


class Spec(NamedTuple):
    """One argument of np.promote_types / np.result_type, built fresh for each call."""

    form: str  # dtype, type, name, char, nd, 0d, sc, py, pytype
    payload: Any

    def build(self) -> Any:
        p = self.payload
        return {
            "dtype": lambda: p, "type": lambda: p.type, "name": lambda: p.name,
            "char": lambda: p, "nd": lambda: np.ones(2, p), "0d": lambda: np.ones((), p),
            "sc": lambda: p.type(1), "py": lambda: p, "pytype": lambda: p,
        }[self.form]()  # fmt: skip

    def __repr__(self) -> str:
        p = self.payload
        return {
            "dtype": lambda: f"np.dtype({p.name!r})", "type": lambda: f"np.{p.type.__name__}",
            "name": lambda: repr(p.name), "char": lambda: repr(p), "nd": lambda: f"{p.name}[2]",
            "0d": lambda: f"{p.name}[]", "sc": lambda: f"np.{p.type.__name__}(1)",
            "py": lambda: repr(p), "pytype": lambda: p.__name__,
        }[self.form]()  # fmt: skip


class PureCase(NamedTuple):
    kind: str  # "promote_types" or "result_type"
    op: str  # the same
    args: tuple[Spec, ...]

    def __repr__(self) -> str:
        return f"{self.op}({', '.join(map(repr, self.args))})"


PY_TYPES = [Spec("pytype", t) for t in (bool, int, float, complex)]
RT_VALUES = [True, 0, -1, 255, 256, 300, -129, 2**31, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**100,
             0.5, 1e300, 3.5e38, math.inf, math.nan, 1j, complex(2**300)]  # fmt: skip


def dtype_specs() -> list[Spec]:
    specs = [Spec(f, d) for d in NUMERIC for f in ("dtype", "type", "name")]
    return specs + [Spec("char", c) for c in "?bhilqBHILQefdFDpPnN"] + PY_TYPES


def value_specs() -> list[Spec]:
    specs = [Spec(f, d) for d in NUMERIC for f in ("dtype", "type", "nd", "0d", "sc")]
    return specs + [Spec("py", v) for v in RT_VALUES] + PY_TYPES


# upstream's test_expected_promotion: (dtypes always present, optional dtypes)
FAMILIES = [
    (["float32"], ["float16", 0.0, "uint16", "int16", "int8", 0]),
    (["float32", 0j], ["float16", 0.0, "uint16", "int16", "int8", 0]),
    (["int16", "uint16", "float16"], ["int8", "uint8", "float32", 0.0, 0]),
    (["int16", "uint16"], ["int8", "uint8", 0, "bool"]),
]


def _family_spec(x: Any, form: str) -> Spec:
    return Spec("py", x) if not isinstance(x, str) else Spec(form, np.dtype(x))


def family_cases() -> Iterator[PureCase]:
    """Every family, with its dtypes as scalar types (as upstream) and as dtype objects:
    the required ones plus up to two optional ones, in every order."""
    for (need, optional), form in itertools.product(FAMILIES, ("type", "dtype")):
        for k in range(3):
            for extra in itertools.combinations_with_replacement(optional, k):
                for order in set(itertools.permutations([*need, *extra])):
                    args = tuple(_family_spec(x, form) for x in order)
                    yield PureCase("result_type", "result_type", args)


def promote_types_cases() -> Iterator[PureCase]:
    for a, b in itertools.product(dtype_specs(), repeat=2):
        yield PureCase("promote_types", "promote_types", (a, b))


def result_type_cases() -> Iterator[PureCase]:
    specs = value_specs()
    for s in specs:
        yield PureCase("result_type", "result_type", (s,))
    for a, b in itertools.product(specs, repeat=2):
        yield PureCase("result_type", "result_type", (a, b))
    yield from family_cases()


GENERATORS["promote_types"] = promote_types_cases
GENERATORS["result_type"] = result_type_cases


# -- known mismatches ----------------------------------------------------------------------


class Known(NamedTuple):
    id: str
    reason: str  # what differs, and where in weaktrace the cause most likely is
    kinds: tuple[str, ...]
    match: Callable[[Any], bool]
    exact: bool = True  # every case it names differs (False: some do; XLA's rewrites vary)
    ops: tuple[str, ...] | None = None  # the operations it can concern (None: any)


def _dyn_int(o: Operand) -> bool:
    return o.form == "py" and o.dtype is int and o.how == "arg"


def _fits(v: int, dt: np.dtype) -> bool:
    return int(np.iinfo(dt).min) <= v <= int(np.iinfo(dt).max)


def _np_outcome(case: Case, x: Any, y: Any) -> tuple[Any, BaseException | None]:
    return attempt(np_fn(case), x, y)


def _kinds(case: Case) -> str:
    return kind_of(case.a) + kind_of(case.b)


def _concrete_int_exponent(case: Case) -> bool:
    """jax.numpy.power's integer_pow path: an exponent that operator.index accepts
    (a Python int or bool, a numpy integer scalar or 0-d integer array) and is a constant."""
    b = case.b
    if b.how != "lit":
        return False
    return b.dtype in (int, bool) if b.form == "py" else b.dtype.kind in "iu"


def _power_six_steps(case: Case) -> bool:
    """Integer power with a traced exponent runs six steps of binary exponentiation, as
    jax.numpy does (_pow_int_int): it computes x ** (y % 64) (and 0 for 0 ** y, y != 0)
    where numpy computes x ** y."""
    if case.op != "power" or _concrete_int_exponent(case) or set(_kinds(case)) - set("biu"):
        return False
    if kind_of(case.b) == "b":
        return False
    for x, y in instances(case):
        theirs, err = _np_outcome(case, x, y)
        if err is not None or np.asarray(theirs).dtype.kind not in "iu":
            continue
        low = np.asarray(y) & 63 if case.b.form != "py" else y & 63
        ours, _ = _np_outcome(case, x, low)
        zero = (np.asarray(x) == 0) & (np.asarray(y) != 0)
        ours = np.where(zero, 0, ours).astype(np.asarray(theirs).dtype)
        if not np.array_equal(ours, np.asarray(theirs)):
            return True
    return False


def _int_division_by_zero(case: Case) -> bool:
    """An integer floor division (numpy's result is an integer) with a zero divisor."""
    for x, y in instances(case):
        theirs, err = _np_outcome(case, x, y)
        if err is None and np.asarray(theirs).dtype.kind in "iu" and np.any(np.asarray(y) == 0):
            return True
    return False


def _constant_division_by_zero(case: Case) -> bool:
    return _int_division_by_zero(case) and case.a.how == case.b.how == "lit"


def _loop_operand(o: Operand, v: Any) -> Any:
    """What ufunc.resolve_dtypes takes for an operand: its dtype, or a weak scalar's type."""
    if o.form == "py":
        return np.dtype(bool) if o.dtype is bool else o.dtype  # a Python bool is not weak
    return np.asarray(v).dtype


def _complex_truthiness(case: Case) -> bool:
    """logical_and/or/xor of a complex operand and an operand of another dtype: numpy's
    loop for them is bool ('??->?'), weaktrace converts the complex operand to bool, and
    XLA's convert looks at the real part only (1j becomes False); numpy at both parts."""
    if "c" not in _kinds(case):
        return False
    ufunc = getattr(np, case.op)
    for x, y in instances(case):
        ops = (_loop_operand(case.a, x), _loop_operand(case.b, y))
        theirs, err = _np_outcome(case, x, y)
        if err is not None or ufunc.resolve_dtypes((*ops, None))[0] != np.bool_:
            continue
        truth = [np.real(v) != 0 if np.iscomplexobj(v) else np.asarray(v) != 0 for v in (x, y)]
        if not np.array_equal(ufunc(*truth), theirs):
            return True
    return False


def _complex_max_min_nan(case: Case) -> bool:
    """maximum/minimum of complex values: weaktrace selects with XLA's lexicographic
    comparison, which is False at NaN, so a NaN is kept or dropped by its position; numpy
    propagates it."""
    if "c" not in _kinds(case):
        return False
    for x, y in instances(case):
        theirs, err = _np_outcome(case, x, y)
        if err is not None:
            continue
        dt = np.asarray(theirs).dtype
        try:
            with quiet():
                a, b = (np.asarray(v).astype(dt) for v in (x, y))
        except (OverflowError, TypeError):
            continue
        a, b = np.broadcast_arrays(a, b)
        sign = 1 if case.op == "maximum" else -1
        with quiet():
            pick = (sign * a.real > sign * b.real) | (
                (a.real == b.real) & (sign * a.imag > sign * b.imag)
            )
        if compare_values(np.where(pick, a, b), theirs) is not None:
            return True
    return False


def _bool_times_non_finite(case: Case) -> bool:
    """A traced bool times a non-finite value, or divided by zero or NaN: XLA's simplifier
    turns convert(bool) * y into select(bool, y, 0) (and x / c into x * (1 / c) first), so
    False gives 0 where IEEE (and numpy) give nan. Which forms XLA rewrites depends on
    the program (constants, broadcast scalars); this entry names every case where it can."""
    sides = {"a": case.a, "b": case.b}
    for bs in "ab" if case.op == "multiply" else "a":  # the bool's side (a numerator)
        if kind_of(sides[bs]) != "b" or sides[bs].how != "arg":
            continue
        for x, y in instances(case):
            bv, cv = (x, y) if bs == "a" else (y, x)
            try:
                bb, cc = np.broadcast_arrays(np.asarray(bv), np.asarray(cv).astype(complex))
            except OverflowError:
                continue
            with quiet():
                bad = ~np.isfinite(cc) if case.op == "multiply" else np.isnan(cc) | (cc == 0)
            if np.any(~bb & bad):
                return True
    return False


def _reciprocal_flushes(case: Case) -> bool:
    """x / y where 1 / y is below the smallest normal number: XLA rewrites a division by a
    constant or a broadcast divisor into x * (1 / y), and the flushed 1 / y makes float32
    max / max 0 and inf / max nan (numpy: 1 and inf). The rewrite depends on the program;
    this entry names every case where it can."""
    for x, y in instances(case):
        theirs, err = _np_outcome(case, x, y)
        dt = np.asarray(theirs).dtype
        if err is not None or dt not in (np.float32, np.float64):
            continue
        try:
            with quiet():
                yy = np.asarray(y).astype(dt)
        except OverflowError:
            continue
        with quiet():
            if np.any(np.isfinite(yy) & (abs(1 / yy) < np.finfo(dt).tiny)):
                return True
    return False


def _int_constant_beyond(case: Case, limit: Callable[[int], bool]) -> bool:
    return any(o.form == "py" and o.dtype is int and o.how == "lit" and limit(o.value)
               for o in (case.a, case.b))  # fmt: skip


def _float_overflows(v: int) -> bool:
    try:
        float(v)
    except OverflowError:
        return True
    return False


def _logical_big_int(case: Case) -> bool:
    """logical_and/or/xor with a Python int constant beyond int64: numpy raises
    OverflowError ('Python int too large to convert to C long'); weaktrace converts the
    constant straight to bool."""
    return _int_constant_beyond(case, lambda v: not _fits(v, np.dtype("int64"))) and any(
        isinstance(_np_outcome(case, x, y)[1], OverflowError) for x, y in instances(case)
    )


def _compare_beyond_float64(case: Case) -> bool:
    """A comparison with a Python int constant beyond float64's range: numpy compares it
    exactly with an integer array; weaktrace widens the int to float64 and raises
    OverflowError (weaktrace/numpy.py _widen_int_literal)."""
    return _int_constant_beyond(case, _float_overflows) and all(
        _np_outcome(case, x, y)[1] is None for x, y in instances(case)
    )


def _power_half(case: Case) -> bool:
    """numpy's fast paths for a scalar exponent: float32/float64 x ** 0.5 is sqrt(x) (nan
    at -inf, where C's pow, XLA and numpy with an array exponent give inf), and the
    operator x ** 2 is square(x) (bool_array ** 2 is int8, np.power gives int64)."""
    if case.op != "power":
        return False
    for x, y in instances(case):
        theirs, err = _np_outcome(case, x, y)
        if case.spelling == "op" and err is None:
            ufunc, _ = attempt(np.power, x, y)
            if ufunc is not None and np.asarray(ufunc).dtype != np.asarray(theirs).dtype:
                return True
        half = np.ndim(y) == 0 and y == 0.5 and np.any(np.asarray(x) == -np.inf)
        if err is None and np.asarray(theirs).dtype in (np.float32, np.float64) and half:
            return True
    return False


def _clip_unreachable_argument_bound(case: Case) -> bool:
    """clip of an integer array with a Python int argument bound beyond the array's range
    on the side that cannot change a value (a min below it, a max above it)."""
    a, s = case.a, case.b
    if s.how != "arg" or s.dtype is not int or a.dtype.kind not in "iu" or _fits(s.value, a.dtype):
        return False
    below = s.value < int(np.iinfo(a.dtype).min)
    return below if case.op == "clip(x, s, None)" else not below


KNOWN_MISMATCHES: list[Known] = []  # the entries fixed so far are in FIXED

_LOGICAL = ("logical_and", "logical_or", "logical_xor")
_ARRAY_OF_LIST = ("array([s], dtype)", "asarray([s], dtype)")
_ALL = ("strong", "python", "pypy", "alias")

# Former KNOWN_MISMATCHES entries, fixed in weaktrace: their cases run as regression items
# (test_fixed_entry) with every compiled value checked.
FIXED: list[Known] = [
    Known("integer-division-by-zero", "numpy: x // 0 is 0 for integers", _ALL,
          _int_division_by_zero, ops=("floor_divide",)),
    Known("constant-integer-division-by-zero-kills-the-process", "XLA folded 1 // 0 and "
          "died of SIGFPE", ("pypy",), _constant_division_by_zero, ops=("floor_divide",)),
    Known("complex-truthiness", "a complex value is true when either part is nonzero",
          _ALL, _complex_truthiness, ops=_LOGICAL),
    Known("complex-maximum-minimum-nan", "numpy's complex maximum/minimum keep NaNs",
          ("strong", "python", "alias"), _complex_max_min_nan, ops=("maximum", "minimum")),
    Known("clip-of-complex", "numpy clips complex values in its lexicographic order",
          ("func",), lambda c: "c" in _kinds(c),
          ops=tuple(f for f in FUNCS if f.startswith("clip"))),
    Known("xla-bool-times-non-finite", "False * inf is nan (XLA made it a select)", _ALL,
          _bool_times_non_finite, ops=("multiply", "true_divide")),
    Known("xla-reciprocal-flushes", "max / max is 1 (XLA's x * (1 / y) flushed 1 / y)",
          ("strong", "alias"), _reciprocal_flushes, ops=("true_divide", "floor_divide")),
    Known("non-native-byte-order", "'>u4' arrays are taken", ("alias", "upstream"),
          lambda c: any(o.form == "nd" and not o.dtype.isnative for o in (c.a, c.b))),
    Known("ulonglong-argument", "np.ulonglong scalars are taken as arguments", ("alias",),
          lambda c: any(o.form == "sc" and o.dtype.type is np.ulonglong and o.how == "arg"
                        for o in (c.a, c.b))),
    Known("logical-ops-with-int-beyond-int64", "numpy raises OverflowError",
          ("python", "pypy"), _logical_big_int, ops=_LOGICAL),
    Known("comparison-with-int-beyond-float64", "numpy compares such ints exactly",
          ("python",), _compare_beyond_float64, ops=COMPARISONS),
    Known("two-python-ints-compared", "np.less(1, 2) compares int64 values", ("pypy",),
          lambda c: c.a.form == c.b.form == "py" and c.a.dtype is c.b.dtype is int
          and all(_fits(o.value, np.dtype("int64")) for o in (c.a, c.b)), ops=COMPARISONS),
    Known("array-of-a-list-of-python-int-arguments", "each Python int argument is checked "
          "against the dtype", ("func", "upstream"),
          lambda c: c.b.how == "arg" and c.b.dtype is int and c.a.dtype.kind in "iu"
          and not _fits(c.b.value, c.a.dtype), ops=_ARRAY_OF_LIST),
    Known("numpy-power-fast-paths", "x ** 2 is square, float x ** 0.5 is sqrt",
          ("python",), _power_half, ops=("power",)),
    Known("power-six-steps", "integer powers by traced exponents >= 64", _ALL,
          _power_six_steps, ops=("power",)),
    Known("clip-python-int-argument-bound-beyond-range", "np.clip(int8_array, s, None) with "
          "a dynamic s = -129 is no bound (it raised OverflowError; s = 300 still raises)",
          ("func",), _clip_unreachable_argument_bound,
          ops=("clip(x, s, None)", "clip(x, None, s)")),
    Known("negative-python-int-exponent-argument", "integer ** a negative Python int "
          "argument raises ValueError (per call; it computed a value)", ("python", "pypy"),
          lambda c: _dyn_int(c.b) and c.b.value < 0 and kind_of(c.a) in "biu",
          ops=("power",)),
]  # fmt: skip
KNOWN = {k.id: k for k in KNOWN_MISMATCHES}


def known_entry(case: Any) -> Known | None:
    if isinstance(case, Case) and any(
        _dyn_int(o) and not _fits(o.value, np.dtype("int64")) for o in (case.a, case.b)
    ):
        return None  # see INHERENT (_unrepresentable_argument)
    for k in KNOWN_MISMATCHES:
        if case.kind in k.kinds and (k.ops is None or case.op in k.ops) and k.match(case):
            return k
    return None


class KnownMismatch(AssertionError):
    """Raised by the xfail items of KNOWN_MISMATCHES when every listed case still differs."""


# -- inherent differences ------------------------------------------------------------------


def _runtime_value_error(case: Case, np_err: BaseException | None) -> bool:
    """NumPy raises ValueError for a negative integer exponent in an integer loop. When the
    exponent is a dynamic array argument that is a value-dependent error at run time,
    which an XLA program cannot raise (weaktrace raises it for constants, and for a
    Python int argument per call)."""
    return (
        isinstance(np_err, ValueError)
        and "negative integer powers" in str(np_err)
        and case.b.how == "arg"
        and case.b.form != "py"
    )


def _square_fast_path_unknowable(case: Case) -> bool:
    """NumPy's ``ndarray ** 2`` (a Python int) is square, whose loop makes a bool array
    int8 (np.power gives int64). That dtype depends on the exponent's value, unknown
    while tracing when it is a dynamic argument; and a numpy bool scalar argument (whose
    ``** 2`` is numpy's scalar arithmetic, int64) traces as the 0-d array it stands for."""
    a, b = case.a, case.b
    if case.op != "power" or case.spelling != "op" or a.form == "py" or a.dtype.kind != "b":
        return False
    if not (b.form == "py" and b.dtype is int and b.value == 2):
        return False
    return (b.how == "arg" and a.form in ("nd", "0d")) or (a.form == "sc" and b.how == "lit")


def _unrepresentable_argument(case: Case, err: BaseException | None) -> bool:
    """A dynamic Python int outside int64: a compiled program's argument has one dtype, so
    it cannot carry 2**64 or 2**100 (numpy converts such an int per operation, e.g. to
    float32 next to a float32 array). weaktrace raises ArgumentOverflowError instead; that
    is the comparison for these cases, not numpy's value."""
    big = [o for o in (case.a, case.b) if _dyn_int(o) and not _fits(o.value, np.dtype("int64"))]
    return bool(big) and isinstance(err, wt.ArgumentOverflowError)


def _object_comparison(case: Case) -> bool:
    """A comparison of two Python ints, one beyond int64: numpy compares them as Python
    objects (np.equal(2**200, -2**200)); no XLA dtype holds them, weaktrace must raise."""
    return (
        case.op in COMPARISONS
        and case.a.form == case.b.form == "py"
        and any(o.dtype is int and not _fits(o.value, np.dtype("int64")) for o in (case.a, case.b))
    )


# -- running both sides --------------------------------------------------------------------


def _ok_error(err: BaseException) -> bool:
    """A deliberate error: weaktrace's own, or NumPy's OverflowError."""
    return isinstance(err, wt.WeaktraceError | OverflowError)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """numpy's overflow/invalid warnings and errstate are not part of the comparison."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def attempt(fn: Callable[..., Any], *args: Any) -> tuple[Any, BaseException | None]:
    with quiet():
        try:
            return fn(*args), None
        except Exception as err:  # the outcome is compared, not the exception's origin
            return None, err


def _callable(op: str, spelling: str, xp: Any) -> Callable[[Any, Any], Any]:
    if op in FUNCS:
        return functools.partial(FUNCS[op], xp)
    return OPERATORS[op] if spelling == "op" else getattr(xp, op)


def np_fn(case: Case) -> Callable[[Any, Any], Any]:
    return _callable(case.op, case.spelling, np)


@functools.cache
def shared(op: str, spelling: str) -> wt.TracedFunction:
    """One traced function per operation for two dynamic arguments: jax.jit caches it."""
    f = _callable(op, spelling, wnp)
    return wt.trace(lambda x, y: f(x, y), policy="numpy")


def _no_negative_powers(case: Case) -> bool:
    """Strong integer exponents of an integer power are drawn non-negative (numpy raises
    for the whole array otherwise; Python int exponents keep their sign)."""
    return case.op == "power" and kind_of(case.a) in "biu" and kind_of(case.b) in "biu"


def operand_values(case: Case, side: str) -> list[Any]:
    """The concrete values an operand runs with: one N-d array, or one value per call."""
    o, other = (case.a, case.b) if side == "a" else (case.b, case.a)
    if o.form == "py":
        return [o.value]
    if o.value is not None:
        vals = list(o.value) if o.form == "nd" else [o.value]
    else:
        vals = domain(o.dtype) if o.form == "nd" else scalar_values(o.dtype)
    if side == "b" and _no_negative_powers(case):
        vals = [v for v in vals if v >= 0]
    if o.form == "nd":
        arr = np.array(vals, o.dtype)
        if other.form == "nd" and case.op not in FUNCS:  # an outer product: every pair
            arr = arr[:, None] if side == "a" else arr[None, :]
        return [arr]
    if other.form == "py" and len(vals) > 1:  # one strong value per Python value
        vals = [vals[zlib.crc32(repr(other.value).encode()) % len(vals)]]
    make = (lambda v: np.array(v, o.dtype)) if o.form == "0d" else o.dtype.type
    return [make(v) for v in vals]


def instances(case: Case) -> list[tuple[Any, Any]]:
    """(x, y) operand pairs: an N-d array meets every value of the other operand; two
    scalars walk their value lists side by side (every pair is the N-d arrays' job)."""
    xs, ys = operand_values(case, "a"), operand_values(case, "b")
    if len(xs) == 1 or len(ys) == 1:
        return list(itertools.product(xs, ys))
    return [(xs[i % len(xs)], ys[i % len(ys)]) for i in range(max(len(xs), len(ys)))]


def bind(case: Case, x: Any, y: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """The traced function's body and its dynamic arguments, for operands x and y."""
    f = _callable(case.op, case.spelling, wnp)
    lit_a, lit_b = case.a.how == "lit", case.b.how == "lit"
    if lit_a and lit_b:
        return (lambda: f(x, y)), ()
    if lit_a:
        return (lambda v: f(x, v)), (y,)
    if lit_b:
        return (lambda u: f(u, y)), (x,)
    return f, (x, y)


def _complex_power(case: Case) -> bool:
    return case.op == "power" and "c" in _kinds(case)


def ulps(case: Case) -> int:
    """Tolerance in units of the last place: XLA's complex power is exp(y * log(x)), whose
    error grows with |y * log(x)|; everything else within 8."""
    return 2**12 if _complex_power(case) else 8


def unspecified(inst: Instance) -> Any:
    """Elements whose value no standard fixes: complex power at a zero or non-finite
    operand, or where |y * log|x|| overflows (C99 Annex G lets cpow be cexp(y * clog(x));
    numpy special-cases some of these, XLA others). False elsewhere."""
    if not _complex_power(inst.case):
        return False
    dt = np.asarray(inst.expect).dtype
    try:
        with quiet():
            x, y = (np.asarray(v).astype(dt) for v in (inst.x, inst.y))
    except OverflowError:  # a Python int beyond float64
        return True
    with quiet():
        huge = abs(y) * abs(np.log(abs(x))) > np.log(np.finfo(dt).max)  # over/underflows
        return (x == 0) | (y == 0) | ~np.isfinite(x) | ~np.isfinite(y) | huge


def compare_values(ours: Any, theirs: Any, ulps: int = 8, skip: Any = False) -> str | None:
    """Same dtype exactly; same values: integers exactly; floats within `ulps`, complex
    within `ulps` of their magnitude; infinities and NaNs of floats exactly, complex values
    non-finite together; `skip` marks elements not compared. Results below the smallest
    normal number count as zero and differences within twice it are close (XLA flushes
    them, see INHERENT)."""
    o, t = np.asarray(ours), np.asarray(theirs)
    if o.dtype != t.dtype:
        return f"result dtype {o.dtype}, numpy {t.dtype}"
    if o.shape != t.shape:
        return f"result shape {o.shape}, numpy {t.shape}"
    if t.dtype.kind in "biu":
        return None if np.array_equal(o, t) else f"values {o.tolist()}, numpy {t.tolist()}"
    info = np.finfo(t.dtype)
    o, t = _flush_subnormals(o), _flush_subnormals(t)
    finite = np.isfinite(o) & np.isfinite(t)
    with np.errstate(all="ignore"):
        scale = np.where(finite, np.maximum(abs(o), abs(t)), 0)
        diff = abs(np.where(finite, o - t, 0))
        close = finite & ((diff <= ulps * float(info.eps) * scale) | (diff <= 2 * info.tiny))
    if t.dtype.kind == "c":  # C99's special values (inf+nanj or nan+nanj) vary by library
        close |= ~np.isfinite(o) & ~np.isfinite(t)
    else:
        close |= (o == t) | (np.isnan(o) & np.isnan(t))
    return None if (close | skip).all() else f"values {o.tolist()}, numpy {t.tolist()}"


def _flush_subnormals(v: np.ndarray) -> np.ndarray:
    out = np.array(v, copy=True)
    parts = [out.real, out.imag] if out.dtype.kind == "c" else [out]
    for part in parts:
        part[abs(part) < np.finfo(part.dtype).tiny] = 0
    return out


def _numpy_typed(v: Any) -> bool:
    return isinstance(v, np.ndarray | np.generic)


def _show(v: Any) -> str:
    return f"{v.dtype}{list(v.shape)}" if isinstance(v, np.ndarray) and v.ndim else repr(v)


class Instance(NamedTuple):
    case: Case
    x: Any
    y: Any
    expect: Any  # numpy's result, or None when numpy raised
    np_err: BaseException | None

    def __repr__(self) -> str:
        return f"{self.case!r} with {_show(self.x)}, {_show(self.y)}"


# Compiled values are checked on a stable sample of instances: (full, CI) rates by group.
VALUE_RATES = {
    "nd-nd": (1, 1 / 2),  # N-d x N-d: every value pair of a dtype pair in one operation
    "python": (1 / 16, 1 / 8),
    "pypy": (1 / 16, 1 / 8),
    "strong": (1 / 128, 1 / 32),  # scalar forms and constants of numpy dtypes
    "alias": (1 / 8, 1 / 8),
    "func": (1 / 4, 1 / 4),
    "upstream": (1, 1 / 8),
}


def value_checked(inst: Instance, full: bool) -> bool:
    """Whether an instance's compiled call is checked (its trace always is)."""
    c = inst.case
    group = c.kind
    if c.kind in ("strong", "alias") and c.a.form == c.b.form == "nd":
        group = "nd-nd"
    rate = VALUE_RATES[group][0 if full else 1] / (4 if c.spelling == "op" else 1)
    return zlib.crc32(repr(inst).encode()) < rate * 2**32


def run_cases(cases: Iterable[Any], full: bool, force: bool = False) -> dict[Any, str | None]:
    """Each case's first disagreement with numpy (None: they agree). `force` checks the
    compiled call of every instance."""
    out: dict[Any, str | None] = {}
    pending: list[Instance] = []

    def record(what: Any, msg: str | None, case: Any) -> None:
        if msg is not None and out[case] is None:
            out[case] = f"{what!r}: {msg}"

    for case in cases:
        out[case] = None
        if isinstance(case, PureCase):
            record(case, check_pure(case), case)
            continue
        for x, y in instances(case):
            expect, np_err = attempt(np_fn(case), x, y)
            if case.spelling == "op" and np_err is None and not _numpy_typed(expect):
                # Python's own operator ran (1j - np.float64(2.0): float64 subclasses
                # float); numpy's answer is its ufunc's
                expect, np_err = attempt(_callable(case.op, "fn", np), x, y)
            inst = Instance(case, x, y, expect, np_err)
            if _runtime_value_error(case, np_err) or _square_fast_path_unknowable(case):
                continue  # see INHERENT
            if _kills_the_process(inst):
                record(inst, check_in_subprocess(inst), case)
                continue
            msg = check_trace(inst)
            if msg != "call":
                record(inst, msg, case)
            elif force or value_checked(inst, full):
                pending.append(inst)
    for i in range(0, len(pending), BATCH):
        for inst, msg in run_batch(pending[i : i + BATCH]):
            record(inst, msg, inst.case)
    return out


BATCH = 200  # operations per compiled program


def _kills_the_process(inst: Instance) -> bool:
    """An integer floor division of two constants by zero: XLA's constant folding divides
    by zero and the process dies of SIGFPE (``jax.jit(lambda: lax.div(np.int32(1),
    np.int32(0)))()`` does too). Such instances run in a subprocess."""
    c = inst.case
    return (
        c.op == "floor_divide"
        and c.a.how == c.b.how == "lit"
        and kind_of(c.a) in "biu"
        and kind_of(c.b) in "biu"
        and np.all(np.asarray(inst.y) == 0)
    )


_SUBPROCESS = """
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np, weaktrace as wt, weaktrace.numpy as wnp
x, y = {x!r}, {y!r}
try:
    out = np.asarray(wt.trace(lambda: wnp.{op}(x, y), policy="numpy")())
except Exception as err:
    print("error", type(err).__name__, err)
else:
    print("value", out.dtype, out.tolist())
"""


def check_in_subprocess(inst: Instance) -> str | None:
    c = inst.case
    assert c.a.form == c.b.form == "py" and c.spelling == "fn", c  # Python constants only
    code = _SUBPROCESS.format(x=inst.x, y=inst.y, op=c.op)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        return f"the process died (exit status {proc.returncode})"
    tag, *rest = proc.stdout.strip().split(maxsplit=2)
    if inst.np_err is not None:
        return None if tag == "error" else f"numpy raised, weaktrace gave {rest}"
    want = np.asarray(inst.expect)
    if tag == "error" or rest != [str(want.dtype), repr(want.tolist())]:
        return f"weaktrace gave {tag} {rest}, numpy {want.dtype} {want.tolist()}"
    return None


def check_trace(inst: Instance) -> str | None:
    """Trace-time comparison. Returns a disagreement, None (agreed, nothing to run), or
    "call" when the compiled call remains to be checked."""
    case, np_err = inst.case, inst.np_err
    body, args = bind(case, inst.x, inst.y)
    lits = "lit" in (case.a.how, case.b.how)
    tf = wt.trace(body, policy="numpy") if lits else shared(case.op, case.spelling)
    traced, err = attempt(lambda: tf.trace(*args).out_avals)
    if err is not None and not _ok_error(err):
        return f"crashed with {type(err).__name__}: {err}"
    if _unrepresentable_argument(case, err):
        return None  # see INHERENT
    if np_err is not None:
        return None if err is not None else "call"
    if err is not None and _object_comparison(case):
        return None  # see INHERENT
    objects = not _numpy_typed(inst.expect)
    want = np.asarray(inst.expect).dtype
    if objects or want.kind == "O":  # numpy computed with Python objects
        return None if err is not None else f"numpy used Python objects, weaktrace {traced}"
    if err is not None:
        return f"weaktrace raised {type(err).__name__}({err}), numpy gave {want}"
    if traced.dtype != want or traced.weak_type:
        return f"traced {traced}, numpy {want}"
    return "call"


def run_batch(group: list[Instance]) -> list[tuple[Instance, str]]:
    """Instances compiled as one program that returns all their results; when it raises,
    halves until each error is pinned to its instance."""
    bodies = [bind(inst.case, inst.x, inst.y) for inst in group]
    flat = [a for _, args in bodies for a in args]

    def program(*dyn: Any) -> tuple[Any, ...]:
        outs, i = [], 0
        for body, args in bodies:
            outs.append(body(*dyn[i : i + len(args)]))
            i += len(args)
        return tuple(outs)

    tf = wt.trace(program, policy="numpy")
    # Traced first (cheap): the per-call checks of Python int arguments are then known,
    # and a batch holding an instance that must raise raises before XLA compiles it (a
    # compile per halving step was most of a sweep's time).
    attempt(lambda: tf.trace(*flat))
    got, err = attempt(tf, *flat)
    if err is not None:
        if len(group) > 1:
            half = len(group) // 2
            return run_batch(group[:half]) + run_batch(group[half:])
        inst = group[0]
        if inst.np_err is not None and _ok_error(err):
            return []
        return [(inst, f"call raised {type(err).__name__}({err})")]
    bad = []
    for inst, value in zip(group, got, strict=True):
        if inst.np_err is not None:
            e = inst.np_err
            bad.append((inst, f"numpy raised {type(e).__name__}({e}), weaktrace gave {value!r}"))
        elif msg := compare_values(value, inst.expect, ulps(inst.case), unspecified(inst)):
            bad.append((inst, msg))
    return bad


def check_pure(case: PureCase) -> str | None:
    """np.promote_types / np.result_type against weaktrace's, under the numpy policy."""
    ours_fn = wt.promote_types if case.op == "promote_types" else wt.result_type
    theirs, np_err = attempt(getattr(np, case.op), *[s.build() for s in case.args])
    ours, err = attempt(functools.partial(ours_fn, policy=NUMPY), *[s.build() for s in case.args])
    if err is not None and not _ok_error(err):
        return f"crashed with {type(err).__name__}: {err}"
    if np_err is not None or theirs.kind == "O":  # numpy raised, or chose Python objects
        return None if err is not None else f"numpy gave {np_err or theirs!r}, weaktrace {ours!r}"
    if err is not None:
        return f"weaktrace raised {type(err).__name__}({err}), numpy gave {theirs!r}"
    if not isinstance(ours, np.dtype) or ours != theirs:
        return f"weaktrace {ours!r}, numpy {theirs!r}"
    return None


# NumPy semantics a compiled XLA program cannot have; weaktrace must raise or is not compared
INHERENT = {
    "runtime value errors": _runtime_value_error.__doc__,
    "value-dependent dtypes of x ** 2": _square_fast_path_unknowable.__doc__,
    "Python ints outside int64 as dynamic arguments": _unrepresentable_argument.__doc__,
    "Python objects": _object_comparison.__doc__,
    "subnormal results": "XLA's CPU backend flushes subnormal floats to zero; results below "
    "the smallest normal number compare as zero.",
    "complex power at zero or non-finite operands": unspecified.__doc__,
    "floating-point warnings": "numpy warns (RuntimeWarning) on overflow or division by zero "
    "in scalar math; a compiled program cannot warn at run time. Not compared.",
    "dtypes XLA lacks": "longdouble, clongdouble, strings, object, datetimes (see "
    "test_unsupported_dtypes).",
}


# -- test items ----------------------------------------------------------------------------


def mode(case: Any) -> bool:
    """JAX's x64 flag a case runs under. The numpy policy is 64-bit whatever jax's flag
    says; each case runs under one of the two (a stable half each), so the full sweep runs
    every case once and CI samples both."""
    return zlib.crc32(repr(case).encode()) % 2 == 1


# cases per test item in CI (--run-slow runs all); known items check a sample in both
SAMPLE = {"strong": 80, "python": 80, "pypy": 40, "alias": 30, "func": 50,
          "upstream": 10**6, "promote_types": 10**6, "result_type": 10**6}  # fmt: skip
KNOWN_SAMPLE = (150, 2)  # (full, CI): every sampled case's compiled call is checked


def _item_params() -> list[Any]:
    params = [
        pytest.param(kind, x64, None, id=f"{kind}-{'x64' if x64 else 'x32'}")
        for kind in GENERATORS
        for x64 in (False, True)
    ]
    for k in KNOWN_MISMATCHES:
        mark = pytest.mark.xfail(strict=True, raises=KnownMismatch, reason=k.reason)
        params += [
            pytest.param(kind, None, k.id, id=f"known-{k.id}-{kind}", marks=mark)
            for kind in k.kinds
        ]
    return params


@functools.cache
def all_cases(kind: str) -> tuple[Any, ...]:
    return tuple(GENERATORS[kind]())


def select(kind: str, known: str | None, x64: bool | None, n: int | None) -> list[Any]:
    """The cases of `kind` that `known` names (None: that no entry names) and that run
    under `x64` (None: either), in a stable shuffled order; n of them, or all."""
    order = list(all_cases(kind))
    entry = next((k for k in KNOWN_MISMATCHES if k.id == known), None)
    if entry is not None and entry.ops is not None:
        order = [c for c in order if c.op in entry.ops]
    random.Random(f"{kind}-{known}-{x64}").shuffle(order)
    out = []
    for c in order:
        if (x64 is None or mode(c) == x64) and getattr(known_entry(c), "id", None) == known:
            out.append(c)
            if n is not None and len(out) == n:
                break
    return out


FIXED_SAMPLE = (150, 4)  # (full, CI) cases per fixed entry and kind


def select_fixed(kind: str, entry: Known, n: int) -> list[Any]:
    """n cases of `kind` that a FIXED entry names, in a stable shuffled order."""
    order = [c for c in all_cases(kind) if entry.ops is None or c.op in entry.ops]
    random.Random(f"fixed-{kind}-{entry.id}").shuffle(order)
    out = []
    for c in order:
        unrepresentable = any(
            _dyn_int(o) and not _fits(o.value, np.dtype("int64")) for o in (c.a, c.b)
        )
        if not unrepresentable and entry.match(c):
            out.append(c)
            if len(out) == n:
                break
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "entry"),
    [pytest.param(kind, k, id=f"{k.id}-{kind}") for k in FIXED for kind in k.kinds],
)
def test_fixed_entry(kind: str, entry: Known, full: bool) -> None:
    """Regression: the cases a fixed KNOWN_MISMATCHES entry named agree with numpy, every
    compiled value checked (the sweep checks a sample of values)."""
    n = FIXED_SAMPLE[0 if full else 1]
    if entry.id.startswith("constant-integer-division"):
        n = min(n, 12)  # each instance runs in a subprocess (see _kills_the_process)
    chosen = select_fixed(kind, entry, n)
    assert chosen, f"FIXED[{entry.id!r}] names no case of kind {kind!r}"
    results: dict[Any, str | None] = {}
    for flag in (False, True):
        with jax.enable_x64(flag):
            part = [c for c in chosen if mode(c) == flag]
            results.update(run_cases(part, full, force=True))
    bad = [m for m in results.values() if m is not None]
    n_bad = len(bad)
    print(f"\nPEER-SUMMARY numpy fixed[{entry.id}-{kind}] cases={len(results)} mismatches={n_bad}")
    assert not bad, f"{len(bad)} of {len(chosen)} cases differ from numpy:\n" + "\n".join(bad[:20])


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "x64", "known"), _item_params())
def test_sweep(kind: str, x64: bool | None, known: str | None, full: bool) -> None:
    """Every case of `kind` agrees with numpy, except those KNOWN_MISMATCHES lists; a
    `known` item checks a sample of one entry's cases, which must all still differ."""
    if known is None:
        chosen = select(kind, None, x64, None if full else SAMPLE[kind])
    else:
        n = KNOWN_SAMPLE[0 if full else 1] * (1 if KNOWN[known].exact else 4)
        chosen = select(kind, known, None, n)
        if not chosen:
            pytest.fail(f"KNOWN_MISMATCHES[{known!r}] names kind {kind!r} but no case of it")
    results: dict[Any, str | None] = {}
    for flag in (False, True):
        with jax.enable_x64(flag):
            part = [c for c in chosen if mode(c) == flag]
            results.update(run_cases(part, full, force=known is not None))
    bad = [m for m in results.values() if m is not None]
    print(
        f"\nPEER-SUMMARY numpy sweep[{kind}-{x64}-{known}] full={full}: "
        f"cases={len(results)} mismatches={len(bad)}"
    )
    if known is None:
        assert not bad, f"{len(bad)} of {len(chosen)} cases differ from numpy:\n" + "\n".join(
            bad[:40]
        )
        return
    if not bad:
        return  # fixed: the strict xfail turns this pass into a failure; remove the entry
    agree = [repr(c) for c, m in results.items() if m is None]
    assert not agree or not KNOWN[known].exact, (
        f"KNOWN_MISMATCHES[{known!r}] is partly fixed or too broad; these cases agree with "
        "numpy now:\n" + "\n".join(agree[:40])
    )
    raise KnownMismatch(f"{len(bad)} cases still differ, e.g.\n" + "\n".join(bad[:5]))


# -- properties beyond the sweep -----------------------------------------------------------


_SPECS = value_specs()


@given(st.lists(st.sampled_from(_SPECS), min_size=1, max_size=6))
def test_result_type_of_random_argument_lists(specs: list[Spec]) -> None:
    """np.result_type of any mix of dtypes, arrays, numpy and Python scalars (upstream's
    test_expected_promotion draws such lists), known mismatches aside."""
    case = PureCase("result_type", "result_type", tuple(specs))
    if known_entry(case) is not None:
        return  # the known items cover these
    msg = check_pure(case)
    assert msg is None, f"{case!r}: {msg}"


@pytest.mark.parametrize("spec", UNSUPPORTED, ids=str)
def test_unsupported_dtypes(spec: Any) -> None:
    """dtypes numpy has and XLA does not (see INHERENT). Tracing refuses them with
    weaktrace's own error; promote_types / result_type give numpy's answer or that error,
    never another exception."""
    dt = np.dtype(spec)
    _, err = attempt(lambda: wt.trace(lambda a: a + 1, policy="numpy").trace(np.zeros(2, dt)))
    assert isinstance(err, wt.WeaktraceError), f"tracing {dt}: {err!r}"
    for args in [(dt, "int8"), (dt,), (np.zeros(2, dt), 1), (np.zeros(2, dt), np.int8(1))]:
        fn = wt.promote_types if len(args) == 2 and isinstance(args[1], str) else wt.result_type
        theirs, np_err = attempt(getattr(np, fn.__name__), *args)
        ours, err = attempt(functools.partial(fn, policy=NUMPY), *args)
        if err is None:
            assert np_err is None and ours == theirs, (
                f"{fn.__name__}{args}: {ours!r}, numpy {theirs!r}"
            )
        else:
            assert isinstance(err, wt.WeaktraceError), f"{fn.__name__}{args}: {err!r}"
