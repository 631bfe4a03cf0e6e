"""The tracer and the trace context.

One trace is active per thread and per asyncio task (a ``ContextVar``, as current
JAX keeps one current trace swapped by a context manager, not a level stack).
A `Builder` records equations; a `Tracer` stands for a value in it. Operators on
tracers are installed by ``weaktrace.numpy``, which is where promotion happens.
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import os
import sys
import warnings
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

import jax
import ml_dtypes
import numpy as np

from weaktrace.dtypes import registry
from weaktrace.errors import (
    ArgumentOverflowError,
    ConcretizationError,
    InvalidInputError,
    TracerLeakError,
    WeakLiteralOverflowWarning,
)
from weaktrace.ir.values import (
    AbstractValue,
    Atom,
    Equation,
    Literal,
    Primitive,
    Program,
    SourceInfo,
    Var,
    abstract_eval_rules,
)

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_make = AbstractValue.make


_IS_INTERNAL: dict[str, bool] = {}  # filename -> inside weaktrace? (one dict hit per frame)
_new_tuple = tuple.__new__  # builds NamedTuple records without their Python-level __new__


def user_source() -> SourceInfo | None:
    """file:line of the innermost frame outside weaktrace."""
    f = sys._getframe(1)
    internal = _IS_INTERNAL
    while f is not None:
        code = f.f_code
        name = code.co_filename
        inside = internal.get(name)
        if inside is None:
            inside = internal[name] = (
                name.startswith(_PACKAGE_DIR) and not name.endswith("__main__.py")  # the CLI demo
            ) or "contextlib" in name
        if not inside:
            return _new_tuple(SourceInfo, (name, f.f_lineno, code.co_name))
        f = f.f_back  # type: ignore[assignment]
    return None


class Promotion(NamedTuple):
    """One implicit promotion: an operand converted to join the others.

    A NamedTuple (not a dataclass) because tracing records one per promotion.
    """

    op: str
    operands: tuple[AbstractValue, ...]
    operand: AbstractValue
    result: AbstractValue
    source: SourceInfo | None
    literal: Any = None  # the Python scalar, when the operand was one

    def __str__(self) -> str:
        what = (
            f"{self.literal!r} ({self.operand})" if self.literal is not None else str(self.operand)
        )
        ops = ", ".join(map(str, self.operands))
        return f"{self.source or '?'}: {self.op}({ops}): {what} -> {self.result}"


class Builder:
    """Records the equations of one trace, under one promotion policy's rules."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.invars: list[Var] = []
        self.equations: list[Equation] = []
        self.constvars: list[Var] = []
        self.consts: list[Any] = []
        self._const_ids: dict[int, Var] = {}
        self.promotions: list[Promotion] = []
        self.closed = False

    def new_arg(self, aval: AbstractValue) -> Tracer:
        var = Var(aval)
        self.invars.append(var)
        return Tracer(aval, var, self)

    def emit(self, prim: Primitive, inputs: tuple[Any, ...], params: Mapping[str, Any]) -> Tracer:
        """Record one single-output equation and return its tracer."""
        atoms = []
        for x in inputs:
            if x.builder is not self:
                raise _leak_error(x)
            v = x.var
            atoms.append(v if v.__class__ is Var else materialize(v))
        out_aval = abstract_eval_rules[prim](*[x.aval for x in inputs], **params)[0]
        var = Var(out_aval)
        self.equations.append(
            _new_tuple(Equation, (prim, tuple(atoms), params, (var,), user_source()))
        )
        return Tracer(out_aval, var, self)

    def atom(self, x: Tracer) -> Atom:
        """The IR atom of an operand: its Var, or its Literal with a concrete value."""
        if x.builder is not self:
            raise _leak_error(x)
        v = x.var
        return materialize(v) if v.__class__ is Literal else v

    def const(self, value: Any, aval: AbstractValue) -> Tracer:
        """A non-scalar constant captured by the trace (bound when the program runs)."""
        var = self._const_ids.get(id(value))
        if var is None:
            var = self._const_ids[id(value)] = Var(aval)
            self.constvars.append(var)
            self.consts.append(value)
        return Tracer(aval, var, self)

    def program(self, outs: list[Any]) -> Program:
        return Program(
            tuple(self.invars),
            tuple(self.equations),
            tuple(self.atom(o) for o in outs),
            tuple(self.constvars),
            tuple(self.consts),
        )


def materialize(lit: Literal) -> Literal:
    """A literal whose value is a numpy scalar of its own dtype (Python ints wrap, as in JAX)."""
    value, dt = lit.value, lit.aval.dtype
    if isinstance(value, np.generic) and value.dtype == dt:
        return lit
    return Literal(literal_value(value, dt), lit.aval)


