"""``ufunc`` and ``frompyfunc``: numpy-style universal functions made from a scalar
function, with jax's ``__call__``, ``reduce``, ``accumulate``, ``reduceat``, ``outer``
and ``at`` methods.

A call is ``vectorize(func)``; the methods are loops (``fori_loop`` / ``scan``) that
call the ufunc on rows, as jax's ``*_via_scan`` defaults do. Where jax asks
``eval_shape`` for the dtype of ``func`` on one element, weaktrace traces ``func``
on a 0-d abstract value under the active policy.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import jax
import numpy as np

from weaktrace.core.mirror import exporter
from weaktrace.core.operands import to_jax
from weaktrace.core.program import make_program
from weaktrace.errors import InvalidInputError, OperandValueError
from weaktrace.ir.values import AbstractValue
from weaktrace.lax.control import fori_loop, scan
from weaktrace.numpy import indexed_update as U
from weaktrace.numpy._core import (
    Context,
    N,
    Tracer,
    alias,
    axis_arg,
    context,
    dtype_of,
    export,
    operand,
    result_shape,
)
from weaktrace.numpy.indexing import getitem
from weaktrace.numpy.math_arrays import slice_in_dim
from weaktrace.numpy.vectorizing import vectorize

_AT_INPLACE = (
    "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like "
    "np.ufunc.at(). Instead, pass inplace=False and use the result, e.g. "
    "arr = jnp.add.at(arr, ind, val, inplace=False)"
)
_ARRAYLIKE = (Tracer, jax.Array, np.ndarray, np.generic, bool, int, float, complex)


def _check(name: str, *args: Any) -> None:
    """jax's check_arraylike: arrays and scalars only (a list is an error)."""
    for a in args:
        if not (isinstance(a, _ARRAYLIKE)):
            raise InvalidInputError(
                f"{name} requires ndarray or scalar arguments, got {type(a).__name__} "
                "at position 0."
            )


def _out(b: Context, x: Any) -> Any:
    return to_jax(x) if b.eager else x


def _np(dt: Any) -> Any:
    return dt.numpy


