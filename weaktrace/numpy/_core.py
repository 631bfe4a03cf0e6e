"""What every weaktrace.numpy module shares: the `export` decorator (eager results
become jax arrays) and the small helpers the mirrors are written with.

Every mirror function has one code path: it takes its context (the current trace,
or eager evaluation), promotes its operands (``weaktrace.core.promotion``) and binds
primitives. Traced, that records equations; eager, the same primitives run through
their lowering rules, so eager and traced cannot disagree.
"""

from __future__ import annotations

import functools
import inspect
import operator
import types
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from weaktrace.core import primitives as P
from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context, invalid_input, operand
from weaktrace.core.promotion import (
    bind,
    broadcast_to,
    const_like,
    convert,
    lit,
    operands,
    promote,
    promote_args,
    promote_shapes,
    python_literal,
    result_shape,
)
from weaktrace.core.trace import Context, Tracer
from weaktrace.dtypes import registry
from weaktrace.dtypes.registry import DType
from weaktrace.errors import AxisError, InvalidInputError, ShapeError, StaticArgumentError

__all__ = [
    "EXPORTS",
    "Context",
    "DType",
    "P",
    "Tracer",
    "alias",
    "axes_arg",
    "axis_arg",
    "bind",
    "broadcast_scalar",
    "broadcast_to",
    "const_like",
    "context",
    "convert",
    "dtype_of",
    "emit",
    "export",
    "export_as",
    "full_like_value",
    "index_tuple",
    "invalid_input",
    "kind",
    "lit",
    "operand",
    "operands",
    "promote",
    "promote_args",
    "promote_shapes",
    "python_literal",
    "result_shape",
    "shape_arg",
    "static_args",
    "to_bool",
]

F = TypeVar("F", bound=Callable[..., Any])
D = registry.by_name
BOOL, INT32, F32 = D("bool"), D("int32"), D("float32")


EXPORTS: dict[str, Callable[..., Any]] = {}  # public name -> function, in definition order


class _Mirrors:
    """``N.name`` is the public weaktrace.numpy function, looked up at call time (so a
    module can call its siblings' public functions without importing their internals)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return EXPORTS[name]
        except KeyError:
            raise AttributeError(name) from None


N = _Mirrors()
export = exporter(EXPORTS, counterpart="jax.numpy")


def export_as(fn: Callable[..., Any], name: str, doc: str) -> Callable[..., Any]:
    """Export a generated function under the jax.numpy name it mirrors."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return export(fn)


def kind(x: Tracer) -> str:
    return x.aval[1].kind


def dtype_of(x: Tracer) -> DType:
    return x.aval[1]


emit = bind  # the older name the mirrors use


def broadcast_scalar(x: Tracer, shape: tuple[int, ...]) -> Tracer:
    """A 0-d value broadcast to `shape`."""
    if x.aval[0] == shape:
        return x
    return bind(P.broadcast_in_dim_p, x, shape=shape, broadcast_dimensions=())


def full_like_value(x: Tracer, value: Any, dtype: DType | None = None) -> Tracer:
    """``lax.full_like``: the fill broadcast to x's shape (weak iff dtype is None and x weak)."""
    dt = x.aval[1] if dtype is None else dtype
    weak = dtype is None and x.aval[2]
    return broadcast_scalar(lit(x.ctx, value, dt, weak), x.aval[0])


def to_bool(x: Tracer) -> Tracer:
    """x != 0 (bool values as they are)."""
    if x.aval[1] is BOOL:
        return x
    return bind(P.ne_p, x, const_like(x, 0))


def axis_arg(axis: Any, ndim: int, fn: str) -> int:
    try:
        a = operator.index(axis)
    except TypeError:
        raise InvalidInputError(f"{fn}: axis must be an integer, got {axis!r}") from None
    if not -ndim <= a < ndim:
        raise AxisError(f"{fn}: axis {a} is out of bounds for an array of dimension {ndim}")
    return a % ndim


