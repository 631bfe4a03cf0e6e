"""Operators and jax.Array methods on tracers."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from weaktrace.core.trace import install_array_methods, pinning
from weaktrace.errors import ForeignFunctionError
from weaktrace.numpy._core import EXPORTS, Tracer, context
from weaktrace.numpy.array_methods import methods as jax_array_methods
from weaktrace.numpy.array_placement import methods as placement_methods
from weaktrace.numpy.contractions import matmul
from weaktrace.numpy.indexing import getitem
from weaktrace.numpy.ufuncs import (
    absolute,
    add,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    equal,
    floor_divide,
    greater,
    greater_equal,
    invert,
    left_shift,
    less,
    less_equal,
    multiply,
    negative,
    not_equal,
    positive,
    power,
    remainder,
    right_shift,
    sqrt,
    square,
    subtract,
    true_divide,
    where,
)


def _swap(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda self, other: f(other, self)


def _reject_scalar_types(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """Operators return NotImplemented for operands we cannot take (str, None, objects),
    so Python raises its usual TypeError naming both types."""
    fast = _OPERABLE_CLASSES

    def op(self: Any, other: Any) -> Any:
        if other.__class__ not in fast and not _operable(other):
            return NotImplemented
        pin = pinning(1)  # the user's line, for every equation the operator records
        if pin is None:
            return f(self, other)
        try:
            return f(self, other)
        finally:
            pin.src = None

    return op


_OPERABLE_CLASSES = frozenset({Tracer, bool, int, float, complex, np.ndarray})


def _operable(v: Any) -> bool:
    # subclasses of int/float/complex too (IntEnum): operand() takes them as jax does
    return v.__class__ in _OPERABLE_CLASSES or isinstance(
        v, np.generic | jax.Array | int | float | complex
    )


def _pow(x: Any, y: Any) -> Any:
    """x ** y. Under policies with numpy_power, NumPy's fast paths for an array and a
    Python scalar: ``x ** 2`` is square(x), whose loop differs from power's for bools
    (int8; np.power gives int64), and a float or complex ``x ** 0.5`` is sqrt(x) (nan at
    -inf, where pow gives inf)."""
    b = context(x, y)
    if not b.policy.numpy_power or x.aval.weak_type:
        return power(x, y)
    if y.__class__ is int and y == 2:
        return square(x)
    k = x.aval.dt.kind
    if y.__class__ is float and y == 0.5 and k in "fc":
        return sqrt(x)
    if y.__class__ is Tracer and y.aval.weak_type and y.aval.dt.kind == "f" and k == "f":
        return where(equal(y, 0.5), sqrt(x), power(x, y))  # a Python float argument
    return power(x, y)


_OPERATORS: dict[str, Callable[..., Any]] = {
    "__add__": add, "__radd__": _swap(add),  # other + self
    "__sub__": subtract, "__rsub__": _swap(subtract),
    "__mul__": multiply, "__rmul__": _swap(multiply),
    "__truediv__": true_divide, "__rtruediv__": _swap(true_divide),
    "__floordiv__": floor_divide, "__rfloordiv__": _swap(floor_divide),
    "__mod__": remainder, "__rmod__": _swap(remainder),
    "__pow__": _pow, "__rpow__": _swap(power),
    "__matmul__": matmul, "__rmatmul__": _swap(matmul),
    "__and__": bitwise_and, "__rand__": _swap(bitwise_and),
    "__or__": bitwise_or, "__ror__": _swap(bitwise_or),
    "__xor__": bitwise_xor, "__rxor__": _swap(bitwise_xor),
    "__lshift__": left_shift, "__rlshift__": _swap(left_shift),
    "__rshift__": right_shift, "__rrshift__": _swap(right_shift),
    "__lt__": less, "__le__": less_equal, "__gt__": greater, "__ge__": greater_equal,
    "__eq__": equal, "__ne__": not_equal,
}  # fmt: skip


def _raw(f: Callable[..., Any]) -> Callable[..., Any]:
    """The mirror without its `export` wrapper: an operator's operand is a tracer, so
    the result stays one (the wrapper would only check that)."""
    return getattr(f, "__wrapped__", f)


# numpy ufuncs that Python operators reach (ndarray + tracer calls np.add): they run
# as the mirrored operator; any other numpy function on a tracer is an error.
_OPERATOR_UFUNCS = {
    np.add: add, np.subtract: subtract, np.multiply: multiply, np.true_divide: true_divide,
    np.floor_divide: floor_divide, np.remainder: remainder, np.power: power,
    np.matmul: matmul, np.bitwise_and: bitwise_and, np.bitwise_or: bitwise_or,
    np.bitwise_xor: bitwise_xor, np.left_shift: left_shift, np.right_shift: right_shift,
    np.less: less, np.less_equal: less_equal, np.greater: greater,
    np.greater_equal: greater_equal, np.equal: equal, np.not_equal: not_equal,
}  # fmt: skip


def _foreign(name: str, where: str) -> ForeignFunctionError:
    mirror = f"weaktrace.numpy.{name}" if name in EXPORTS else "a weaktrace.numpy function"
    return ForeignFunctionError(
        f"{where}.{name} was given a weaktrace value (a traced array); {where} cannot "
        f"compute on it. Call {mirror} instead (import weaktrace.numpy as jnp)."
    )


def _array_ufunc(self: Any, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    fn = _OPERATOR_UFUNCS.get(ufunc)
    if fn is None or method != "__call__" or kwargs:
        raise _foreign(ufunc.__name__, "numpy")
    return _raw(fn)(*inputs)


# numpy functions that only read a tracer's shape: they answer as for a jax array
_SHAPE_FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.shape: lambda a: a.aval.shape,
    np.ndim: lambda a: len(a.aval.shape),
    np.size: lambda a, axis=None: (
        int(np.prod(a.aval.shape)) if axis is None else a.aval.shape[axis]
    ),
}


def _array_function(self: Any, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
    shape_fn = _SHAPE_FUNCTIONS.get(func)
    if shape_fn is not None and args and args[0] is self:
        return shape_fn(*args, **kwargs)
    raise _foreign(func.__name__, "numpy")


_JAX_OPERATORS = "jax._src.numpy.array_methods"
_NOT_AN_ARRAY = object()  # no type jax's operators accept: they return NotImplemented


def _jax_array(self: Any) -> Any:
    caller = sys._getframe(1)
    if caller.f_code.co_name.startswith("_operator_") and (
        caller.f_globals.get("__name__") == _JAX_OPERATORS
    ):
        # a jax array's operator with a tracer on its right (``jax_array + tracer``, a
        # closed-over constant): answered with a value of no type jax accepts (the
        # tracer itself is a jax.Array, which jax would compute on), the operator
        # returns NotImplemented and Python calls the tracer's reflected one
        return _NOT_AN_ARRAY
    raise ForeignFunctionError(
        "a jax function was given a weaktrace value (a traced array): jax cannot compute "
        "on it. Call the weaktrace mirror instead (weaktrace.numpy for jax.numpy, "
        "weaktrace.lax for jax.lax, ...)."
    )


def array_methods() -> dict[str, Any]:
    """Operators and array methods of a tracer, as jax installs them on its arrays."""
    methods: dict[str, Any] = {
        name: _reject_scalar_types(_raw(f)) for name, f in _OPERATORS.items()
    }
    methods.update(
        __neg__=lambda self: negative(self),
        __pos__=lambda self: positive(self),
        __abs__=lambda self: absolute(self),
        __invert__=lambda self: invert(self),
        __getitem__=getitem,
        __array_ufunc__=_array_ufunc,
        __array_function__=_array_function,
        __jax_array__=_jax_array,
    )
    methods.update(jax_array_methods(methods))  # jax.Array's methods and properties
    methods.update(placement_methods())  # its devices and shards: none while tracing
    return methods


install_array_methods(array_methods())
