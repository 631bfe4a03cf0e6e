"""Array creation and conversion: full, zeros, ones, the ``*_like`` family, arange,
asarray, array, astype."""

from __future__ import annotations

import array as _pyarray
import builtins
import operator
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from weaktrace.core import primitives_random as R
from weaktrace.core.literals import literal_value
from weaktrace.core.promotion import bind
from weaktrace.errors import ConcretizationError, InvalidInputError, OperandTypeError
from weaktrace.ir.values import AbstractValue
from weaktrace.numpy._core import (
    BOOL,
    Context,
    DType,
    P,
    Tracer,
    broadcast_scalar,
    broadcast_to,
    const_like,
    context,
    convert,
    emit,
    export,
    export_as,
    invalid_input,
    kind,
    lit,
    operand,
    python_literal,
    shape_arg,
)
from weaktrace.numpy.shapes import expand_dims, stack


@export
def full(shape: Any, fill_value: Any, dtype: Any = None, *, device: Any = None,
         out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.full``: weak when no dtype is given and the fill is weak (`device` and
    `out_sharding` are accepted; placement is left to jax)."""
    b = context(fill_value)
    dims = shape_arg(shape)
    if dtype is not None and fill_value.__class__ is int:
        # a Python int goes straight to the requested dtype (jax's convert_element_type
        # of the scalar): 2**32 - 1 fills uint32 with x64 off, where it is no weak int32
        dt = b.policy.user_dtype(dtype)
        return broadcast_scalar(
            lit(b, literal_value(fill_value, dt, b.policy.literal_overflow), dt), dims
        )
    v = operand(fill_value, b)
    if dtype is not None:
        v = convert(b, v, b.policy.user_dtype(dtype), False)
    elif v.aval.shape:
        return broadcast_to(v, dims)
    return broadcast_scalar(v, dims)


@export
def zeros(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """``jax.numpy.zeros`` (default float dtype)."""
    return _filled(shape, 0, dtype, "zeros")


@export
def ones(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """``jax.numpy.ones`` (default float dtype)."""
    return _filled(shape, 1, dtype, "ones")


def _filled(shape: Any, value: int, dtype: Any, name: str) -> Any:
    b = context()
    dt = b.policy.defaults["f"] if dtype is None else b.policy.user_dtype(dtype)
    return broadcast_scalar(lit(b, value, dt), shape_arg(shape))


def key_like(b: Context, fill: Tracer, dt: DType, shape: tuple[int, ...]) -> Tracer:
    """A PRNG key array of dtype `dt` (``key<fry>``) whose key data all hold `fill`, as
    jax's ``*_like`` make one from a key array: a ``random_wrap`` of filled uint32 data."""
    data = convert(b, fill, b.policy.user_dtype("uint32"), False)
    data = broadcast_to(data, (*shape, *R.key_shape(dt)))
    return bind(R.random_wrap_p, data, impl=dt)


def _like(name: str, value: Any) -> Callable[..., Any]:
    def fn(a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None,
           out_sharding: Any = None) -> Any:  # fmt: skip
        b = context(a)
        x = operand(a, b)
        dt = x.aval.dt if dtype is None else b.policy.user_dtype(dtype)
        target = x.aval.shape if shape is None else shape_arg(shape)
        if dt.kind == "K":
            return key_like(b, lit(b, value, b.policy.user_dtype("uint32")), dt, target)
        return broadcast_scalar(lit(b, value, dt, dtype is None and x.aval.weak_type), target)

    return export_as(
        fn, name, f"``jax.numpy.{name}``: x's dtype and weak flag unless a dtype is given."
    )


zeros_like = _like("zeros_like", 0)
ones_like = _like("ones_like", 1)


@export
def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None, *,
              device: Any = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.full_like``: the fill takes a's dtype (and weak flag, with no dtype)."""
    b = context(a, fill_value)
    x, fill = operand(a, b), operand(fill_value, b)
    target = x.aval.shape if shape is None else shape_arg(shape)
    if fill.aval.ndim:  # an array fill: asarray(fill, result_type(a)), broadcast
        dt = b.policy.result([x.aval])[0] if dtype is None else b.policy.user_dtype(dtype)
        return broadcast_to(convert(b, fill, dt, False), target)
    dt = x.aval.dt if dtype is None else b.policy.user_dtype(dtype)
    if dt.kind == "K":
        return key_like(b, fill, dt, target)
    weak = dtype is None and x.aval.weak_type
    if not weak:
        _check_complex_fill(fill, dt)
    return broadcast_to(convert(b, fill, dt, weak), target)


def _check_complex_fill(fill: Tracer, dt: DType) -> None:
    """jax fills a strong array with ``int(value)`` / ``float(value)``: a Python complex
    cannot fill a real (non-bool) array."""
    value = python_literal(fill)
    if isinstance(value, complex) and P.kind(dt) in "iuf":
        raise OperandTypeError(
            f"cannot fill an array of dtype {dt} with the complex value {value!r}; "
            "take its real part, or use a complex dtype."
        )


@export
def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *,
           device: Any = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.arange`` with concrete bounds (a constant, or iota for 0..n)."""
    b = context()
    names = ("stop", "", "") if stop is None and step is None else ("start", "stop", "step")
    for v, name in zip((start, stop, step), names, strict=True):
        if v.__class__ is Tracer or isinstance(v, jax.core.Tracer):  # (jax.jit of a call)
            raise ConcretizationError(
                "arange needs concrete bounds: its length must be known while tracing. "
                f"It arose in the jnp.arange argument '{name}'. Mark the argument static "
                "(static_argnums) or compute the bound outside."
            )
    bounds = [v for v in (start, stop, step) if v is not None]
    if builtins.any(np.iscomplexobj(v) for v in bounds):
        raise InvalidInputError(
            "Passing complex start/stop/step to jnp.arange is no longer supported "
            f"(got {bounds}); use real bounds, or linspace for complex values."
        )
    dt = b.policy.user_dtype(dtype) if dtype is not None else b.policy.arange_dtype(bounds)
    if dt.kind == "b":
        raise OperandTypeError(
            "arange cannot make a bool array (as in JAX: iota does not accept dtype bool). "
            "Use integer bounds, or weaktrace.numpy.arange(n) != 0 for a mask."
        )
    if stop is None and step is None and P.kind(dt) in "iu":
        params = {"dtype": dt, "shape": (operator.index(start),), "dimension": 0}
        return b.emit(P.iota_p, (), params)
    values = np.arange(start, stop, step).astype(dt.numpy)
    return b.const(values, AbstractValue.make(values.shape, dt, False))


@export
def asarray(
    a: Any,
    dtype: Any = None,
    order: str | None = None,
    *,
    copy: bool | None = None,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """``jax.numpy.asarray``: Python scalars stay weak; sequences are stacked."""
    b = context()
    if dtype is not None and isinstance(a, list | tuple) and not _has_tracer(a):
        # Concrete values straight into the dtype: out-of-range Python ints raise
        # OverflowError (as jnp.array and np.array do) instead of wrapping.
        dt = b.policy.user_dtype(dtype)
        value = np.asarray(a, dtype=dt.numpy)
        return b.const(value, AbstractValue.make(value.shape, dt, False))
    target = b.policy.user_dtype(dtype) if dtype is not None else None
    x = _array_operand(b, a, target)
    strong = isinstance(a, list | tuple) or (b.policy.asarray_operands_strong and dtype is None)
    if x.aval[2] and strong:
        # An array made from a sequence is strong (jax keeps weak_type only for a
        # weakly typed object itself), in the dtype its elements promote to; NumPy's
        # and PyTorch's arrays of a Python scalar are strong too (a 0-d array, a
        # 0-dim tensor: not a Python scalar any more).
        x = convert(b, x, x.aval[1], False)
    if dtype is None:
        return x
    return astype(x, dtype)


@export
def array(object: Any, dtype: Any = None, copy: bool = True, order: str | None = "K",
          ndmin: int = 0, *, device: Any = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.array`` (see asarray)."""
    out = asarray(object, dtype=dtype)
    while out.aval.ndim < ndmin:
        out = expand_dims(out, 0)
    return out


def _array_operand(b: Context, a: Any, dtype: DType | None = None) -> Any:
    """The stacked elements of `a`. Under a policy whose Python ints raise when they do
    not fit (NumPy's), each Python int element goes into an integer `dtype` by itself,
    so its value is checked (np.array([256], 'uint8') raises OverflowError)."""
    if isinstance(a, list | tuple):
        if not builtins.any(_has_tracer(v) for v in a):
            leaves = _leaves(a)
            if builtins.any(v is None for v in leaves):
                raise InvalidInputError(
                    f"None is not a valid value for jnp.array (got {a!r}); use a number, "
                    "or np.nan for a missing floating-point value."
                )
            # no leaves ([], [[], []]): the default float, as jnp.array([]) is float32
            dt = b.policy.values_dtype(leaves) if leaves else b.policy.scalar(float)[0]
            value = np.asarray(a, dtype=dt.numpy)
            return b.const(value, AbstractValue.make(value.shape, dt, False))
        return stack([_array_operand(b, v, dtype) for v in a])
    if a is None or isinstance(a, str | bytes):
        raise invalid_input(a)
    if isinstance(a, bytearray | memoryview | _pyarray.array) or _array_like(a):
        # the buffer protocol, or an object's own __array__ (in the dtype it declares)
        a = np.asarray(a, dtype=getattr(a, "dtype", None))
    x = operand(a, b)
    raises = b.policy.literal_overflow == "raise"
    if raises and dtype is not None and dtype.kind in "iu" and x.aval[2] and kind(x) == "i":
        return convert(b, x, dtype, False)
    return x


def _array_like(a: Any) -> bool:
    """An object that is not an array or scalar weaktrace takes as it is, but converts
    itself with ``__array__`` (jnp.array calls it too)."""
    return (
        hasattr(a, "__array__")
        and not hasattr(a, "__jax_array__")
        and a.__class__ is not Tracer
        and not isinstance(a, np.ndarray | np.generic | jax.Array | jax.core.Tracer)
    )


def _leaves(a: Any) -> list[Any]:
    """The scalars and arrays a nested sequence is made of (their dtypes decide)."""
    if isinstance(a, list | tuple):
        return [leaf for v in a for leaf in _leaves(v)]
    return [a]


def _has_tracer(v: Any) -> bool:
    # jax's tracers too: an eager lax.fori_loop/scan body runs on them (lax/control.py)
    # and np.asarray cannot read their values.
    if v.__class__ is Tracer or isinstance(v, jax.core.Tracer):
        return True
    return isinstance(v, list | tuple) and builtins.any(_has_tracer(x) for x in v)


@export
def astype(x: Any, dtype: Any, /, *, copy: bool = False, device: Any = None) -> Any:
    """``jax.numpy.astype``: an explicit, strong conversion."""
    b = context(x)
    x = operand(x, b)
    dt = b.policy.user_dtype(dtype)
    if dt == BOOL and kind(x) == "c":  # convert(complex, bool) has the wrong semantics
        x = emit(P.ne_p, x, const_like(x, 0))
    return convert(b, x, dt, False)


@export
def isscalar(element: Any) -> bool:
    """``jax.numpy.isscalar``."""
    if element.__class__ is Tracer:
        return element.aval.ndim == 0
    if np.isscalar(element):
        return True
    return isinstance(element, np.ndarray | jax.Array) and element.ndim == 0
