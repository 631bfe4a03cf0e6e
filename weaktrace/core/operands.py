"""Turning user values into operands: Python and numpy scalars, arrays, jax arrays.

`context(*args)` picks where an operation goes (the current trace, or eager
evaluation under jax's config); `operand(x, ctx)` makes any value a Tracer of that
context; `abstractify(x, policy)` is the abstract value an argument enters a trace
with (as ``jax.jit`` sees it).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
from jax import lax

from weaktrace.core.literals import materialize
from weaktrace.core.trace import Context, Eager, Tracer, current, leak_error
from weaktrace.dtypes import registry
from weaktrace.dtypes.policies import DEFAULT, Policy
from weaktrace.dtypes.policies.base import INT64_MAX, INT64_MIN
from weaktrace.errors import ArgumentOverflowError, InvalidInputError
from weaktrace.ir.values import AbstractValue, Literal

_make = AbstractValue.make
_PY_SCALARS = (bool, int, float, complex)
_PY_NUMBERS = (int, float, complex)  # isinstance: their subclasses too (bool is an int)
_BOOL = registry.by_name("bool")
_EAGER: dict[Policy, Eager] = {}
_SCALAR_AVALS: dict[Policy, dict[type, AbstractValue]] = {}
_JAX_ARRAY = jax.Array


def eager_context() -> Eager:
    """Eager evaluation under the default (JAX) policy, in jax's current config."""
    pol = DEFAULT.resolve()
    ctx = _EAGER.get(pol)
    if ctx is None:
        ctx = _EAGER[pol] = Eager(pol)
    return ctx


def context(*args: Any) -> Context:
    """The context an operation on `args` runs in: the current trace, or eager.
    A tracer of a finished trace (or of an unrelated one) is a leak."""
    b = current()
    if b is None:
        for a in args:
            if a.__class__ is Tracer and not a.ctx.eager:
                raise leak_error(a)
            if isinstance(a, list | tuple):
                context(*a)
        return eager_context()
    for a in args:
        if a.__class__ is Tracer and a.ctx is not b:
            b.own(a)  # raises unless `a` belongs to an enclosing trace
    return b


def operand(x: Any, ctx: Context) -> Tracer:
    """A Tracer of `ctx` for any value an operation may receive."""
    cls = x.__class__
    if cls is Tracer:
        if x.ctx is ctx:
            return x
        if ctx.eager:
            raise leak_error(x)
        return ctx.own(x)  # type: ignore[attr-defined]
    if cls in _PY_SCALARS:
        pol = ctx.policy
        if cls is int:
            pol.check_python_int(x)
            if not INT64_MIN <= x <= INT64_MAX:  # beyond int64: the policy says (torch: uint64)
                aval = _make((), *pol.python_int(x))
                return Tracer(aval, Literal(x, aval), ctx)
        avals = _SCALAR_AVALS.get(pol)
        if avals is None:  # once per policy: how each Python scalar type enters
            avals = _SCALAR_AVALS[pol] = {c: _make((), *pol.scalar(c)) for c in _PY_SCALARS}
        aval = avals[cls]
        return Tracer(aval, Literal(np.bool_(x) if cls is bool else x, aval), ctx)
    if cls is _JAX_ARRAY or isinstance(x, _JAX_ARRAY):
        aval = x.aval
        dt = _valid_dtype(aval.dtype, x)
        av = _make(tuple(aval.shape), dt, bool(aval.weak_type))
        return Tracer(av, x, ctx) if ctx.eager else ctx.const(x, av)
    if isinstance(x, np.ndarray | np.generic):
        dt = ctx.policy.canonicalize(_valid_dtype(x.dtype, x))
        if x.ndim == 0:
            aval = _make((), dt, False)
            return Tracer(aval, Literal(np.asarray(x).astype(dt.numpy)[()], aval), ctx)
        value = np.asarray(x, dtype=dt.numpy)
        return ctx.const(value, _make(value.shape, dt, False))
    if isinstance(x, _PY_NUMBERS):  # IntEnum, IntFlag, float subclasses (numpy's are above)
        return operand(scalar_subclass(x, ctx.policy), ctx)
    raise invalid_input(x)


def foreign_extended(args: Any) -> bool:
    """Does `args` (a pytree) hold a jax value of an extended dtype weaktrace has no type
    for: jax's custom element types (``dtypes.extended`` subclasses, e.g.
    ``primal_tangent_dtype``)? PRNG keys are not among them: weaktrace types those."""
    for leaf in jax.tree_util.tree_leaves(args):
        if leaf.__class__ is Tracer or not isinstance(leaf, _JAX_ARRAY | jax.core.Tracer):
            continue
        dt = getattr(leaf, "dtype", None)
        if (
            dt is not None
            and jax.dtypes.issubdtype(dt, jax.dtypes.extended)
            and not jax.dtypes.issubdtype(dt, jax.dtypes.prng_key)
        ):
            return True
    return False


