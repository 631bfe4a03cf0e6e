"""Sorting and searching: sort, argsort, lexsort, partition, argpartition,
sort_complex, searchsorted, digitize, bincount, nonzero, flatnonzero and argwhere.

Each follows ``jax._src.numpy`` step by step on weaktrace's ``sort`` / ``top_k``
primitives (``weaktrace.core.primitives_lax``). The functions whose result shape
depends on the data (``nonzero`` and friends, ``bincount`` without ``length=``)
need ``size=`` inside a trace; eagerly, the size is read from the concrete count.
"""

from __future__ import annotations

import operator
from typing import Any

from weaktrace.core import primitives_lax as L
from weaktrace.core.promotion import bind_n
from weaktrace.errors import (
    ArgumentOverflowError,
    ConcretizationError,
    InvalidInputError,
    OperandTypeError,
    ShapeError,
)
from weaktrace.numpy._core import (
    BOOL,
    Context,
    P,
    axis_arg,
    context,
    convert,
    emit,
    export,
    kind,
    lit,
    operand,
    promote,
    static_args,
    to_bool,
)
from weaktrace.numpy.shapes import concatenate, reshape, stack, transpose
from weaktrace.numpy.ufuncs import isnan, where


def _op(x: Any, b: Context) -> Any:
    """`operand`, typed loosely: tracers get their operators and methods at import."""
    return operand(x, b)


def _int32(b: Context) -> Any:
    return b.policy.user_dtype("int32")


def _default_int(b: Context) -> Any:
    return b.policy.user_dtype(int)


def _sort_args(name: str, kind_: Any, order: Any) -> None:
    if kind_ is not None:
        raise InvalidInputError(
            f"'kind' argument to {name} is not supported. Use stable=True or stable=False to "
            "specify sort stability."
        )
    if order is not None:
        raise InvalidInputError(f"'order' argument to {name} is not supported.")


def _axis__op(name: str, a: Any, axis: Any) -> tuple[Context, Any, int]:
    b = context(a)
    x = _op(a, b)
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    return b, x, axis_arg(axis, x.aval.ndim, name)


def _rev(x: Any, d: int) -> Any:
    return emit(P.rev_p, x, dimensions=(d,))


def _iota(b: Context, dt: Any, shape: tuple[int, ...], d: int) -> Any:
    if shape == (shape[d],) or len(shape) == 1:
        return b.emit(P.iota_p, (), {"dtype": dt, "shape": shape, "dimension": d})
    one = b.emit(P.iota_p, (), {"dtype": dt, "shape": (shape[d],), "dimension": 0})
    return emit(P.broadcast_in_dim_p, one, shape=shape, broadcast_dimensions=(d,))


def _sort(b: Context, xs: list[Any], d: int, stable: bool, num_keys: int) -> list[Any]:
    params = {"dimension": d, "is_stable": bool(stable), "num_keys": num_keys}
    return bind_n(L.sort_p, b, xs, params)


@export
@static_args("axis")
def sort(a: Any, axis: Any = -1, *, kind: None = None, order: None = None, stable: bool = True,
         descending: bool = False) -> Any:  # fmt: skip
    """``jax.numpy.sort``: ``lax.sort`` along `axis` (None: the flattened array)."""
    _sort_args("sort", kind, order)
    b, x, d = _axis__op("sort", a, axis)
    (r,) = _sort(b, [x], d, stable, 1)
    return _rev(r, d) if descending else r


def _index_dtype(b: Context, n: int, dtype: Any) -> Any:
    if dtype is not None:
        return b.policy.user_dtype(dtype)
    return _default_int(b) if n < 2**31 else b.policy.user_dtype("int64")


