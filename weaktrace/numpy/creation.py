"""Array creation and conversion: full, zeros, ones, the ``*_like`` family, arange,
asarray, array, astype."""

from __future__ import annotations

import array as _pyarray
import builtins
import operator
import warnings
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from weaktrace.core import primitives_lax as L
from weaktrace.core import primitives_random as R
from weaktrace.core.mirror import exporter, keeps_commitment
from weaktrace.core.promotion import bind, convert_fill, default_fill
from weaktrace.core.trace import current
from weaktrace.dtypes import registry
from weaktrace.dtypes.policies import DEFAULT
from weaktrace.dtypes.policies.jax import JaxPolicy
from weaktrace.dtypes.rounding import round_host
from weaktrace.errors import (
    ArgumentOverflowError,
    ConcretizationError,
    InvalidDTypeError,
    InvalidInputError,
    OperandTypeError,
)
from weaktrace.ir.values import AbstractValue
from weaktrace.numpy._core import (
    BOOL,
    EXPORTS,
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

_ARRAY = type(jax.numpy.zeros(()))  # jax's concrete array class (ArrayImpl)


@export
def full(shape: Any, fill_value: Any, dtype: Any = None, *, device: Any = None,
         out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.full``: weak when no dtype is given and the fill is weak (`device` and
    `out_sharding` are accepted; placement is left to jax)."""
    b = context(fill_value)
    dims = shape_arg(shape)
    kd = key_dtype_arg(dtype)
    if kd is not None:  # a key array: jax fills its data (or broadcasts a key fill)
        return key_like(b, operand(fill_value, b), kd, dims)
    if dtype is not None and fill_value.__class__ is int:
        # a Python int goes straight to the requested dtype (jax's convert_element_type
        # of the scalar): 2**32 - 1 fills uint32 with x64 off, where it is no weak int32
        return broadcast_scalar(
            convert_fill(b, fill_value, b.policy.user_dtype(dtype), False), dims
        )
    v = default_fill(b, fill_value)
    if dtype is not None:
        v = convert(b, v, b.policy.user_dtype(dtype), False)
    if v.aval.shape:  # an array fill broadcasts, with or without a dtype
        return broadcast_to(v, dims)
    return broadcast_scalar(v, dims)


@export
def zeros(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """``jax.numpy.zeros`` (default float dtype)."""
    forgot_shape_tuple("zeros", shape, dtype)
    return _filled(shape, 0, dtype, "zeros")


@export
def ones(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """``jax.numpy.ones`` (default float dtype)."""
    forgot_shape_tuple("ones", shape, dtype)
    return _filled(shape, 1, dtype, "ones")


def forgot_shape_tuple(name: str, shape: Any, dtype: Any) -> None:
    """jax's hint for ``zeros(2, 3)``: an int shape and an int dtype mean a shape tuple
    written without its parentheses."""
    if isinstance(dtype, int) and isinstance(shape, int):
        raise InvalidDTypeError(
            f"Cannot interpret '{dtype}' as a data type.\n\nDid you accidentally write "
            f"`jax.numpy.{name}({shape}, {dtype})` when you meant "
            f"`jax.numpy.{name}(({shape}, {dtype}))`, i.e. with a single tuple argument "
            "for the shape?"
        )


def key_dtype_arg(dtype: Any) -> DType | None:
    """The key DType a ``dtype=`` argument names (``keys.dtype``), else None."""
    return registry.key_dtype(dtype) if dtype.__class__.__name__ == "KeyTy" else None


def _filled(shape: Any, value: int, dtype: Any, name: str) -> Any:
    b = context()
    kd = key_dtype_arg(dtype)
    if kd is not None:
        return key_like(b, lit(b, value, b.policy.user_dtype("uint32")), kd, shape_arg(shape))
    dt = b.policy.defaults["f"] if dtype is None else b.policy.user_dtype(dtype)
    return broadcast_scalar(lit(b, value, dt), shape_arg(shape))


def key_like(b: Context, fill: Tracer, dt: DType, shape: tuple[int, ...]) -> Tracer:
    """A PRNG key array of dtype `dt` (``key<fry>``) whose key data all hold `fill`, as
    jax's ``*_like`` make one from a key array: a ``random_wrap`` of filled uint32 data.
    A key `fill` of that dtype is broadcast as it is."""
    if fill.aval.dt is dt:
        return broadcast_to(fill, shape)
    data = convert(b, fill, b.policy.user_dtype("uint32"), False)
    data = broadcast_to(data, (*shape, *R.key_shape(dt)))
    return bind(R.random_wrap_p, data, impl=dt)


def like_dtype(b: Context, name: str, dtype: Any) -> DType:
    """A ``*_like`` function's ``dtype=``: jax cannot make one from a key dtype (a key
    prototype with no dtype gives keys), and raises TypeError."""
    dt = b.policy.user_dtype(dtype)
    if dt.kind == "K":
        raise InvalidDTypeError(
            f"Cannot determine dtype of {dt}: jnp.{name} takes no key dtype=; pass a key "
            "array as the prototype (with no dtype) to make keys"
        )
    return dt


def _like(name: str, value: Any) -> Callable[..., Any]:
    def fn(a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None,
           out_sharding: Any = None) -> Any:  # fmt: skip
        b = context(a)
        x = operand(a, b)
        dt = x.aval.dt if dtype is None else like_dtype(b, name, dtype)
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
    x = operand(a, b)
    target = x.aval.shape if shape is None else shape_arg(shape)
    if fill_value.__class__ is int:  # straight to the dtype, as jax converts it
        dt = x.aval.dt if dtype is None else like_dtype(b, "full_like", dtype)
        if dt.kind != "K":
            weak = dtype is None and x.aval.weak_type
            return broadcast_to(convert_fill(b, fill_value, dt, weak), target)
    fill = operand(fill_value, b)
    if fill.aval.ndim:  # an array fill: asarray(fill, result_type(a)), broadcast
        dt = b.policy.result([x.aval])[0] if dtype is None else like_dtype(b, "full_like", dtype)
        return broadcast_to(convert(b, fill, dt, False), target)
    dt = x.aval.dt if dtype is None else like_dtype(b, "full_like", dtype)
    if dt.kind == "K":
        return key_like(b, fill, dt, target)
    weak = dtype is None and x.aval.weak_type
    if not weak:
        _check_complex_fill(fill, dt)
    return broadcast_to(convert(b, fill, dt, weak), target)


zeros_like = keeps_commitment(EXPORTS, "zeros_like", "device")
ones_like = keeps_commitment(EXPORTS, "ones_like", "device")
full_like = keeps_commitment(EXPORTS, "full_like", "device")  # noqa: F811


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
    if not isinstance(b.policy, JaxPolicy):  # NumPy's and PyTorch's values: numpy's
        values = np.arange(start, stop, step).astype(dt.numpy)
        return b.const(values, AbstractValue.make(values.shape, dt, False))
    return _jax_arange(b, start, stop, step, dt)


def _jax_arange(b: Context, start: Any, stop: Any, step: Any, dt: DType) -> Tracer:
    """jax's values: ``start + step * iota`` computed in the dtype (float32 for a
    narrower float) from start and step converted to it, not numpy's float64 values
    rounded (they differ by an ulp; arange(3, 17, 1.1, dtype=int32) steps by 1 in jax).
    No host-to-device transfer either: iota and scalar literals."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        work, size = dt, builtins.max(0, int(np.ceil(stop - start)))
    else:
        narrow = P.kind(dt) == "f" and dt.numpy is not None and dt.numpy.itemsize < 4
        work = b.policy.user_dtype("float32") if narrow else dt
        size = builtins.max(0, int(np.ceil((stop - start) / step)))
    out = b.emit(P.iota_p, (), {"dtype": work, "shape": (size,), "dimension": 0})
    if step is not None:
        out = emit(P.mul_p, lit(b, step, work), out)
    if step is not None or not (np.ndim(start) == 0 and start == 0):
        out = emit(P.add_p, lit(b, start, work), out)
    return out if work is dt else convert(b, out, dt, False)


