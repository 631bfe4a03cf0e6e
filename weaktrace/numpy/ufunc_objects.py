"""jax.numpy's ufunc objects: ``add``, ``multiply``, ``maximum``, ``logical_and`` ... are
:class:`~weaktrace.numpy.ufunc` instances with jax's ``reduce``, ``accumulate``,
``at``, ``reduceat`` and ``outer`` and their attributes (``nin``, ``identity`` ...).

Calling one costs what calling the mirror function did: each object's class has the
exported function itself as its ``__call__`` (no Python frame of ours between the
call and jax.jit's dispatch). The methods follow jax.numpy's choices:
``add.reduce`` is ``sum``, ``multiply.accumulate`` is ``cumprod``, ``maximum.reduce``
a ``reduce_max``, the bitwise and logical reductions ``reduce_and/or/xor``,
``logaddexp.reduce`` a logsumexp, ``add.at`` a scatter-add; the others are the
ufunc's loops (``ufunc_api``). Every method computes its dtypes with the active policy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from weaktrace.core import primitives_lax as L
from weaktrace.core import primitives_nn as NN
from weaktrace.core import primitives_window as W
from weaktrace.core.mirror import exporter
from weaktrace.core.operands import to_jax
from weaktrace.core.program import make_program
from weaktrace.errors import InvalidInputError, OperandTypeError, OperandValueError
from weaktrace.ir.values import AbstractValue
from weaktrace.numpy import indexed_update as U
from weaktrace.numpy import math as _math  # noqa: F401  (defines logaddexp first)
from weaktrace.numpy import reductions as R
from weaktrace.numpy import ufuncs as _ufuncs  # noqa: F401  (defines add ... first)
from weaktrace.numpy._core import (
    BOOL,
    EXPORTS,
    INT32,
    N,
    P,
    Tracer,
    alias,
    axes_arg,
    bind,
    context,
    convert,
    full_like_value,
    operand,
)
from weaktrace.numpy.shapes import reshape
from weaktrace.numpy.ufunc_api import _ARRAYLIKE, _check, ufunc

_LN2 = float(np.log(2))
_METHODS: dict[str, Callable[..., Any]] = {}  # the method implementations, exported
_method = exporter(_METHODS)


def _keywords(name: str, out: Any, where: Any) -> None:
    """jnp.ufunc.__call__ refuses out= and where=."""
    if out is not None:
        raise NotImplementedError(f"out argument of <jnp.ufunc '{name}'>")
    if where is not None:
        raise NotImplementedError(f"where argument of <jnp.ufunc '{name}'>")


def _call(name: str, public: Callable[..., Any], nin: int) -> Callable[..., Any]:
    """The exported call with jax's ``out=None, where=None`` keywords (logaddexp's
    mirror has them already)."""
    raw = getattr(public, "__wrapped__", public)
    if "where" in raw.__code__.co_varnames:
        return public
    if nin == 1:

        def fn(x: Any, /, *, out: None = None, where: None = None) -> Any:
            if out is not None or where is not None:
                _keywords(name, out, where)
            return raw(x)

    else:

        def fn(x: Any, y: Any, /, *, out: None = None, where: None = None) -> Any:  # type: ignore[misc]
            if out is not None or where is not None:
                _keywords(name, out, where)
            return raw(x, y)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__, fn.__module__ = raw.__doc__, raw.__module__
    return exporter({})(fn)


# -- reductions -----------------------------------------------------------------------


def _bitwise_reduce(name: str, prim: Any, identity: float) -> Callable[..., Any]:
    """``_reduce_bitwise_and/or/xor``: integers and bools only, no promotion."""

    def reduce(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
               initial: Any = None, where: Any = None) -> Any:  # fmt: skip
        b = context(a, initial, where)
        x = operand(a, b)
        if x.aval[1] is not BOOL and x.aval[1].kind not in "iu":
            raise OperandValueError(f"integer argument required; got dtype={x.aval.dtype}")
        dt = x.aval[1] if dtype is None else b.policy.user_dtype(dtype)
        ident: Any = identity
        if identity < 0:  # all bits set
            ident = True if dt is BOOL else np.inf if dt.kind == "u" else -1
        return R._reduce(f"reduce_{name}", x, prim, prim, ident, axis=axis, dtype=dtype,
                         out=None, keepdims=keepdims, initial=initial, where=where)  # fmt: skip

    reduce.__name__ = reduce.__qualname__ = f"{name}.reduce"
    return _method(reduce)


def _logical_reduce(name: str, prim: Any, identity: bool) -> Callable[..., Any]:
    """``_reduce_logical_and/or/xor``: the operand becomes bool first."""

    def reduce(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
               initial: Any = None, where: Any = None) -> Any:  # fmt: skip
        return R._reduce(f"reduce_{name}", a, prim, prim, identity, axis=axis, dtype=dtype,
                         out=None, keepdims=keepdims, initial=initial, where=where,
                         preproc="bool")  # fmt: skip

    reduce.__name__ = reduce.__qualname__ = f"{name}.reduce"
    return _method(reduce)


def _extremum_reduce(name: str, prim: Any, bool_prim: Any, identity: float) -> Callable[..., Any]:
    """``_reduce_max/min``: jnp.max/min with a ``dtype``."""

    def reduce(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
               initial: Any = None, where: Any = None) -> Any:  # fmt: skip
        if dtype is not None and name == "max":
            raise InvalidInputError(
                "maximum.reduce(..., dtype=...) fails in jax (its _reduce_max is jitted with "
                "dtype not static, so a dtype is taken as an array argument and refused); "
                "reduce first, then convert: maximum.reduce(a).astype(dtype)"
            )
        return R._reduce(name, a, prim, bool_prim, identity, axis=axis, dtype=dtype,
                         out=None, keepdims=keepdims, initial=initial, where=where,
                         has_identity=False)  # fmt: skip

    reduce.__name__ = reduce.__qualname__ = f"{name}.reduce"
    return _method(reduce)


def _logsumexp_reduce(base2: bool) -> Callable[..., Any]:
    """``_logsumexp`` / ``_logsumexp2``: log(sum(exp(a))) shifted by the maximum; the
    dtype is checked, then unused (as in jax); `initial` joins with lax's logaddexp,
    which needs the result's dtype."""
    name = "logsumexp2" if base2 else "logsumexp"
    uname = "logaddexp2" if base2 else "logaddexp"

    def reduce(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
               initial: Any = None, where: Any = None) -> Any:  # fmt: skip
        b = context(a, initial, where)
        if dtype is not None:
            b.policy.user_dtype(dtype)
        x = operand(a, b)
        w = R.check_where(b, name, where)
        first = None if initial is None else operand(initial, b)
        numpy_loop = b.policy.numpy_ufunc_methods  # numpy reduces in the ufunc's loop dtype
        if base2 and not numpy_loop:  # jax scales first: an integer a becomes the default float
            x = N.multiply(x, _LN2)
        # promote_dtypes_inexact; numpy's loop for two such operands (float16 for int8)
        avals = [x.aval, x.aval] if numpy_loop else [x.aval]
        dt, weak = b.policy.promote(uname if numpy_loop else name, avals, "inexact")
        x = convert(b, x, dt, weak)
        if base2:
            x = N.multiply(x, _LN2) if numpy_loop else x
            first = None if first is None else N.multiply(first, _LN2)
        dims = axes_arg(axis, x.aval.ndim, name)
        amax = N.max(N.real(x), axis=dims, keepdims=keepdims, where=w, initial=-np.inf)
        finite = bind(P.is_finite_p, amax)
        amax = bind(L.stop_gradient_p, bind(P.select_n_p, finite, full_like_value(amax, 0), amax))
        shift = amax if keepdims else bind(P.expand_dims_p, amax, dimensions=dims)
        shifted = bind(P.sub_p, x, convert(b, shift, x.aval[1], False))
        total = N.sum(bind(P.exp_p, shifted), axis=dims, keepdims=keepdims, where=w)
        r = bind(P.add_p, bind(P.log_p, total), convert(b, amax, total.aval[1], False))
        if first is not None:
            if first.aval[1] is not r.aval[1]:
                raise OperandTypeError(
                    f"{uname}.reduce: initial of dtype "
                    f"{first.aval.dtype} does not match the result's {r.aval.dtype} (jax's "
                    "lax logaddexp asserts equal dtypes); pass initial in that dtype"
                )
            r = bind(NN.logaddexp_p, first, r)
        return N.true_divide(r, _LN2) if base2 else r

    reduce.__name__ = reduce.__qualname__ = f"{name}.reduce"
    return _method(reduce)