@export
@static_args("axis")
def argsort(a: Any, axis: Any = -1, *, kind: None = None, order: None = None,
            stable: bool = True, descending: bool = False, dtype: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.argsort``: the iota sorted along with the keys."""
    _sort_args("argsort", kind, order)
    b, x, d = _axis__op("argsort", a, axis)
    iota = _iota(b, _index_dtype(b, x.aval.shape[d], dtype), x.aval.shape, d)
    if descending and stable:
        x, iota = _rev(x, d), _rev(iota, d)
    _, idx = _sort(b, [x, iota], d, stable, 1)
    return _rev(idx, d) if descending else idx


@export
@static_args("axis")
def lexsort(keys: Any, axis: int = -1) -> Any:
    """``jax.numpy.lexsort``: sort by the last key, then the one before..."""
    try:
        keys = (
            tuple(keys)
            if isinstance(keys, list | tuple)
            else tuple(keys[i] for i in range(len(keys)))
        )
    except (KeyError, TypeError, IndexError):
        raise InvalidInputError(
            f"lexsort: keys must be a sequence of arrays or an array, got {type(keys).__name__}"
        ) from None
    if not keys:
        raise InvalidInputError("need sequence of keys with len > 0 in lexsort")
    b = context(*keys)
    ks = [_op(k, b) for k in keys]
    if len({k.aval.shape for k in ks}) > 1:
        raise ShapeError("all keys need to be the same shape")
    shape = ks[0].aval.shape
    if not shape:
        return emit(P.broadcast_in_dim_p, lit(b, 0, _default_int(b)), shape=(),
                    broadcast_dimensions=())  # fmt: skip
    d = axis_arg(axis, len(shape), "lexsort")
    iota = _iota(b, _index_dtype(b, shape[d], None), shape, d)
    return _sort(b, [*ks[::-1], iota], d, True, len(ks))[-1]


def _swap_last(x: Any, d: int) -> Any:
    n = x.aval.ndim
    if d == n - 1:
        return x
    perm = list(range(n))
    perm[d], perm[-1] = perm[-1], perm[d]
    return transpose(x, perm)


def _top_k(b: Context, x: Any, k: int) -> list[Any]:
    return bind_n(L.top_k_p, b, [x], {"k": k})


def _partition_setup(name: str, a: Any, kth: Any, axis: Any) -> tuple[Context, Any, int, int]:
    b = context(a)
    x = _op(a, b)
    if kind(x) == "c":
        raise NotImplementedError(f"jnp.{name} for complex dtype is not implemented.")
    d = axis_arg(axis, x.aval.ndim, name)
    k = axis_arg(kth, x.aval.shape[d], name)
    return b, _swap_last(x, d), d, k


def _neg_key(x: Any) -> Any:
    """-x, or -(x + 1) for unsigned integers (jax's trick for 0)."""
    return -(x + 1) if kind(x) == "u" else -x


@export
@static_args("axis")
def partition(a: Any, kth: int, axis: int = -1) -> Any:
    """``jax.numpy.partition`` with ``lax.top_k`` as jax."""
    b, x, d, k = _partition_setup("partition", a, kth, axis)
    low = _top_k(b, _neg_key(x), k + 1)[0]
    bottom = -low - 1 if kind(x) == "u" else -low
    top = _top_k(b, x, x.aval.shape[-1] - k - 1)[0]
    return _swap_last(concatenate([bottom, top], axis=-1), d)


@export
@static_args("axis")
def argpartition(a: Any, kth: int, axis: int = -1) -> Any:
    """``jax.numpy.argpartition``: the bottom k+1 indices, then the rest in top_k order."""
    b, x, d, k = _partition_setup("argpartition", a, kth, axis)
    bottom = _top_k(b, _neg_key(x), k + 1)[1]
    n = x.aval.shape[-1]
    j = _iota(b, bottom.aval[1], (n,), 0)
    j = reshape(j, (1,) * bottom.aval.ndim + (n,))  # equal ranks: no rank promotion
    chosen = reshape(bottom, (*bottom.aval.shape, 1)) == j  # [..., k+1, n]
    from weaktrace.numpy.reductions import any as _any

    proxy = where(_any(chosen, axis=-2), 0.0, 1.0)
    top = _top_k(b, proxy, n - k - 1)[1]
    return _swap_last(concatenate([bottom, top], axis=-1), d)


@export
def sort_complex(a: Any) -> Any:
    """``jax.numpy.sort_complex``: sort along the last axis, then as complex."""
    b = context(a)
    x = _op(a, b)
    (r,) = _sort(b, [x], axis_arg(-1, x.aval.ndim, "sort_complex"), True, 1)
    dt = r.aval[1]
    if dt.kind != "c":  # to_complex_dtype(to_inexact_dtype(dt))
        inexact = dt if dt.kind == "f" else b.policy.mean(dt)
        dt = b.policy.user_dtype("complex128" if inexact.name == "float64" else "complex64")
    return convert(b, r, dt, False)  # lax.convert_element_type: strong, as in jax


# -- searching ------------------------------------------------------------------------------


def _lt(x: Any, y: Any) -> Any:
    """lax's sort order: NaN after everything, complex lexicographic."""
    if kind(x) == "c":
        re_x, re_y = x.real, y.real
        eq = (re_x == re_y) | (isnan(re_x) & isnan(re_y))
        return _lt(re_x, re_y) | (eq & _lt(x.imag, y.imag))
    if kind(x) == "f":
        return (x < y) | (isnan(y) & ~isnan(x))
    return x < y


def binary_search(b: Context, x: Any, q: Any, side: str, dt: Any) -> Any:
    """jax's ``'scan'`` searchsorted: ``ceil(log2(n + 1))`` halvings of ``[low, high)`` for
    every query at once, in unsigned arithmetic, unrolled. The steps are jax's, so the
    indices are too for any 1-d `x` of length n > 0, sorted or not; memory is the size of
    `q`, not n times it."""
    n = x.aval.shape[0]
    udt = b.policy.user_dtype("uint64" if dt.name == "int64" else "uint32")
    low, high = [_op(emit(P.broadcast_in_dim_p, lit(b, v, udt), shape=q.aval.shape,
                          broadcast_dimensions=()), b) for v in (0, n)]  # fmt: skip
    for _ in range((n).bit_length()):  # == ceil(log2(n + 1))
        mid = low + (high - low) // 2
        at = x[mid]
        go_left = ~_lt(at, q) if side == "left" else _lt(q, at)
        low, high = where(go_left, low, mid), where(go_left, mid, high)
    return convert(b, high, dt, False)


@export
def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None, *,
                 method: str = "scan") -> Any:  # fmt: skip
    """``jax.numpy.searchsorted``: ``'scan'`` and ``'scan_unrolled'`` are jax's binary search
    (`binary_search`); ``'compare_all'`` and ``'sort'`` count the elements before each
    query (jax's stable co-sort gives that count too, for any `a`)."""
    b = context(a, v, sorter)
    x, q = _op(a, b), _op(v, b)
    if x.aval.ndim != 1:
        raise ShapeError("a should be 1-dimensional")
    if side not in ("left", "right"):
        raise InvalidInputError(f"{side!r} is an invalid value for keyword 'side'")
    if method not in ("compare_all", "scan", "scan_unrolled", "sort"):
        raise InvalidInputError(f"Unsupported method: {method}")
    xp: Any = promote(b, "searchsorted", [x, q])
    x, q = xp
    if sorter is not None:
        x = x[_op(sorter, b)]
    n = x.aval.shape[0]
    dt = _int32(b) if n < 2**31 else b.policy.user_dtype("int64")
    if n >= 2**31 and dt.numpy is not None and dt.numpy.itemsize < 8:
        # x32: int64 was asked for (jax warns that it is truncated); the count of a
        # longer array cannot be an int32 index, so jax's OverflowError, not wrapped counts
        raise ArgumentOverflowError(
            f"Python integer {n} out of bounds for {dt.name}: searchsorted into an array "
            "of 2**31 or more elements needs int64 indices; enable jax_enable_x64."
        )
    if n == 0:
        return emit(P.broadcast_in_dim_p, lit(b, 0, dt), shape=q.aval.shape,
                    broadcast_dimensions=())  # fmt: skip
    if method in ("scan", "scan_unrolled"):
        return binary_search(b, x, q, side, dt)
    xs = reshape(x, (n,) + (1,) * q.aval.ndim)
    q = reshape(q, (1, *q.aval.shape))  # equal ranks: no rank promotion to check
    hits = _lt(xs, q) if side == "left" else ~_lt(q, xs)
    from weaktrace.numpy.reductions import sum as _sum

    return _sum(hits, axis=0, dtype=dt)


@export
def digitize(x: Any, bins: Any, right: bool = False, *, method: str | None = None) -> Any:
    """``jax.numpy.digitize`` via searchsorted, for increasing or decreasing bins."""
    b = context(x, bins)
    xs, bs = _op(x, b), _op(bins, b)
    if bs.aval.ndim != 1:
        raise ShapeError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    if bs.aval.shape[0] == 0:
        return emit(P.broadcast_in_dim_p, lit(b, 0, _int32(b)), shape=xs.aval.shape,
                    broadcast_dimensions=())  # fmt: skip
    side = "left" if right else "right"
    kw = {} if method is None else {"method": method}
    up = searchsorted(bs, xs, side=side, **kw)
    down = bs.aval.shape[0] - searchsorted(_rev(bs, 0), xs, side=side, **kw)
    return where(bs[-1] >= bs[0], up, down)


# -- data-dependent sizes -------------------------------------------------------------------


def static_size(b: Context, count: Any, size: Any, name: str) -> int:
    """`size` if given, else the concrete count (eagerly); traced, a ConcretizationError."""
    if size is not None:
        try:
            return operator.index(size)
        except TypeError:
            raise ConcretizationError(
                f"The size argument of jnp.{name} must be a static integer, got {size!r}."
            ) from None
    if not b.eager:
        raise ConcretizationError(
            f"jnp.{name}: the size of the result depends on the values of the input, so it "
            f"cannot be traced. Pass a static size= (and optionally fill_value=) to use "
            f"{name} inside a trace."
        )
    return int(count.concrete())


@export
def bincount(x: Any, weights: Any = None, minlength: int = 0, *, length: int | None = None,
             out_sharding: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.bincount``: a scatter-add of the weights into `length` bins."""
    b = context(x, weights)
    xs = _op(x, b)
    if xs.aval[1] is BOOL:
        xs = convert(b, xs, _int32(b), False)
    if kind(xs) not in "iu":
        raise OperandTypeError(
            f"x argument to bincount must have an integer type; got {xs.aval[1]}"
        )
    if xs.aval.ndim != 1:
        raise ShapeError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        if not b.eager:
            raise ConcretizationError(
                "jnp.bincount: the number of bins depends on the values of x, so it cannot "
                "be traced. Pass a static length= to use bincount inside a trace."
            )
        top = 0
        if xs.aval.size:
            from weaktrace.numpy.reductions import max as _max

            top = max(0, int(_max(xs).concrete())) + 1
        length = max(minlength, top)
    else:
        length = operator.index(length)
    if weights is None:
        w = lit(b, 1, _default_int(b))
    else:
        w = _op(weights, b)
        if w.aval.shape != xs.aval.shape:
            raise ShapeError(f"type of weights must match type of x. Got {xs.aval} and {w.aval}")
    zeros: Any = emit(P.broadcast_in_dim_p, lit(b, 0, w.aval[1]), shape=(length,),
                 broadcast_dimensions=())  # fmt: skip
    from weaktrace.numpy.ufuncs import maximum

    return zeros.at[maximum(xs, 0)].add(w, mode="drop")


@export
def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``jax.numpy.nonzero``: indices from cumsum(bincount(cumsum(mask))), as jax."""
    b = context(a)
    x = _op(a, b)
    if x.aval.ndim == 0:
        raise ShapeError(
            "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() "
            "instead."
        )
    from weaktrace.numpy.cumulative import cumsum
    from weaktrace.numpy.reductions import sum as _sum

    mask = to_bool(x)
    count = _sum(mask)
    n = static_size(b, count, size, "nonzero")
    shape = x.aval.shape
    dt = _default_int(b)
    if x.aval.size == 0 or n == 0:
        zero = emit(P.broadcast_in_dim_p, lit(b, 0, dt), shape=(n,), broadcast_dimensions=())
        return tuple(zero for _ in shape)
    flat = cumsum(bincount(cumsum(mask), length=n))
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    out = tuple((flat // s) % d for s, d in zip(strides, shape, strict=True))
    if fill_value is not None:
        fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(shape)
        fills = tuple(_op(f, b) for f in fills)
        if len(fills) != len(shape) or any(f.aval.shape != () for f in fills):
            raise ShapeError(
                f"fill_value must be a scalar or a tuple of length {len(shape)}; got {fill_value}"
            )
        pad = _iota(b, dt, (n,), 0) >= count
        out = tuple(where(pad, f, e) for f, e in zip(fills, out, strict=True))
    return out


@export
def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``jax.numpy.flatnonzero``: nonzero of the flattened array."""
    b = context(a)
    return nonzero(reshape(_op(a, b), (-1,)), size=size, fill_value=fill_value)[0]


@export
def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``jax.numpy.argwhere``: the nonzero indices as rows."""
    b = context(a)
    x = _op(a, b)
    ndim = x.aval.ndim
    x1 = reshape(x, (1,)) if ndim == 0 else x
    cols = nonzero(x1, size=size, fill_value=fill_value)
    result = transpose(stack(list(cols)))
    if ndim == 0:
        return reshape(result[:0], (result.aval.shape[0], 0))
    return reshape(result, (result.aval.shape[0], ndim))