def _converted(a: Any, dtype: Any = None, *, copy: bool = False, ndmin: int = 0,
               device: Any = None, out_sharding: Any = None) -> Any:  # fmt: skip
    """What jnp.array/asarray compute when they cannot hand `a` back as it is: run
    through `export` (a compiled eager path, jax arrays out) under jax's name."""
    out = _asarray(a, dtype, copy=copy)
    while out.aval.ndim < ndmin:
        out = expand_dims(out, 0)
    return out


_converted.__name__ = _converted.__qualname__ = "array"
_convert = exporter({}, counterpart="jax.numpy")(_converted)


def _order_arg(order: str | None) -> None:
    if order is not None and order != "K":
        raise NotImplementedError(
            f"Only implemented for order='K' (as in jax), got order={order!r}; "
            "jax arrays have no memory layout to choose"
        )


def _unchanged(a: Any, dtype: Any, ndmin: int, device: Any, out_sharding: Any) -> bool:
    """jax hands back a concrete jax array itself when nothing is converted, copied,
    expanded or placed (``jnp.asarray(x) is x``, ``jnp.asarray(x, x.dtype) is x``):
    its convert_element_type to the same dtype and weak flag is the array. A dtype
    given makes the result strong, so a weak array is converted."""
    concrete = a.__class__ is _ARRAY or (
        a.__class__ is not Tracer  # a jax.Array subclass, not concrete
        and isinstance(a, jax.Array)
        and not isinstance(a, jax.core.Tracer)  # key arrays
    )
    if not concrete or out_sharding is not None or current() is not None:
        return False
    if ndmin > a.ndim or (device is not None and a.devices() != {device}):
        return False
    if dtype is None:
        return True
    pol = DEFAULT.resolve()
    return not getattr(a, "weak_type", False) and pol.user_dtype(dtype) == pol.user_dtype(a.dtype)


