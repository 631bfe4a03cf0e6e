"""The methods and properties of ``jax.Array`` on weaktrace tracers.

Each has jax's signature (``jax._src.numpy.array_methods``). Most forward to the
weaktrace.numpy function of the same name, looked up when called: a function not
mirrored yet raises a NotImplementedError that names it. Keyword arguments left at
their defaults are not forwarded, so a mirror that lacks an option still serves the
common call. ``.at[...]`` is ``weaktrace.numpy.indexed_update``; ``.view`` bitcasts.
"""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from weaktrace.core.primitives_bitcast import bitcast_convert_type_p, bits
from weaktrace.errors import ConcretizationError, KernelDtypeError
from weaktrace.numpy import indexed_update as U
from weaktrace.numpy._core import EXPORTS, P, Tracer, bind, context, index_tuple, operand

_MISSING = object()


def _fn(name: str, method: str) -> Callable[..., Any]:
    """The weaktrace.numpy function `name`, unwrapped (its operands are tracers)."""
    f = EXPORTS.get(name)
    if f is None:
        raise NotImplementedError(
            f"x.{method}(...) needs weaktrace.numpy.{name}, which is not mirrored yet"
        )
    return getattr(f, "__wrapped__", f)


def _given(**kwargs: tuple[Any, Any]) -> dict[str, Any]:
    """The keyword arguments that differ from their defaults: ``name=(value, default)``."""
    out = {}
    for k, (v, d) in kwargs.items():
        same = v is d or (type(v) is type(d) and isinstance(v, int | str) and v == d)
        if not same:
            out[k] = v
    return out


def _forward(name: str, method: str | None = None, /, **defaults: Any) -> Callable[..., Any]:
    """A method ``x.method(*args, **kw)`` calling ``name(x, *args, **kw)``; keywords at
    their (jax) defaults are dropped."""

    def meth(self: Tracer, *args: Any, **kwargs: Any) -> Any:
        kw = _given(**{k: (v, defaults.get(k, _MISSING)) for k, v in kwargs.items()})
        f = _fn(name, method or name)
        if kw:
            _check_options(f, name, method or name, defaults, self, args, kw)
        return f(self, *args, **kw)

    meth.__name__ = method or name
    meth.__doc__ = f"``jax.Array.{method or name}``: ``weaktrace.numpy.{name}`` of the array."
    return meth


def _check_options(f: Callable[..., Any], name: str, method: str, jax_options: dict[str, Any],
                   self: Tracer, args: tuple[Any, ...], kw: dict[str, Any]) -> None:  # fmt: skip
    """A jax option the weaktrace.numpy function does not take yet is a
    NotImplementedError naming both (not Python's unexpected-keyword TypeError)."""
    try:
        inspect.signature(f).bind(self, *args, **kw)
    except TypeError:
        missing = [k for k in kw if k in jax_options and not _accepts(f, k)]
        if missing:
            raise NotImplementedError(
                f"x.{method}({missing[0]}=...): weaktrace.numpy.{name} does not take "
                f"{missing[0]}= yet"
            ) from None


def _accepts(f: Callable[..., Any], keyword: str) -> bool:
    params = inspect.signature(f).parameters
    return keyword in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _concrete(self: Tracer, what: str) -> Any:
    if not self.ctx.eager:
        raise ConcretizationError(
            f"the {what}() method needs a concrete value, but this is a tracer {self.aval}: "
            "its value is not known while tracing"
        )
    return np.asarray(self.concrete())


def _item(self: Tracer, *args: Any) -> Any:
    return _concrete(self, "item").item(*args)


def _tolist(self: Tracer) -> Any:
    return _concrete(self, "tolist").tolist()


def _transpose_method(self: Tracer, *args: Any) -> Any:
    if not args:
        axes = None
    elif len(args) == 1:
        axes = None if args[0] is None else index_tuple(args[0], "transpose")
    else:
        axes = index_tuple(args, "transpose")
    return _fn("transpose", "transpose")(self, axes)


def _swapaxes(self: Tracer, axis1: int, axis2: int) -> Any:
    perm = list(range(self.aval.ndim))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return bind(P.transpose_p, self, permutation=tuple(perm))


def _matrix_transpose(self: Tracer) -> Any:
    nd = self.aval.ndim
    if nd < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={nd}")
    return bind(P.transpose_p, self, permutation=(*range(nd - 2), nd - 1, nd - 2))


