"""IR records: abstract values, variables, literals, equations, programs.

Plain typed records with no logic (autodidax's ``Var``/``Lit``/``JaxprEqn``/``Jaxpr``).
``weak_type`` is part of an abstract value's identity: equality, hash and repr.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from weaktrace.dtypes import registry


def short_dtype(dtype: Any) -> str:
    """``f32``, ``bf16``, ``bool``: jaxpr's short dtype names."""
    if isinstance(dtype, registry.DType):
        return dtype.short
    d = registry.from_numpy(dtype) if isinstance(dtype, np.dtype) else None
    return d.short if d is not None else str(dtype)


_of = registry.of


class AbstractValue(tuple[Any, ...]):
    """An array's type: shape, dtype and weak_type. Immutable and hashable.

    The dtype is held as a :class:`~weaktrace.dtypes.registry.DType` (``.dt``; its
    kind, bits and flags); ``.dtype`` gives the numpy dtype, as jax's avals do.

    >>> import numpy as np
    >>> str(AbstractValue((3,), np.float32, True)), str(AbstractValue((2, 3), "int8"))
    ('~f32[3]', 'i8[2,3]')
    >>> AbstractValue((), "float32") == AbstractValue((), "float32", weak_type=True)
    False
    """

    __slots__ = ()
    # A plain tuple subclass, not a NamedTuple: jax.tree_util treats namedtuples as
    # pytree nodes, and an abstract value must stay a leaf of the out_avals pytree.
    shape: tuple[int, ...] = property(operator.itemgetter(0))  # type: ignore[assignment]
    dt: registry.DType = property(operator.itemgetter(1))  # type: ignore[assignment]
    weak_type: bool = property(operator.itemgetter(2))  # type: ignore[assignment]

    def __new__(cls, shape: Sequence[int], dtype: Any, weak_type: bool = False) -> AbstractValue:
        dims = tuple(int(d) for d in shape)
        if any(d < 0 for d in dims):
            raise ValueError(f"AbstractValue shape {dims} has a negative dimension")
        return tuple.__new__(cls, (dims, _of(dtype), bool(weak_type)))

    @classmethod
    def make(cls, shape: tuple[int, ...], dtype: registry.DType, weak_type: bool) -> AbstractValue:
        """Unchecked constructor for the tracer's hot path (arguments already canonical)."""
        return tuple.__new__(cls, (shape, dtype, weak_type))

    @property
    def dtype(self) -> Any:
        """The numpy dtype (a DType for dtypes only some policies know, like MAX's index)."""
        d = self[1]
        return d.numpy if d.numpy is not None else d

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def update(self, **changes: Any) -> AbstractValue:
        return AbstractValue(
            changes.get("shape", self.shape),
            changes.get("dtype", self[1]),
            changes.get("weak_type", self.weak_type),
        )

    def strong(self) -> AbstractValue:
        return AbstractValue.make(self.shape, self[1], False) if self.weak_type else self

    def __str__(self) -> str:
        dims = ",".join(map(str, self.shape))
        return f"{'~' if self.weak_type else ''}{self[1].short}[{dims}]"

    def __repr__(self) -> str:
        return f"AbstractValue({self.shape}, {self[1].name}, weak_type={self.weak_type})"


class Var:
    """A variable of a Program: an abstract value with an identity (names come at print)."""

    __slots__ = ("__weakref__", "aval")

    def __init__(self, aval: AbstractValue) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"Var({self.aval})"


class Literal:
    """A scalar constant inlined into an equation, e.g. ``2.0:f32[]``."""

    __slots__ = ("aval", "value")

    def __init__(self, value: Any, aval: AbstractValue) -> None:
        self.value = value
        self.aval = aval

    def __repr__(self) -> str:
        return f"Literal({self.value!r}, {self.aval})"


Atom = Var | Literal


class SourceInfo(NamedTuple):
    """Where in the user's code an equation was recorded."""

    file: str
    line: int
    function: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class Primitive:
    """A primitive is a name (``add_p = Primitive("add")``); its rules live in tables."""

    __slots__ = ("multiple_results", "name")

    def __init__(self, name: str, multiple_results: bool = False) -> None:
        self.name = name
        self.multiple_results = multiple_results  # its lowering rule returns a list

    def __repr__(self) -> str:
        return self.name


class Equation(NamedTuple):
    """``outputs = primitive[params](*inputs)``, recorded at `source_info`. Any number
    of outputs; sub-programs (loop bodies, branches) are params holding a Program."""

    primitive: Primitive
    inputs: tuple[Atom, ...]
    params: Mapping[str, Any]
    outputs: tuple[Var, ...]
    source_info: SourceInfo | None


class Program(NamedTuple):
    """A typed program: inputs, equations in order, outputs (jaxpr-like).

    ``constvars`` are non-scalar constants captured during tracing, bound to
    ``consts`` (arrays) when the program runs.
    """

    invars: tuple[Var, ...]
    equations: tuple[Equation, ...]
    outvars: tuple[Atom, ...]
    constvars: tuple[Var, ...] = ()
    consts: tuple[Any, ...] = ()

    def __str__(self) -> str:
        return _PRINTER[0](self)  # weaktrace.ir.printer registers itself (it imports us)

    def sub_programs(self) -> Iterator[Program]:
        """The programs held in this program's equations' params (one level down)."""
        for eqn in self.equations:
            yield from sub_programs(eqn.params)


def sub_programs(params: Mapping[str, Any]) -> Iterator[Program]:
    """Programs among an equation's params (a Program, or tuples of them)."""
    for v in params.values():
        if isinstance(v, Program):
            yield v
        elif isinstance(v, tuple):
            yield from (p for p in v if isinstance(p, Program))


_PRINTER: list[Callable[[Program], str]] = [repr]


# Rule tables, one per concern, keyed by primitive (autodidax's `abstract_eval_rules`).
# core fills `abstract_eval_rules`; lowering fills `lowering_rules`.
AbstractEvalRule = Callable[..., list[AbstractValue]]
abstract_eval_rules: dict[Primitive, AbstractEvalRule] = {}
lowering_rules: dict[Primitive, Callable[..., Any]] = {}
# Primitives whose params hold sub-programs (control flow): their lowering rule takes a
# `run(program, args)` first, which evaluates a sub-program under the trace's policy.
subprogram_lowering_rules: dict[Primitive, Callable[..., Any]] = {}
# The evaluator `run` is built from (lowering fills it; eager evaluation uses it too):
program_evaluator: list[Callable[..., Any]] = []