def asarray(
    a: Any,
    dtype: Any = None,
    order: str | None = None,
    *,
    copy: bool | None = None,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """``jax.numpy.asarray``: Python scalars stay weak; sequences are stacked; a jax
    array that needs no conversion is returned itself unless ``copy=True``."""
    _order_arg(order)
    if not copy and _unchanged(a, dtype, 0, device, out_sharding):
        return a
    if dtype is not None and a.__class__ is int:
        _int_fits(a, dtype)
    return _convert(a, dtype, copy=bool(copy), device=device, out_sharding=out_sharding)


EXPORTS["asarray"] = asarray


def _int_fits(value: int, dtype: Any) -> None:
    """jnp.array(256, dtype='uint8') raises OverflowError (jax converts with numpy); the
    eager path would pass the int to jax.jit, where it wraps."""
    dt = DEFAULT.resolve().user_dtype(dtype)
    if dt.numpy is not None:
        try:
            np.asarray(value, dtype=dt.numpy)
        except OverflowError as err:
            raise ArgumentOverflowError(f"{err} (jnp.array with dtype={dt})") from None


_POSITIONAL = ("copy", "order", "ndmin")
_DEFAULTS = (True, "K", 0)


def array(
    object: Any,
    dtype: Any = None,
    *args: Any,
    copy: bool = True,
    order: str | None = "K",
    ndmin: int = 0,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """``jax.numpy.array`` (see asarray): with ``copy`` (the default), an array operand
    is copied into a new buffer, as jax's ``copy`` primitive does."""
    if args:  # jax's deprecated positional copy/order/ndmin, with its errors and warning
        if len(args) > 3:
            raise TypeError(
                f"array() takes at most 5 positional arguments but {len(args) + 2} were given"
            )
        given = (copy, order, ndmin)
        for name, value, default in zip(_POSITIONAL[: len(args)], given, _DEFAULTS, strict=False):
            if value != default:
                raise TypeError(f"array() got multiple values for argument '{name}'")
        merged: list[Any] = [*args, *given[len(args) :]]
        copy, order, ndmin = merged
        warnings.warn(
            "Passing the copy, order, and ndmin arguments to jnp.array positionally is "
            "deprecated. Use keyword arguments instead.",
            DeprecationWarning,
            stacklevel=2,
        )
    _order_arg(order)
    if not copy and _unchanged(object, dtype, ndmin, device, out_sharding):
        return object
    if dtype is not None and object.__class__ is int:
        _int_fits(object, dtype)
    return _convert(
        object, dtype, copy=bool(copy), ndmin=ndmin, device=device, out_sharding=out_sharding
    )


EXPORTS["array"] = array


def _asarray(a: Any, dtype: Any, copy: bool) -> Any:
    b = context()
    if copy and (a.__class__ is Tracer or isinstance(a, jax.Array | jax.core.Tracer)):
        # jax copies an array operand (a traced one too) with its ``copy`` primitive:
        # an identity would alias the input's buffer (jax.jit forwards its inputs). A
        # conversion makes a new value anyway (and checks a Python int literal's range
        # first, which a copy would hide).
        x = operand(a, b)
        out = _asarray(x, dtype, False)
        return emit(L.copy_p, out) if out is x else out
    concrete = isinstance(a, list | tuple) and not _has_tracer(a)
    if dtype is not None and (concrete or a.__class__ is int):
        # Concrete values straight into the dtype: out-of-range Python ints raise
        # OverflowError (as jnp.array and np.array do) instead of wrapping, and a big
        # one fits an explicit uint64.
        dt = b.policy.user_dtype(dtype)
        if dt.kind == "K":  # key arrays in a list: stacked, then converted as jax does
            return convert(b, stack([_array_operand(b, v, dt) for v in a]), dt, False)
        mode = b.policy.roundings.get(dt) if b.policy.roundings else None
        try:
            if mode is None:
                value = np.asarray(a, dtype=dt.numpy)
            else:  # the policy's library rounds into dt its own way (torch's float8)
                value = np.asarray(round_host(np.asarray(a), dt, mode))
        except OverflowError as err:
            raise ArgumentOverflowError(f"{err} (jnp.array with dtype={dt})") from None
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
            if dt.kind == "K":  # PRNG key arrays: numpy cannot hold them, jax stacks them
                return stack([_array_operand(b, v, dtype) for v in a])
            try:
                value = np.asarray(a, dtype=dt.numpy)
            except ValueError:  # ragged: with jax arrays in it, jax stacks (its TypeError)
                if not builtins.any(isinstance(v, jax.Array) for v in leaves):
                    raise
                return stack([_array_operand(b, v, dtype) for v in a])
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