def _reshape(self: Tracer, *args: Any, order: str = "C", out_sharding: Any = None) -> Any:
    reshape = _fn("reshape", "reshape")
    shape = args[0] if len(args) == 1 else args
    if order == "C":
        return reshape(self, shape)
    if order == "F":
        dims = tuple(shape) if isinstance(shape, tuple | list) else (shape,)
        rev = _fn("transpose", "reshape")
        return rev(reshape(rev(self), dims[::-1]))
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")


def _flatten(self: Tracer, order: str = "C", *, out_sharding: Any = None) -> Any:
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    return _reshape(self, (self.aval.size,), order=order)


def _astype(self: Tracer, dtype: Any, copy: bool = False, device: Any = None) -> Any:
    if self.aval.dt.kind == "K":  # jax's key arrays have no astype method (jnp.astype works)
        raise KernelDtypeError(
            f"Cannot call abstract method astype: a PRNG key array ({self.aval.dt}) has no "
            "astype; use jax.random.key_data for its data, or jnp.astype"
        )
    return _fn("astype", "astype")(self, dtype)


def _view(self: Tracer, dtype: Any = None, type: Any = None) -> Any:
    """``jax.Array.view``: the bits reinterpreted; the last axis grows or shrinks when
    the widths differ; bool goes through uint8, complex through its parts."""
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    b = self.ctx
    dt = b.policy.user_dtype(dtype)
    n_in, n_out = bits(self.aval.dt), bits(dt)
    if self.aval.ndim == 0:
        if n_in != n_out:
            raise ValueError("view() of a 0d array is only supported if the itemsize is unchanged.")
        out = _view(bind(P.expand_dims_p, self, dimensions=(0,)), dt)
        return bind(P.squeeze_p, out, dimensions=(0,))
    if (self.aval.shape[-1] * n_in) % n_out != 0:
        raise ValueError(
            "When changing to a larger dtype, its size must be a divisor of the "
            "total size in bytes of the last axis of the array."
        )
    if self.aval.dt is dt:
        return self
    astype = _fn("astype", "view")
    if self.aval.dt.kind == "b":
        return _view(astype(self, np.uint8), dt)
    if self.aval.dt.kind == "c":
        parts = [_fn(f, "view")(self) for f in ("real", "imag")]
        pairs = _fn("stack", "view")(parts, axis=-1)
        shape = (*self.aval.shape[:-1], self.aval.shape[-1] * 2)
        return _view(bind(P.reshape_p, pairs, new_sizes=shape), dt)
    if dt.kind == "b":
        return astype(_view(self, np.uint8), bool)
    if dt.kind == "c":
        real = "float32" if dt.name == "complex64" else "float64"
        out = astype(_view(self, real), dt)
        even, odd = out[..., 0::2], out[..., 1::2]
        return _fn("add", "view")(even, _fn("multiply", "view")(1j, odd))
    shape = self.aval.shape
    if n_in < n_out:
        k = n_out // n_in
        x = bind(P.reshape_p, self, new_sizes=(*shape[:-1], shape[-1] // k, k))
        return bind(bitcast_convert_type_p, x, new_dtype=dt)
    out = bind(bitcast_convert_type_p, self, new_dtype=dt)
    if n_in > n_out:
        s = out.aval.shape
        out = bind(P.reshape_p, out, new_sizes=(*s[:-2], s[-2] * s[-1]))
    return out


def _byteswap(self: Tracer) -> Any:
    """``jax.Array.byteswap``: each element's bytes reversed."""
    dt = self.aval.dt
    if dt.kind == "c":
        re, im = (_byteswap(_fn(f, "byteswap")(self)) for f in ("real", "imag"))
        return bind(P.complex_p, re, im)
    if self.aval.dtype.itemsize == 1:
        return self
    u8 = self.ctx.policy.user_dtype(np.uint8)
    raw = bind(bitcast_convert_type_p, self, new_dtype=u8)
    swapped = bind(P.rev_p, raw, dimensions=(self.aval.ndim,))
    return bind(bitcast_convert_type_p, swapped, new_dtype=dt)


def _compress(self: Tracer, condition: Any, axis: int | None = None, **kwargs: Any) -> Any:
    kw = _given(
        axis=(axis, None),
        out=(kwargs.pop("out", None), None),
        size=(kwargs.pop("size", None), None),
        fill_value=(kwargs.pop("fill_value", 0), 0),
    )
    if kwargs:
        raise TypeError(f"compress() got unexpected keyword arguments {sorted(kwargs)}")
    return _fn("compress", "compress")(condition, self, **kw)


def _setitem(self: Tracer, key: Any, value: Any) -> None:
    raise TypeError(
        "weaktrace (like JAX) arrays are immutable and do not support in-place item "
        "assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method."
    )


def _contains(self: Tracer, other: Any) -> Any:
    if other is None or isinstance(other, str):
        raise TypeError(f"Array.__contains__: unsupported operand type {builtins.type(other)}.")
    b = context(self, other)
    query = operand(other, b)
    if self.aval.ndim != 1:
        raise ValueError(
            "Array.__contains__: search array must be one-dimensional, "
            f"got arr.shape={self.aval.shape}."
        )
    if query.aval.ndim != 0:
        raise ValueError(
            f"Array.__contains__: query value must be a scalar, got query.shape={query.aval.shape}"
        )
    return _fn("any", "__contains__")(_fn("equal", "__contains__")(self, query))


def _round_operator(self: Tracer, ndigits: int | None = None) -> Any:
    out = _fn("round", "__round__")(self, decimals=ndigits or 0)
    return _fn("astype", "__round__")(out, int) if ndigits is None else out


def _no_flat(self: Tracer) -> Any:
    raise NotImplementedError(
        "weaktrace (like JAX) arrays do not implement the arr.flat property: consider "
        "arr.flatten() instead."
    )


def _namespace(self: Tracer, *, api_version: Any = None) -> Any:
    import weaktrace.numpy

    return weaktrace.numpy


def _reject_sequences(op: str, f: Callable[..., Any]) -> Callable[..., Any]:
    """``==`` / ``!=`` with a dict, list, set or tuple raise (as jax's), instead of
    Python's identity fallback."""

    def meth(self: Tracer, other: Any) -> Any:
        if builtins.type(other) in (dict, list, set, tuple):
            raise TypeError(
                f"unsupported operand type(s) for {op}: 'Tracer' and {type(other).__name__!r}"
            )
        return f(self, other)

    return meth


class _IndexUpdateRef:
    """``x.at[idx]``: its methods return updated copies of x (jax's _IndexUpdateRef)."""

    __slots__ = ("array", "index")

    def __init__(self, array: Tracer, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
        fill_value: Any = None,
        out_sharding: Any = None,
        wrap_negative_indices: bool = True,
    ) -> Any:
        """``x[idx]``, with gather options (mode, fill_value)."""
        _no_sharding(out_sharding)
        return U.get(
            self.array,
            self.index,
            mode=mode,
            fill_value=fill_value,
            normalize=wrap_negative_indices,
        )

    def _update(
        self,
        op: str,
        values: Any,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: Any,
        out_sharding: Any,
        wrap_negative_indices: bool,
    ) -> Any:
        _no_sharding(out_sharding)
        return U.update(
            self.array,
            self.index,
            values,
            op,
            mode=mode,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            normalize=wrap_negative_indices,
        )

    def apply(
        self,
        func: Callable[[Any], Any],
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
        wrap_negative_indices: bool = True,
    ) -> Any:
        """``func.at(x, idx)``: func applied at each index, once per occurrence."""
        return U.apply(
            self.array,
            self.index,
            func,
            mode=mode,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            normalize=wrap_negative_indices,
        )

    def _via_ones(self, name: str, values: Any, **kw: Any) -> Any:
        """divide / power: ``f(x, ones_like(x).at[idx].multiply(values))``, as jax."""
        ones = _fn("ones_like", name)(self.array)
        factors = _IndexUpdateRef(ones, self.index)._update("multiply", values, **kw)
        return _fn("true_divide" if name == "divide" else "power", name)(self.array, factors)


def _update_method(op: str) -> Callable[..., Any]:
    def meth(
        self: _IndexUpdateRef,
        values: Any,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
        out_sharding: Any = None,
        wrap_negative_indices: bool = True,
    ) -> Any:
        kw = {
            "indices_are_sorted": indices_are_sorted,
            "unique_indices": unique_indices,
            "mode": mode,
            "out_sharding": out_sharding,
            "wrap_negative_indices": wrap_negative_indices,
        }
        if op in ("divide", "power"):
            return self._via_ones(op, values, **kw)
        return self._update(op, values, **kw)

    meth.__name__ = op
    meth.__doc__ = f"``x.at[idx].{op}(values)``: a pure indexed update."
    return meth


for _op in ("set", "add", "subtract", "multiply", "divide", "power", "min", "max"):
    setattr(_IndexUpdateRef, _op, _update_method(_op))
_IndexUpdateRef.mul = _IndexUpdateRef.multiply  # type: ignore[attr-defined]


def _no_sharding(out_sharding: Any) -> None:
    if out_sharding is not None:
        raise NotImplementedError("out_sharding= is not supported by weaktrace")


class _IndexUpdateHelper:
    """``x.at``: index it (``x.at[idx]``) to get an updatable reference."""

    __slots__ = ("array",)

    def __init__(self, array: Tracer) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


_REDUCE = {
    "axis": None,
    "dtype": None,
    "out": None,
    "keepdims": False,
    "initial": None,
    "where": None,
    "promote_integers": True,
    "ddof": 0,
    "correction": None,
}


def methods(current: dict[str, Any]) -> dict[str, Any]:
    """jax.Array's methods and properties for Tracer (`current`: the operators already
    defined, whose ``==`` / ``!=`` are wrapped)."""
    reductions = (
        *("all", "any", "sum", "prod", "mean", "max", "min", "std", "var", "cumsum", "cumprod"),
    )
    out: dict[str, Any] = {name: _forward(name, **_REDUCE) for name in (*reductions, "ptp")}
    out.update(
        argmax=_forward("argmax", axis=None, out=None, keepdims=None),
        argmin=_forward("argmin", axis=None, out=None, keepdims=None),
        argsort=_forward("argsort", axis=-1, kind=None, order=None, stable=True, descending=False),
        sort=_forward("sort", axis=-1, kind=None, order=None, stable=True, descending=False),
        argpartition=_forward("argpartition", axis=-1),
        choose=_forward("choose", out=None, mode="raise"),
        compress=_compress,
        clip=_forward("clip", min=None, max=None),
        conj=_forward("conjugate", "conj"),
        conjugate=_forward("conjugate"),
        diagonal=_forward("diagonal", offset=0, axis1=0, axis2=1),
        dot=_forward("dot", precision=None, preferred_element_type=None),
        nonzero=_forward("nonzero", fill_value=None, size=None),
        repeat=_forward("repeat", axis=None, total_repeat_length=None, out_sharding=None),
        round=_forward("round", decimals=0, out=None),
        searchsorted=_forward("searchsorted", side="left", sorter=None, method="scan"),
        squeeze=_forward("squeeze", axis=None),
        take=_forward(
            "take",
            axis=None,
            out=None,
            mode=None,
            unique_indices=False,
            indices_are_sorted=False,
            fill_value=None,
        ),
        trace=_forward("trace", offset=0, axis1=0, axis2=1, dtype=None, out=None),
        astype=_astype,
        byteswap=_byteswap,
        copy=lambda self: self,
        flatten=_flatten,
        ravel=_flatten,
        item=_item,
        tolist=_tolist,
        reshape=_reshape,
        swapaxes=_swapaxes,
        transpose=_transpose_method,
        view=_view,
        __array_namespace__=_namespace,
        __setitem__=_setitem,
        __contains__=_contains,
        __copy__=lambda self: self,
        __deepcopy__=lambda self, memo: self,
        __round__=_round_operator,
        __divmod__=lambda self, other: _fn("divmod", "__divmod__")(self, other),
        __rdivmod__=lambda self, other: _fn("divmod", "__rdivmod__")(other, self),
        T=property(lambda self: _fn("transpose", "T")(self)),
        mT=property(_matrix_transpose),
        real=property(lambda self: _fn("real", "real")(self)),
        imag=property(lambda self: _fn("imag", "imag")(self)),
        nbytes=property(lambda self: self.aval.size * self.aval.dtype.itemsize),
        itemsize=property(lambda self: self.aval.dtype.itemsize),
        flat=property(_no_flat),
        at=property(_IndexUpdateHelper),
    )
    for op, name in (("==", "__eq__"), ("!=", "__ne__")):
        if name in current:
            out[name] = _reject_sequences(op, current[name])
    return out