# dtype -> (kind, scalar type, integer bounds) for the literal fast path.
_BOOL_DTYPE = np.dtype(bool)
_SCALAR_INFO: dict[np.dtype, tuple[str, Any, tuple[int, int] | None]] = {
    d.numpy: (
        d.kind,
        d.numpy.type,
        (int(ml_dtypes.iinfo(d.numpy).min), int(ml_dtypes.iinfo(d.numpy).max))
        if d.kind in "iu"
        else None,
    )
    for d in registry.ALL
    if d.numpy is not None
}


def literal_value(value: Any, dt: Any, overflow: str = "wrap") -> Any:
    """``np.asarray(value).astype(dt)`` as JAX's ``_convert_element_type`` does, warning
    when a Python int does not fit the integer dtype it joins (JAX wraps it silently).
    With ``overflow="raise"`` (NumPy's rule) such an int is an OverflowError instead."""
    if not isinstance(dt, np.dtype):  # a policy-only dtype (MAX's index): keep the value
        return value
    if dt == _BOOL_DTYPE and isinstance(value, complex | np.complexfloating):
        return np.bool_(value.real != 0)  # XLA's convert looks at the real part only
    info = _SCALAR_INFO.get(dt)
    if info is not None:  # fast paths where the scalar constructor gives the same value
        k, scalar, bounds = info
        cls = value.__class__
        if (cls is float or cls is int) and k in "fc":
            return scalar(value)
        if cls is complex and k == "c":
            return scalar(value)
        if cls is int and bounds is not None and bounds[0] <= value <= bounds[1]:
            return scalar(value)
    if overflow == "raise" and type(value) is int and _SCALAR_INFO.get(dt, "x")[0] in "iu":
        lo, hi = _SCALAR_INFO[dt][2]  # type: ignore[misc]
        if not lo <= value <= hi:
            raise OverflowError(f"Python integer {value} out of bounds for {dt}")
    out = np.asarray(value).astype(dt)[()]
    if type(value) is int and dt.kind in "iu" and int(out) != value:
        warnings.warn(
            f"Python int {value} does not fit {dt} and wraps to {out!r} (as it does in JAX). "
            f"Use an explicit dtype if you meant a wider type, e.g. x.astype('int32') + {value}.",
            WeakLiteralOverflowWarning,
            stacklevel=find_user_stacklevel(),
        )
    return out


def find_user_stacklevel() -> int:
    f, level = sys._getframe(1), 1
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
        f, level = f.f_back, level + 1  # type: ignore[assignment]
    return level


_CURRENT: contextvars.ContextVar[Builder | None] = contextvars.ContextVar(
    "weaktrace_current_trace", default=None
)
current = _CURRENT.get


@contextlib.contextmanager
def new_trace(rules: Any) -> Iterator[Builder]:
    """Make a Builder current for the duration; close it (so leaks are caught) after.

    Python's cyclic GC is paused while tracing: a trace allocates many small,
    acyclic records, and full collections over a growing heap would make tracing
    time grow faster than linearly. It is restored (if it was on) when tracing ends.
    """
    builder = Builder(rules)
    token = _CURRENT.set(builder)
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        yield builder
    finally:
        if gc_was_on:
            gc.enable()
        _CURRENT.reset(token)
        builder.closed = True


def _leak_error(t: Tracer) -> TracerLeakError:
    if t.builder.closed:
        return TracerLeakError(
            f"a tracer {t.aval} is used after the trace that made it has ended (a tracer "
            "leak: it was stored in a global, a closure or a container during tracing). "
            "Return values from the traced function instead of stashing tracers."
        )
    return TracerLeakError(
        f"a tracer {t.aval} of another, still running trace is used here; nested traces "
        "cannot share tracers. Pass the value into the inner function as an argument."
    )


def check_live(t: Tracer) -> Builder:
    b = current()
    if b is not t.builder:
        raise _leak_error(t)
    return b