def scalar_subclass(x: int | float | complex, policy: Policy) -> Any:
    """An instance of a subclass of int, float or complex (an IntEnum member, a float
    subclass; numpy's float64 and complex128 are numpy scalars, not these) as the value
    it stands for: the Python scalar to JAX and PyTorch (weak, as jax.jit takes an
    IntEnum), ``np.asarray(x)`` to NumPy, whose NEP 50 makes only the exact Python
    types weak."""
    if not policy.scalar_subclasses_weak:
        return np.asarray(x)
    return int(x) if isinstance(x, int) else float(x) if isinstance(x, float) else complex(x)


def _valid_dtype(dt: Any, x: Any) -> registry.DType:
    d = registry.from_numpy(dt)
    if d is None:
        raise InvalidInputError(
            f"{type(x).__name__} of dtype {dt} cannot enter a weaktrace operation: only "
            "bool, integer, floating and complex arrays can. Convert it first, e.g. "
            "np.asarray(x, dtype=np.float32)."
        )
    return d


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


def abstractify(x: Any, policy: Policy) -> AbstractValue:
    """The abstract value an argument enters a trace with (as ``jax.jit`` sees it):
    Python scalars weak, numpy values and ShapeDtypeStructs canonicalized (x64)."""
    cls = x.__class__
    if cls in _PY_SCALARS:
        dt, weak = policy.scalar(cls)
        if cls is int and not INT64_MIN <= x <= INT64_MAX:
            dt, weak = policy.python_int(x)
        if cls is int:
            lo, hi = _bounds(dt)
            if not lo <= x <= hi:
                raise ArgumentOverflowError(
                    f"Python int argument {x} does not fit {dt}, the dtype a Python int takes "
                    f"here{'' if policy.x64 else ' (x64 is off)'}. Pass an array with an "
                    "explicit dtype, e.g. numpy.int64(x) with x64 enabled, or a float."
                )
        return _make((), dt, weak)
    if isinstance(x, jax.ShapeDtypeStruct):
        key = registry.key_dtype(x.dtype)  # a typed PRNG key: jax's dtype as it is
        dt = key or policy.canonicalize(_valid_dtype(np.dtype(x.dtype), x))
        return AbstractValue(x.shape, dt, bool(getattr(x, "weak_type", False)))
    if isinstance(x, AbstractValue):
        return x
    if cls is not Tracer and isinstance(x, _JAX_ARRAY):  # a Tracer is a jax.Array too
        return AbstractValue(x.aval.shape, _valid_dtype(x.aval.dtype, x), x.aval.weak_type)
    if isinstance(x, np.ndarray | np.generic):
        if registry.from_numpy(x.dtype) is None:
            raise InvalidInputError(
                f"argument of dtype {x.dtype} cannot be traced: only bool, integer, floating "
                "and complex arrays can. Convert it, or mark the argument static."
            )
        return AbstractValue(np.shape(x), policy.canonicalize(registry.of(x.dtype)), False)
    if isinstance(x, _PY_NUMBERS):  # IntEnum, float subclasses: see scalar_subclass
        return abstractify(scalar_subclass(x, policy), policy)
    raise InvalidInputError(
        f"argument {x!r} (type {type(x).__name__}) is not an array, a scalar or a "
        "jax.ShapeDtypeStruct. Pass array data, or mark the argument static "
        "(static_argnums / static_argnames) if it is configuration."
    )


def _bounds(dt: registry.DType) -> tuple[int, int]:
    info = np.iinfo(dt.numpy)
    return int(info.min), int(info.max)


def to_jax(x: Any) -> Any:
    """An eager result as the user gets it: a jax array (pytrees of them)."""
    if x.__class__ is Tracer:
        if not x.ctx.eager:  # a traced result (a mirror's tuple from static arguments)
            return x
        if x.atom.__class__ is Literal:
            return _literal_array(x)
        v = x.atom
        return jax.numpy.asarray(v) if isinstance(v, np.ndarray) else v
    if isinstance(x, tuple | list | dict):  # a pytree of results
        return jax.tree_util.tree_map(to_jax, x)
    return x


def _literal_array(x: Tracer) -> Any:
    """A literal as a jax array with its dtype and weak flag."""
    aval = x.aval
    value = np.asarray(materialize(x.atom).value)
    return lax.convert_element_type_p.bind(
        value, new_dtype=aval[1].numpy, weak_type=aval[2], sharding=None
    )