def index_tuple(v: Any, fn: str) -> tuple[int, ...]:
    """An axis argument as jax.numpy reads one: a single index (anything with
    ``__index__``: an int, a numpy integer, a 0-d integer array) or any iterable of
    them (tuple, list, range, generator, 1-d array, ...). A traced value is not static:
    it raises the concretization error."""
    if isinstance(v, Tracer):
        return (operator.index(v),)  # raises the tracer-to-integer (concretization) error
    try:
        return (operator.index(v),)
    except TypeError:
        pass
    try:
        items = tuple(v)
    except TypeError:
        raise InvalidInputError(
            f"{fn}: axis must be an integer or a sequence of integers, got {v!r}"
        ) from None
    out = []
    for a in items:
        try:
            out.append(operator.index(a))
        except TypeError:
            raise InvalidInputError(f"{fn}: axis must be an integer, got {a!r} in {v!r}") from None
    return tuple(out)


def axes_arg(axis: Any, ndim: int, fn: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    items = index_tuple(axis, fn)
    out = tuple(axis_arg(a, ndim, fn) for a in items)
    if len(set(out)) != len(out):
        raise ShapeError(f"{fn}: duplicate value in 'axis': {axis!r}; name each axis once")
    return out


def shape_arg(shape: Any) -> tuple[int, ...]:
    """A shape argument: an int, or a sequence or 1-d array of concrete ints."""
    dims = shape_dims(shape)
    if any(d < 0 for d in dims):
        raise ShapeError(f"negative dimensions are not allowed, got shape {dims}")
    return dims


def shape_dims(shape: Any, given: Any = None) -> tuple[int, ...]:
    """The concrete ints of a shape argument (an int, a sequence, a 1-d array), negative
    ones included (reshape's -1); a traced or non-integer one is a TypeError in jax's
    words (as jax's canonicalize_shape). `given`: the argument to name in the message."""
    if isinstance(shape, tuple | list):
        items = shape
    elif getattr(shape, "ndim", 0) == 1 and not isinstance(shape, Tracer):
        items = list(shape)  # a numpy or jax array of dimensions
    else:
        items = (shape,)
    try:
        return tuple(operator.index(d) for d in items)
    except TypeError:
        raise InvalidInputError(
            "Shapes must be 1D sequences of concrete values of integer type, got "
            f"{shape if given is None else given!r}.\nIf using `jit`, try using "
            "`static_argnums` or applying `jit` to smaller subfunctions."
        ) from None


def seq(items: Sequence[Any] | Any) -> tuple[Any, ...]:
    return tuple(items) if isinstance(items, tuple | list) else (items,)


def alias(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Export `fn` under a second jax.numpy name (``abs`` for ``absolute``). A function
    gets a twin of its own named `name`, as jax.numpy's aliases are distinct functions
    (``jnp.acos.__name__ == "acos"``; code and tests name cases by it): the same code,
    closure and compiled eager path, with no frame added."""
    if isinstance(fn, types.FunctionType):
        twin = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__,
                                  fn.__closure__)  # fmt: skip
        twin.__dict__.update(fn.__dict__)
        twin.__kwdefaults__ = fn.__kwdefaults__
        twin.__doc__, twin.__module__ = fn.__doc__, fn.__module__
        twin.__qualname__ = name
        fn = twin
    EXPORTS[name] = fn
    return fn


def static_args(*names: str) -> Callable[[F], F]:
    """The named arguments are static, as in the jax.numpy functions that are
    ``jax.jit``-ed with them in ``static_argnames``: jax hashes them, so an unhashable
    value (a list, an array) is refused there with a ValueError even where a tuple of
    the same values is fine. The mirror refuses the same values (StaticArgumentError)."""

    def deco(fn: F) -> F:
        params = list(inspect.signature(fn).parameters)
        where = {n: params.index(n) for n in names}

        @functools.wraps(fn)
        def checked(*args: Any, **kwargs: Any) -> Any:
            for n, i in where.items():
                v = kwargs[n] if n in kwargs else args[i] if i < len(args) else None
                try:
                    hash(v)
                except TypeError as err:
                    raise StaticArgumentError(
                        f"{fn.__name__}: Non-hashable static arguments are not supported: "
                        f"{n}={v!r} ({err}); pass a tuple of ints"
                    ) from None
            return fn(*args, **kwargs)

        return checked  # type: ignore[return-value]

    return deco
