"""Tracers and the contexts they live in: a trace that records, or eager evaluation.

One context is current per thread and per asyncio task (a ``ContextVar``, as current
JAX keeps one current trace swapped by a context manager, not a level stack). A
`Builder` records equations; outside any trace, the `Eager` context evaluates each
equation at once with the same lowering rules that compile a program (so a traced
program and its eager run cannot disagree). A `Tracer` stands for a value in either:
its abstract value, and its IR variable (traced) or concrete jax value (eager).
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import jax
import numpy as np

from weaktrace.core.literals import jax_literal, materialize, typed
from weaktrace.core.source import _IS_INTERNAL, _internal, user_source
from weaktrace.dtypes.policies import Policy
from weaktrace.errors import (
    ConcretizationError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    TracerLeakError,
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
    lowering_rules,
    program_evaluator,
    subprogram_lowering_rules,
)

_new_tuple = tuple.__new__  # builds NamedTuple records without their Python-level __new__


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


class Context:
    """Where operations go: a recording trace (`Builder`) or eager evaluation (`Eager`).
    Both run under one resolved policy."""

    eager: bool = False
    closed: bool = False  # a finished trace: its tracers may no longer be used
    src: SourceInfo | None = None  # the user's line of the public call now recording
    policy: Policy

    def emit(self, prim: Primitive, inputs: tuple[Any, ...], params: Mapping[str, Any]) -> Tracer:
        raise NotImplementedError

    def emit_n(
        self, prim: Primitive, inputs: tuple[Any, ...], params: Mapping[str, Any]
    ) -> list[Tracer]:
        raise NotImplementedError

    def const(self, value: Any, aval: AbstractValue) -> Tracer:
        raise NotImplementedError

    def promoted(self, record: Promotion) -> None:
        """Note an implicit promotion (for explain)."""

    def mark(self) -> int:
        """A position in the promotion record, to `forget` back to (eager keeps none)."""
        return 0

    def checks_int(self, x: Tracer, dtype: Any) -> None:
        """Note that the Python int behind `x` must fit `dtype` (NumPy's value check)."""

    def known(self, x: Tracer) -> Any:
        """The value behind `x` where jax sees it as concrete, else None. Under a trace
        nothing is (jax.jit makes literals and captured constants tracers too: jnp.choose(1,
        ..., mode='raise') raises ConcretizationTypeError under jit); eager values are."""
        return None

    def forget(self, mark: int) -> None:
        """Drop promotions recorded after `mark` (a traced body that is thrown away)."""


class Builder(Context):
    """Records the equations of one trace (or of a sub-program, with a parent)."""

    def __init__(self, policy: Policy, parent: Builder | None = None) -> None:
        self.policy = policy
        self.parent = parent
        self.invars: list[Var] = []
        self.equations: list[Equation] = []
        self.constvars: list[Var] = []
        self.consts: list[Any] = []
        self._const_ids: dict[int, Var] = {}
        self.captured: dict[int, tuple[Tracer, Tracer]] = {}  # id(outer) -> (outer, inner)
        self.promotions: list[Promotion] = parent.promotions if parent else []
        self.int_checks: list[tuple[Var, Any]] = []  # Python int arguments to check per call
        self.closed = False
        self.src: SourceInfo | None = None  # set by `pinning` while a public call runs

    def new_arg(self, aval: AbstractValue) -> Tracer:
        var = Var(aval)
        self.invars.append(var)
        return Tracer(aval, var, self)

    def own(self, x: Tracer) -> Tracer:
        """`x` as a tracer of this trace: a tracer of an enclosing trace is captured
        (it becomes an input of this sub-program); any other is a leak."""
        if x.ctx is self:
            return x
        hit = self.captured.get(id(x))
        if hit is not None:
            return hit[1]
        p = self.parent
        while p is not None and p is not x.ctx:
            p = p.parent
        if p is None or x.ctx.closed:
            raise leak_error(x)
        inner = Tracer(x.aval, Var(x.aval), self)
        self.captured[id(x)] = (x, inner)
        return inner

    def emit(self, prim: Primitive, inputs: tuple[Any, ...], params: Mapping[str, Any]) -> Tracer:
        """Record one single-output equation and return its tracer."""
        rule = abstract_eval_rules[prim]
        if len(inputs) == 2:  # the hot path of every trace: no loops, no lists
            x, y = inputs
            if x.ctx is not self:
                x = self.own(x)
            if y.ctx is not self:
                y = self.own(y)
            vx, vy = x.atom, y.atom
            if vx.__class__ is not Var:
                vx = materialize(vx)
            if vy.__class__ is not Var:
                vy = materialize(vy)
            atoms: tuple[Any, ...] = (vx, vy)
            out_aval = (rule(x.aval, y.aval, **params) if params else rule(x.aval, y.aval))[0]
        elif len(inputs) == 1:  # conversions, unary math
            (x,) = inputs
            if x.ctx is not self:
                x = self.own(x)
            vx = x.atom
            atoms = (vx if vx.__class__ is Var else materialize(vx),)
            out_aval = (rule(x.aval, **params) if params else rule(x.aval))[0]
        else:
            ins = [x if x.ctx is self else self.own(x) for x in inputs]
            atoms = tuple([x.atom if x.atom.__class__ is Var else materialize(x.atom) for x in ins])
            avals = [x.aval for x in ins]
            out_aval = (rule(*avals, **params) if params else rule(*avals))[0]
        var = Var(out_aval)
        src = self.src  # the line the running public call pinned
        if src is None:
            src = user_source()
        self.equations.append(_new_tuple(Equation, (prim, atoms, params, (var,), src)))
        return Tracer(out_aval, var, self)

    def emit_n(
        self, prim: Primitive, inputs: tuple[Any, ...], params: Mapping[str, Any]
    ) -> list[Tracer]:
        """Record one equation with any number of outputs."""
        ins = [x if x.ctx is self else self.own(x) for x in inputs]
        atoms = tuple(x.atom if x.atom.__class__ is Var else materialize(x.atom) for x in ins)
        out_avals = abstract_eval_rules[prim](*[x.aval for x in ins], **params)
        outs = tuple(Var(a) for a in out_avals)
        self.equations.append(Equation(prim, atoms, params, outs, self.src or user_source()))
        return [Tracer(v.aval, v, self) for v in outs]

    def const(self, value: Any, aval: AbstractValue) -> Tracer:
        """A non-scalar constant captured by the trace (bound when the program runs)."""
        var = self._const_ids.get(id(value))
        if var is None:
            var = self._const_ids[id(value)] = Var(aval)
            self.constvars.append(var)
            self.consts.append(value)
        return Tracer(aval, var, self)

    def promoted(self, record: Promotion) -> None:
        self.promotions.append(record)

    def mark(self) -> int:
        return len(self.promotions)

    def checks_int(self, x: Tracer, dtype: Any) -> None:
        if x.atom.__class__ is Var:
            self.int_checks.append((x.atom, dtype))

    def forget(self, mark: int) -> None:
        del self.promotions[mark:]

    def atom(self, x: Tracer) -> Atom:
        """The IR atom of an output: its Var, or its Literal with a concrete value."""
        x = self.own(x)
        v = x.atom
        return materialize(v) if v.__class__ is Literal else v

    def program(self, outs: list[Tracer]) -> Program:
        """The program so far, with these outputs. Captured tracers of enclosing traces
        become its first inputs (see `captures`)."""
        out_atoms = tuple(self.atom(o) for o in outs)
        captured = tuple(inner.atom for _, inner in self.captured.values())
        return Program(
            captured + tuple(self.invars),
            tuple(self.equations),
            out_atoms,
            tuple(self.constvars),
            tuple(self.consts),
        )

    def captures(self) -> list[Tracer]:
        """The enclosing trace's tracers this sub-program captured, in input order."""
        return [outer for outer, _ in self.captured.values()]


class Eager(Context):
    """Outside a trace: each equation is evaluated at once with its lowering rule."""

    eager = True

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.closed = False

    def emit(self, prim: Primitive, inputs: tuple[Any, ...], params: Mapping[str, Any]) -> Tracer:
        out_aval = abstract_eval_rules[prim](*[x.aval for x in inputs], **params)[0]
        value = lowering_rules[prim](*[x.concrete() for x in inputs], **params)
        return Tracer(out_aval, value, self)

    def emit_n(
        self, prim: Primitive, inputs: tuple[Any, ...], params: Mapping[str, Any]
    ) -> list[Tracer]:
        out_avals = abstract_eval_rules[prim](*[x.aval for x in inputs], **params)
        args = [x.concrete() for x in inputs]
        rule = lowering_rules.get(prim)
        if rule is None:  # control flow: sub-programs evaluated under this policy
            run = program_evaluator[0](self.policy)
            values = subprogram_lowering_rules[prim](run, *args, **params)
        else:
            values = rule(*args, **params)
        return [Tracer(a, v, self) for a, v in zip(out_avals, values, strict=True)]

    def const(self, value: Any, aval: AbstractValue) -> Tracer:
        return Tracer(aval, typed(value, aval[1]), self)  # a 64-bit numpy value keeps its dtype

    def known(self, x: Tracer) -> Any:
        return x.concrete()


_CURRENT: contextvars.ContextVar[Builder | None] = contextvars.ContextVar(
    "weaktrace_current_trace", default=None
)
current = _CURRENT.get


def pinning(depth: int) -> Builder | None:
    """Pin, on the current trace, the line of the frame `depth` levels above the caller,
    if nothing is pinned and that frame is the user's: every equation the public call
    records then has that line without walking the stack. Returns the trace to clear
    (``pin.src = None``) when the call returns, or None when there is nothing to clear
    (no trace: eager equations record no line; a pin already set; an internal caller).
    A nested trace starts unpinned, so a body called back from a public call (a loop
    body, a branch) takes its own lines."""
    b = current()
    if b is None or b.src is not None:
        return None
    f = sys._getframe(depth + 1)
    code = f.f_code
    inside = _IS_INTERNAL.get(code.co_filename)  # `_internal`, its cache read inline
    if inside or (inside is None and _internal(code.co_filename)):
        return None
    b.src = _new_tuple(SourceInfo, (code.co_filename, f.f_lineno, code.co_name))
    return b


@contextlib.contextmanager
def new_trace(policy: Policy, parent: Builder | None = None) -> Iterator[Builder]:
    """Make a Builder current for the duration; close it (so leaks are caught) after.

    Python's cyclic GC is paused while tracing: a trace allocates many small,
    acyclic records, and full collections over a growing heap would make tracing
    time grow faster than linearly. It is restored (if it was on) when tracing ends,
    after handing every tracked object to the oldest generation (``gc.freeze()`` then
    ``gc.unfreeze()``, two list splices): the program just built is long-lived, and
    the first young collection would otherwise scan all of it (~6% of a trace's time).
    Not done when the user has frozen objects (``unfreeze`` would release them).
    """
    builder = Builder(policy, parent)
    token = _CURRENT.set(builder)
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        yield builder
    finally:
        if gc_was_on:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()
        _CURRENT.reset(token)
        builder.closed = True


@contextlib.contextmanager
def outside_trace() -> Iterator[None]:
    """No trace is current for the duration (jax computing on its own values inside a
    trace: weaktrace.numpy then computes eagerly, as jax.numpy does)."""
    token = _CURRENT.set(None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def leak_error(t: Tracer) -> TracerLeakError:
    if t.ctx.closed:
        return TracerLeakError(
            f"a tracer {t.aval} is used after the trace that made it has ended (a tracer "
            "leak: it was stored in a global, a closure or a container during tracing). "
            "Return values from the traced function instead of stashing tracers."
        )
    return TracerLeakError(
        f"a tracer {t.aval} of another, still running trace is used here; nested traces "
        "cannot share tracers. Pass the value into the inner function as an argument."
    )


if TYPE_CHECKING:  # the checker sees Tracer's own attributes, not jax.Array's stubs
    _ArrayBase = object
else:  # isinstance(tracer, jax.Array) holds, as for jax's tracers under jax.jit (#14)
    _ArrayBase = jax.Array


class Tracer(_ArrayBase):
    """A value in a context: its abstract value (`aval`) and its IR atom (`atom`: a Var
    or a Literal; eagerly, the concrete jax value). Operators and array methods are
    installed by `install_array_methods` (weaktrace.numpy calls it; weaktrace imports
    it); the atom is not named ``var``, which is jax.Array's method. A jax.Array
    subclass, so array filters keep it; weaktrace's own ``isinstance(x, jax.Array)``
    checks mean a concrete jax value and test ``x.__class__ is Tracer`` first."""

    __slots__ = ("atom", "aval", "ctx")
    __array_priority__ = 1000  # numpy defers binary operators to us

    def __init__(self, aval: AbstractValue, var: Any, ctx: Context) -> None:
        self.aval = aval
        self.atom = var
        self.ctx = ctx

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def concrete(self) -> Any:
        """Eagerly: the jax value (a literal becomes the scalar jax would see)."""
        v = self.atom
        return jax_literal(v, self.ctx.policy.x64) if v.__class__ is Literal else v

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

    def _concrete(
        self, what: str, cls: type[ConcretizationError] = ConcretizationError
    ) -> ConcretizationError:
        return cls(
            f"{what} needs a concrete value, but this is a tracer {self.aval}: its value "
            "is not known while tracing. Use weaktrace.numpy.where or weaktrace.lax.cond for "
            "data-dependent choices, or mark the argument static (static_argnums) if it is "
            "a constant."
        )

    def __bool__(self) -> bool:
        raise self._concrete(
            "Python control flow (if/while/and/or/not) on a traced value",
            TracerBoolConversionError,
        )

    def __int__(self) -> int:
        raise self._concrete("int()")

    def __float__(self) -> float:
        raise self._concrete("float()")

    def __complex__(self) -> complex:
        raise self._concrete("complex()")

    def __index__(self) -> int:
        raise self._concrete("using a tracer as a Python index", TracerIntegerConversionError)

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise self._concrete("converting to a numpy array", TracerArrayConversionError)


def install_array_methods(methods: Mapping[str, Any]) -> None:
    """Operators and jax.Array methods on Tracer, as jax installs them on its arrays
    (jax._src.numpy.array_methods): the numpy mirror owns their semantics."""
    for name, method in methods.items():
        setattr(Tracer, name, method)