class Tracer:
    """A value being traced: its abstract value and the IR variable that holds it."""

    __slots__ = ("aval", "builder", "var")
    __array_priority__ = 1000  # numpy defers binary operators to us

    def __init__(self, aval: AbstractValue, var: Var | Literal, builder: Builder) -> None:
        self.aval = aval
        self.var = var
        self.builder = builder

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def __repr__(self) -> str:
        return f"Tracer<{self.aval}>"

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of a 0-d tracer")
        return self.aval.shape[0]

    def __iter__(self) -> Iterator[Any]:
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d tracer")
        return (self[i] for i in range(self.aval.shape[0]))  # type: ignore[index]

    def __hash__(self) -> int:
        raise TypeError(f"unhashable type: a tracer ({self.aval}); use it as a value, not a key")

    def _concrete(self, what: str) -> ConcretizationError:
        return ConcretizationError(
            f"{what} needs a concrete value, but this is a tracer {self.aval}: its value "
            "is not known while tracing. Use weaktrace.numpy.where for data-dependent "
            "choices, or mark the argument static (static_argnums) if it is a constant."
        )

    def __bool__(self) -> bool:
        raise self._concrete("Python control flow (if/while/and/or/not) on a traced value")

    def __int__(self) -> int:
        raise self._concrete("int()")

    def __float__(self) -> float:
        raise self._concrete("float()")

    def __complex__(self) -> complex:
        raise self._concrete("complex()")

    def __index__(self) -> int:
        raise self._concrete("using a tracer as a Python index")

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise self._concrete("converting to a numpy array")


# -- turning user values into operands -------------------------------------------------

_PY_SCALARS = (bool, int, float, complex)
_BOOL_AVAL = AbstractValue.make((), np.dtype(bool), False)
_SCALAR_AVALS: dict[Any, dict[type, AbstractValue]] = {}


def scalar_literal(value: Any, rules: Any) -> Literal:
    """A Python scalar as JAX sees it: bool strong, int/float/complex weak, canonical dtype."""
    if value.__class__ is bool:
        return Literal(np.bool_(value), _make((), np.dtype(bool), False))
    return Literal(value, _make((), rules.python_scalar_dtype(value.__class__), True))


def operand(x: Any, b: Builder) -> Any:
    """A Tracer or Literal for any value an operation may receive inside a trace."""
    cls = x.__class__
    if cls is Tracer:
        if x.builder is not b:
            raise _leak_error(x)
        return x
    if cls in _PY_SCALARS:
        if cls is int:
            _check_int_literal(x, b.rules)
        avals = _SCALAR_AVALS.get(b.rules)
        if avals is None:  # once per rules object: how each Python scalar type enters
            avals = _SCALAR_AVALS[b.rules] = {
                c: _make((), *b.rules.python_scalar(c)) for c in _PY_SCALARS
            }
        aval = avals[cls]
        return Tracer(aval, Literal(np.bool_(x) if cls is bool else x, aval), b)
    if isinstance(x, np.ndarray | np.generic):
        dt = b.rules.canonical_value_dtype(_valid_dtype(x.dtype, x))
        if x.ndim == 0:
            aval = _make((), dt, False)
            return Tracer(aval, Literal(np.asarray(x).astype(dt)[()], aval), b)
        value = np.asarray(x, dtype=dt)
        return b.const(value, _make(value.shape, dt, False))
    if isinstance(x, jax.Array):
        aval = x.aval
        dt = _valid_dtype(aval.dtype, x)
        return b.const(x, _make(tuple(aval.shape), dt, bool(aval.weak_type)))
    raise invalid_input(x)


def _check_int_literal(x: int, rules: Any) -> None:
    """JAX rejects a Python int that does not fit the default int dtype (int32 with x64
    off) wherever it meets an operation, even one that would convert it to a float."""
    bounds = getattr(rules, "python_int_bounds", None)
    if bounds is not None and not bounds[0] <= x <= bounds[1]:
        raise ArgumentOverflowError(
            f"Python int {x} does not fit {rules.defaults['i']}, the dtype Python ints take "
            f"under this policy{'' if rules.x64 else ' (x64 is off)'}; JAX raises OverflowError "
            "here too. Use a float literal, an explicitly typed numpy scalar, or enable x64."
        )


def _valid_dtype(dt: np.dtype, x: Any) -> np.dtype:
    if registry.from_numpy(dt) is None:
        raise InvalidInputError(
            f"{type(x).__name__} of dtype {dt} cannot enter a weaktrace operation: only "
            "bool, integer, floating and complex arrays can. Convert it first, e.g. "
            "np.asarray(x, dtype=np.float32)."
        )
    return dt


def invalid_input(x: Any) -> InvalidInputError:
    hint = (
        "convert the sequence with weaktrace.numpy.asarray first"
        if isinstance(x, list | tuple)
        else "pass an array, a numpy scalar or a Python number, or mark the argument static"
    )
    return InvalidInputError(
        f"{x!r} (type {type(x).__name__}) is not a valid array value for a weaktrace "
        f"operation; {hint}."
    )