class ufunc:
    """``jax.numpy.ufunc``: a universal function of `nin` inputs and `nout` outputs
    made from `func` (which acts on 0-d arrays), with numpy's ufunc methods.

    `call`, `reduce`, `accumulate`, `at` and `reduceat` may replace the default
    implementations (a vectorized call and loops that call the ufunc)."""

    def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *,
                 name: str | None = None, nargs: int | None = None, identity: Any = None,
                 call: Callable[..., Any] | None = None,
                 reduce: Callable[..., Any] | None = None,
                 accumulate: Callable[..., Any] | None = None,
                 at: Callable[..., Any] | None = None,
                 reduceat: Callable[..., Any] | None = None) -> None:  # fmt: skip
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        self._props = MappingProxyType({
            "func": func, "nin": operator.index(nin), "nout": operator.index(nout),
            "nargs": operator.index(nargs or nin), "identity": identity,
            "call": call, "reduce": reduce, "accumulate": accumulate, "at": at,
            "reduceat": reduceat,
        })  # fmt: skip
        # each method compiled once per ufunc, as jax's are: an eager call is one jax.jit
        # dispatch, and a second call compiles nothing
        names = ("reduce", "accumulate", "at", "reduceat", "outer")
        for m in (*names, "_call") if type(self) is ufunc else names:
            method = getattr(self, m)
            public = exporter({})(method)
            public.__name__ = public.__qualname__ = f"{self.__name__}.{m.lstrip('_')}"
            public.__doc__ = method.__doc__
            self.__dict__[m] = public

    _func = property(lambda self: self._props["func"])
    nin = property(lambda self: self._props["nin"])
    nout = property(lambda self: self._props["nout"])
    nargs = property(lambda self: self._props["nargs"])
    identity = property(lambda self: self._props["identity"])

    def _key(self) -> tuple[Any, ...]:
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def _binary(self, method: str) -> None:
        if self.nin != 2:
            raise OperandValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise OperandValueError(
                f"{method} only supported for functions returning a single value"
            )

    def _dtype(self, b: Context, *xs: Tracer) -> Any:
        """The dtype of func on one element of each x (jax's eval_shape on lax._one)."""
        avals = [AbstractValue.make((), x.aval[1], x.aval[2]) for x in xs]
        made = make_program(self._func, avals, b.policy, nested=not b.eager)
        return made.out_avals[0][1]

    def __call__(self, *args: Any, out: None = None, where: None = None) -> Any:
        return self._call(*args, out=out, where=where)

    def _call(self, *args: Any, out: None = None, where: None = None) -> Any:
        _check(self.__name__, *args)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        call = self._props["call"]
        if call is None:  # one vectorized function per ufunc: its compiled calls are reused
            call = self.__dict__.get("_vectorized")
            if call is None:
                call = self.__dict__["_vectorized"] = vectorize(self._func)
        return call(*args)

    def reduce(self, a: Any, axis: Any = 0, dtype: Any = None, out: None = None,
               keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:  # fmt: skip
        """The reduction of `a` along `axis` by the binary ufunc (``jnp.ufunc.reduce``)."""
        _check(f"{self.__name__}.reduce", a)
        self._binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if initial is not None:
            _check(f"{self.__name__}.reduce", initial)
        if where is not None:
            _check(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise OperandValueError(
                    f"reduction operation {self.__name__!r} does not have an identity, so to "
                    "use a where mask one has to specify 'initial'."
                )
            wd = dtype_of(operand(where, context(where)))
            if wd.name != "bool":
                raise OperandValueError(f"where argument must have dtype=bool; got dtype={wd}")
        fn = self._props["reduce"] or self._reduce_via_scan
        return fn(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)

    def _reduce_via_scan(self, arr: Any, axis: Any = 0, dtype: Any = None,
                         keepdims: bool = False, initial: Any = None,
                         where: Any = None) -> Any:  # fmt: skip
        b = context(arr, initial, where)
        x = operand(arr, b)
        if initial is None:
            initial = self.identity
        dt = _np(self._dtype(b, x, x) if dtype is None else b.policy.user_dtype(dtype))
        w = None if where is None else N.broadcast_to(operand(where, b), x.aval.shape)
        nd = x.aval.ndim
        several = nd > 1 and (axis is None or (isinstance(axis, tuple) and len(axis) > 1))
        if several and self.identity is None and b.policy.numpy_ufunc_methods:
            raise OperandValueError(
                f"reduction operation '{self.__name__}' is not reorderable, so at most one "
                "axis may be specified"
            )
        if isinstance(axis, tuple):
            [axis_arg(a, nd, "reduce") for a in axis]
            raise NotImplementedError("tuple of axes")
        if axis is None:
            final: tuple[int, ...] = (1,) * nd if keepdims else ()
            x, w, ax = N.ravel(x), None if w is None else N.ravel(w), 0
        else:
            ax = axis_arg(axis, nd, "reduce")
            shape = x.aval.shape
            final = (*shape[:ax], *((1,) if keepdims else ()), *shape[ax + 1 :])
        if ax != 0:
            x = N.moveaxis(x, ax, 0)
            w = None if w is None else N.moveaxis(w, ax, 0)
        if x.aval.shape[0] == 0:
            if initial is None:
                raise OperandValueError(
                    f"zero-size array to reduction operation {self.__name__} which has no identity"
                )
            return _out(b, N.full(final, initial, dt))
        xs, ws = (to_jax(x), to_jax(w)) if b.eager else (x, w)

        def body(i: Any, val: Any) -> Any:
            new = self(val, N.astype(getitem(xs, i), dt))
            return to_jax(new if ws is None else N.where(getitem(ws, i), new, val))

        start, first = (1, getitem(x, 0)) if initial is None else (0, initial)
        init = N.broadcast_to(N.astype(N.asarray(first), dt), x.aval.shape[1:])
        result = fori_loop(start, x.aval.shape[0], body, _out(b, init))
        return _out(b, N.reshape(result, final) if keepdims else result)

    def accumulate(self, a: Any, axis: int = 0, dtype: Any = None, out: None = None) -> Any:
        """The running reduction of `a` along `axis` (``jnp.ufunc.accumulate``)."""
        self._binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        fn = self._props["accumulate"] or self._accumulate_via_scan
        return fn(a, axis=axis, dtype=dtype)

    def _accumulate_via_scan(self, arr: Any, axis: int = 0, dtype: Any = None) -> Any:
        _check(f"{self.__name__}.accumulate", arr)
        b = context(arr)
        x = operand(arr, b)
        dt = _np(self._dtype(b, x, x) if dtype is None else b.policy.user_dtype(dtype))
        if axis is None or isinstance(axis, tuple):
            raise OperandValueError("accumulate does not allow multiple axes")
        ax = axis_arg(axis, x.aval.ndim, "accumulate")
        if x.aval.size == 0:
            return _out(b, N.full(x.aval.shape, 0, dt))
        x = N.moveaxis(x, ax, 0)
        xs = to_jax(x) if b.eager else x

        def step(carry: Any, _: Any) -> Any:
            i, v = carry
            new = self(N.astype(v, dt), N.astype(getitem(xs, i), dt))
            y = to_jax(N.where(N.equal(i, 0), N.astype(getitem(xs, 0), dt), new))
            return (N.add(i, 1), y), y

        init = _out(b, N.astype(getitem(x, 0), dt))
        _, ys = scan(step, (0, init), None, length=x.aval.shape[0])
        return _out(b, N.moveaxis(ys, 0, ax))

    def at(self, a: Any, indices: Any, b: Any = None, /, *, inplace: bool = True) -> Any:
        """`a` with the ufunc applied at `indices` (with `b`), ``jnp.ufunc.at``; needs
        ``inplace=False``."""
        if inplace:
            raise NotImplementedError(_AT_INPLACE)
        fn = self._props["at"] or self._at_via_scan
        return fn(a, indices) if b is None else fn(a, indices, b)

    def _at_via_scan(self, a: Any, indices: Any, *args: Any) -> Any:
        _check(f"{self.__name__}.at", a, *args)
        items = indices if isinstance(indices, tuple) else (indices,)
        if isinstance(indices, list):
            raise InvalidInputError(
                "ufunc.at: indices given as a list; use a tuple of index arrays or an array "
                "(jax.jit cannot take a list of indices as one array)"
            )
        for i in items:
            if not isinstance(i, _ARRAYLIKE):
                raise InvalidInputError(
                    f"ufunc.at: an index of type {type(i).__name__} is not an array; jax "
                    "passes the indices through jax.jit, which takes arrays and scalars only"
                )
        b = context(a, *args, *items)
        x = operand(a, b)
        ys = [operand(v, b) for v in args]
        dt = _np(self._dtype(b, x, *ys))
        # numpy updates a in place: each result is cast back to a's dtype by the update
        x = x if b.policy.numpy_ufunc_methods else N.astype(x, dt)
        ys = [N.astype(v, dt) for v in ys]
        idx = [operand(i, b) for i in items]
        if not idx:
            return _out(b, x)
        shape = result_shape("ufunc.at", [i.aval.shape for i in idx])
        if not shape:
            key = tuple(idx)
            return _out(b, U.update(x, key, self(U.get(x, key), *ys), "set"))
        if ys:
            rest = ys[0].aval.shape[len(shape) :]
            ys = [N.reshape(N.broadcast_to(ys[0], (*shape, *rest)), (math.prod(shape), *rest))]
        flat = [N.ravel(N.broadcast_to(i, shape)) for i in idx]
        length = flat[0].aval.shape[0]
        if b.eager:
            flat, ys = to_jax(flat), to_jax(ys)

        def step(carry: Any, _: Any) -> Any:
            i, acc = carry
            key = tuple(getitem(f, i) for f in flat)
            new = self(U.get(acc, key), *(getitem(v, i) for v in ys))
            return (N.add(i, 1), to_jax(U.update(acc, key, new, "set"))), None

        (_, result), _ = scan(step, (0, _out(b, x)), None, length=length)
        return _out(b, result)

    def reduceat(self, a: Any, indices: Any, axis: int = 0, dtype: Any = None,
                 out: None = None) -> Any:  # fmt: skip
        """Reductions of `a` between consecutive `indices` along `axis` (``reduceat``)."""
        self._binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        fn = self._props["reduceat"] or self._reduceat_via_scan
        return fn(a, indices, axis=axis, dtype=dtype)

    def _reduceat_via_scan(self, a: Any, indices: Any, axis: int = 0,
                           dtype: Any = None) -> Any:  # fmt: skip
        _check(f"{self.__name__}.reduceat", a, indices)
        b = context(a, indices)
        x, ind = operand(a, b), operand(indices, b)
        if x.aval.ndim == 0:
            raise OperandValueError(
                f"reduceat: a must have 1 or more dimension, got a.shape={x.aval.shape}"
            )
        if ind.aval.ndim != 1:
            raise OperandValueError(
                f"reduceat: indices must be one-dimensional, got indices.shape={ind.aval.shape}"
            )
        if axis is None or isinstance(axis, tuple | list):
            raise OperandValueError("reduceat requires a single integer axis.")
        ax = axis_arg(axis, x.aval.ndim, "reduceat")
        n = x.aval.shape[ax]
        first = N.take(x, ind, axis=ax)
        bounds = N.append(ind, n)
        others = tuple(d for d in range(first.aval.ndim) if d != ax)
        bounds = N.expand_dims(bounds, others) if others else bounds
        m = bounds.aval.shape[ax]
        lo, hi = slice_in_dim(bounds, 0, m - 1, ax), slice_in_dim(bounds, 1, m, ax)
        xs, los, his = (to_jax(x), to_jax(lo), to_jax(hi)) if b.eager else (x, lo, hi)

        def body(i: Any, acc: Any) -> Any:
            row = N.take(xs, N.expand_dims(i, (0,)), axis=ax)
            return to_jax(
                N.where(N.logical_and(N.greater(i, los), N.less(i, his)), self(acc, row), acc)
            )

        return _out(b, fori_loop(0, n, body, _out(b, first)))

    def outer(self, A: Any, B: Any, /) -> Any:
        """The ufunc on every pair of elements of `A` and `B`, of shape
        ``(*A.shape, *B.shape)`` (``jnp.ufunc.outer``)."""
        self._binary("outer")
        _check(f"{self.__name__}.outer", A, B)
        b = context(A, B)
        x, y = operand(A, b), operand(B, b)
        res = operand(self(N.reshape(x, (-1, 1)), N.reshape(y, (1, -1))), b)
        return _out(b, N.reshape(res, (*x.aval.shape, *y.aval.shape)))


alias("ufunc", ufunc)


@export
def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *,
               identity: Any = None) -> ufunc:  # fmt: skip
    """``jax.numpy.frompyfunc``: a :class:`ufunc` from a scalar function of `nin`
    arguments and `nout` results (`identity` for reductions of empty arrays)."""
    return ufunc(func, nin, nout, identity=identity)