def _sum(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
         initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    return N.sum(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)


def _prod(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
          initial: Any = None, where: Any = None) -> Any:  # fmt: skip
    return N.prod(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)


def _cumsum(a: Any, axis: Any = 0, dtype: Any = None) -> Any:
    return N.cumsum(a, axis=axis, dtype=dtype)


def _cumprod(a: Any, axis: Any = 0, dtype: Any = None) -> Any:
    return N.cumprod(a, axis=axis, dtype=dtype)


# -- at: scatters ----------------------------------------------------------------------


def _index(b: Any, indices: Any) -> Any:
    """The indices as jax.jit hands them to ``ufunc.at``: every array or scalar leaf a
    traced value, None kept; anything else is an error, as in jax."""
    if isinstance(indices, list):
        raise InvalidInputError(
            "ufunc.at: using a non-tuple sequence for multidimensional indexing is not "
            "allowed; use an array (or a tuple of arrays) of indices"
        )
    items = indices if isinstance(indices, tuple) else (indices,)
    key: list[Any] = []
    for i in items:
        if i is None:
            key.append(None)
        elif isinstance(i, _ARRAYLIKE):
            key.append(operand(i, b))
        else:
            raise InvalidInputError(
                f"ufunc.at: an index of type {type(i).__name__} is not an array; jax passes "
                "the indices through jax.jit, which takes arrays and scalars only"
            )
    return tuple(key) if isinstance(indices, tuple) else key[0]


def _scatter_at(op: str, bool_via_int: bool) -> Callable[..., Any]:
    """``_add_at`` / ``_multiply_at`` / ``_subtract_at``: ``a.at[indices].<op>(b)``; a
    bool `a` (add, multiply) is updated in int32 and turned back into bool."""

    def at(a: Any, indices: Any, c: Any, /) -> Any:
        _check(f"{op}.at", a, c)
        leaves = indices if isinstance(indices, tuple) else (indices,)
        b = context(a, c, *(i for i in leaves if i.__class__ is Tracer))
        key = _index(b, indices)
        x, y = operand(a, b), operand(c, b)
        if bool_via_int and x.aval[1] is BOOL:
            x = convert(b, x, INT32, False)
            y = convert(b, convert(b, y, BOOL, False), INT32, False)
            return convert(b, U.update(x, key, y, op), BOOL, False)
        return U.update(x, key, y, op)

    at.__name__ = at.__qualname__ = f"{op}.at"
    return _method(at)


# -- the objects ----------------------------------------------------------------------


def _element_weak(fn: Callable[..., Any], x: Tracer, y: Tracer) -> bool:
    """The weak flag of ``fn``'s result on 0-d elements of `x` and `y`: jax's outer is
    the call vmapped over the elements, and ``lax._const(e, c)`` of a weak 0-d element is
    weak where on a whole array it is strong. So ``logical_and.outer(1.5, uint64
    array)`` (x != 0 against a weak zero) and ``logaddexp2.outer`` (its 1/ln 2 factor)
    are weak where the call on the arrays is strong. Traced abstractly, nothing kept."""
    avals = [AbstractValue.make((), v.aval[1], v.aval[2]) for v in (x, y)]
    return bool(make_program(fn, avals, x.ctx.policy).out_avals[0][2])


def _outer(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    def outer(A: Any, B: Any, /) -> Any:
        """``ufunc.outer(A, B)``: the ufunc of every element of A with every element of
        B, of shape ``(*A.shape, *B.shape)`` (Python scalars stay weak, as in a call)."""
        _check(f"{name}.outer", A, B)
        b = context(A, B)
        x, y = operand(A, b), operand(B, b)
        if x.aval.ndim and y.aval.ndim:  # equal ranks: no rank promotion to check
            x = reshape(x, x.aval.shape + (1,) * y.aval.ndim)
            y = reshape(y, (1,) * (x.aval.ndim - y.aval.ndim) + y.aval.shape)
        out = fn(x, y)
        # the elements can only be weaker (a weak _const where the array's is strong)
        if not out.aval[2] and not b.policy.numpy_ufunc_methods and _element_weak(fn, x, y):
            out = convert(b, out, out.aval[1], True)
        return to_jax(out) if b.eager else out

    return outer


class _MirrorUfunc(ufunc):
    """A jax.numpy ufunc object made from a weaktrace.numpy mirror function."""

    _outer_fn: Callable[..., Any]

    def outer(self, A: Any, B: Any, /) -> Any:
        """The ufunc on every pair of elements of `A` and `B`, of shape
        ``(*A.shape, *B.shape)`` (``jnp.ufunc.outer``)."""
        self._binary("outer")
        return self._outer_fn(A, B)

    def __reduce__(self) -> Any:
        return (_named, (self.__name__,))


def _named(name: str) -> Any:
    return EXPORTS[name]


_REDUCE_MAX = _extremum_reduce("max", P.reduce_max_p, P.reduce_or_p, -np.inf)
_REDUCE_MIN = _extremum_reduce("min", P.reduce_min_p, P.reduce_and_p, np.inf)
_ADD_AT, _MUL_AT = _scatter_at("add", True), _scatter_at("multiply", True)

# name: (nin, identity, reduce, accumulate, at), as jax.numpy defines them.
SPECS: dict[str, tuple[int, Any, Any, Any, Any]] = {
    "add": (2, 0, _sum, _cumsum, _ADD_AT),
    "multiply": (2, 1, _prod, _cumprod, _MUL_AT),
    "subtract": (2, None, None, None, _scatter_at("subtract", False)),
    "maximum": (2, None, _REDUCE_MAX, None, None),
    "minimum": (2, None, _REDUCE_MIN, None, None),
    "bitwise_and": (2, -1, _bitwise_reduce("bitwise_and", P.reduce_and_p, -1), None, None),
    "bitwise_or": (2, 0, _bitwise_reduce("bitwise_or", P.reduce_or_p, 0), None, None),
    "bitwise_xor": (2, 0, _bitwise_reduce("bitwise_xor", W.reduce_xor_p, 0), None, None),
    "logical_and": (2, True, _logical_reduce("logical_and", P.reduce_and_p, True), None, None),
    "logical_or": (2, False, _logical_reduce("logical_or", P.reduce_or_p, False), None, None),
    "logical_xor": (2, False, _logical_reduce("logical_xor", W.reduce_xor_p, False), None, None),
    "logaddexp": (2, -np.inf, _logsumexp_reduce(False), None, None),
    "logaddexp2": (2, -np.inf, _logsumexp_reduce(True), None, None),
    "negative": (1, None, None, None, None),
}


def make(name: str) -> ufunc:
    """The ufunc object `name` around the exported mirror function `name`."""
    nin, identity, reduce, accumulate, at = SPECS[name]
    call = _call(name, EXPORTS[name], nin)
    raw = getattr(call, "__wrapped__", call)
    cls = type(name, (_MirrorUfunc,), {
        "__call__": staticmethod(call), "__module__": raw.__module__, "__doc__": raw.__doc__,
        "_outer_fn": staticmethod(_outer(call, name)),
    })  # fmt: skip
    obj: _MirrorUfunc = cls(call, nin, 1, name=name, identity=identity, call=call, reduce=reduce,
                     accumulate=accumulate, at=at)  # fmt: skip
    obj.__wrapped__ = raw  # type: ignore[attr-defined]
    return obj


for _name in SPECS:
    alias(_name, make(_name))
