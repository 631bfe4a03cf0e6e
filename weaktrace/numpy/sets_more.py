"""intersect1d and setxor1d, following ``jax._src.numpy.setops``.

Both work on fixed shapes: the unique values of each input (padded to the input's
size, with their true count), joined and sorted with the padding last; a mask marks
the answers, which are gathered into ``size`` slots. ``size=`` gives that number (and
``fill_value=`` the padding); without it the number is read from the concrete mask
eagerly, and inside a trace it is an error, as under ``jax.jit``.
"""

from __future__ import annotations

from typing import Any

from weaktrace.core.promotion import convert
from weaktrace.numpy import indexed_update as U
from weaktrace.numpy._core import (
    BOOL,
    Context,
    N,
    Tracer,
    context,
    export,
    lit,
    operand,
    promote,
)
from weaktrace.numpy.sets import _sorted_mask
from weaktrace.numpy.sorting import _iota, _sort, static_size


def _int(b: Context) -> Any:
    return b.policy.user_dtype(int)


def _full(b: Context, value: Any, dt: Any, n: int) -> Any:
    return N.broadcast_to(lit(b, value, dt), (n,))


def at_empty(b: Context) -> Tracer:
    return _full(b, 0, _int(b), 0)


def _unique_padded(b: Context, x: Tracer) -> tuple[Any, Any, Any]:
    """The sorted unique values of a 1-d x in x.size slots (padding after them), the
    index of each one's first occurrence, and their count (jax's size=x.size unique)."""
    n = x.aval.shape[0]
    aux, mask, perm = _sorted_mask(b, x, 0, True)
    count = N.sum(mask)
    if n == 0:
        return x, _full(b, 0, _int(b), 0), count
    ind = N.nonzero(mask, size=n)[0]
    return aux[ind], perm[ind], count


def _joined(b: Context, u1: Tracer, n1: Any, u2: Tracer) -> Tracer:
    """u1's first n1 values followed by u2 (jax's two dynamic_update_slices into zeros;
    the slots after them are padding either way)."""
    s1, s2 = u1.aval.shape[0], u2.aval.shape[0]
    if s1 == 0 or s2 == 0:
        return N.concatenate([u1, u2])
    j = _iota(b, _int(b), (s1 + s2,), 0)
    first = N.take(u1, N.clip(j, 0, s1 - 1))
    second = N.take(u2, N.clip(j - n1, 0, s2 - 1))
    return N.where(j < n1, first, second)


def _inputs(b: Context, name: str, ar1: Any, ar2: Any) -> tuple[Tracer, Tracer]:
    ops = [operand(ar1, b), operand(ar2, b)]
    if b.policy.asarray_operands_strong:  # np.asarray: a Python scalar is a strong array
        ops = [convert(b, x, x.aval[1], False) if x.aval[2] else x for x in ops]
    x1, x2 = promote(b, name, ops)
    return N.ravel(x1), N.ravel(x2)


def _padded(b: Context, vals: Tracer, count: Any, fill_value: Any) -> Tracer:
    """vals with the slots from `count` on set to fill_value (default: jax's smallest
    answer, 0 when there is none)."""
    valid = _iota(b, _int(b), vals.aval.shape, 0) < count
    if fill_value is None:
        vals = N.where(valid, vals, N.max(vals))
        return N.where(valid, vals, N.min(vals))
    return N.where(valid, vals, fill_value)


@export
def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False,
                *, size: int | None = None, fill_value: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.intersect1d``: the sorted values found in both (flattened) arrays,
    and with `return_indices` where each first occurs in either."""
    b = context(ar1, ar2, fill_value)
    x1, x2 = _inputs(b, "intersect1d", ar1, ar2)
    s1, s2 = x1.aval.shape[0], x2.aval.shape[0]
    int_ = _int(b)
    n1: Any
    if assume_unique:
        u1, u2, n1 = x1, x2, lit(b, s1, int_, True)
        arr = N.concatenate([x1, x2])
        valid = _full(b, True, BOOL, s1 + s2)
        aux, order = _sort(b, [arr, _iota(b, int_, (s1 + s2,), 0)], 0, True, 1)
    else:
        u1, ind1, n1 = _unique_padded(b, x1)
        u2, ind2, n2 = _unique_padded(b, x2)
        arr = _joined(b, u1, n1, u2)
        if size is not None:  # jax writes into zeros there: a strong result
            arr = convert(b, arr, arr.aval[1], False)
        valid = _iota(b, int_, (s1 + s2,), 0) < n1 + n2
        _, aux, order = _sort(b, [~valid, arr, _iota(b, int_, (s1 + s2,), 0)], 0, True, 2)
    hits = (aux[1:] == aux[:-1]) & valid[1:]
    count = N.sum(hits)
    n = static_size(b, count, size, "intersect1d")
    if not aux.aval.size and size is None:
        return (aux, at_empty(b), at_empty(b)) if return_indices else aux
    if aux.aval.size:
        at = N.nonzero(hits, size=n, fill_value=s1 + s2)[0]
        vals = U.get(aux, at, mode="fill", fill_value=0)
    else:
        at = _full(b, 0, int_, 0)
        vals = convert(b, _full(b, 0, aux.aval[1], n), aux.aval[1], False)
    if size is not None:
        vals = _padded(b, vals, count, fill_value)
    if not return_indices:
        return vals
    valid_out = _iota(b, int_, at.aval.shape, 0) < count
    i1 = N.where(valid_out, U.get(order, at, mode="fill", fill_value=s1), s1)
    i2 = U.get(order, at + 1, mode="fill", fill_value=s2) - n1
    i2 = N.where(valid_out, i2, s2)
    if not assume_unique:
        i1 = U.get(ind1, i1, mode="fill", fill_value=s1)
        i2 = U.get(ind2, i2, mode="fill", fill_value=s2)
    elif size is None:  # jax's eager path sorts with a 32-bit iota there
        dt = b.policy.user_dtype("int32" if s1 + s2 < 2**31 else "int64")
        i1, i2 = N.astype(i1, dt.numpy), N.astype(i2, dt.numpy)
    return vals, i1, i2


@export
def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
             fill_value: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.setxor1d``: the sorted values found in exactly one of the arrays."""
    b = context(ar1, ar2, fill_value)
    x1, x2 = _inputs(b, "setxor1d", ar1, ar2)
    s = x1.aval.shape[0] + x2.aval.shape[0]
    int_ = _int(b)
    if assume_unique:
        aux = N.sort(N.concatenate([x1, x2]))
        edge = _full(b, bool(s), BOOL, 1)
        flag = N.concatenate([edge, aux[1:] != aux[:-1], _full(b, True, BOOL, 1)])
    else:
        u1, _, n1 = _unique_padded(b, x1)
        u2, _, n2 = _unique_padded(b, x2)
        arr = _joined(b, u1, n1, u2)
        if size is not None:
            arr = convert(b, arr, arr.aval[1], False)
        count_u = n1 + n2
        mask = _iota(b, int_, (s + 1,), 0) < count_u + 1
        _, aux = _sort(b, [~mask[1:], arr], 0, True, 2)
        edge = _full(b, bool(s), BOOL, 1)
        inner = aux[1:] != aux[:-1]
        flag = N.concatenate([edge, inner, _full(b, False, BOOL, 1)])
        flag = mask & U.update(flag, count_u, True, "set")
    hits = flag[1:] & flag[:-1]
    count = N.sum(hits)
    n = static_size(b, count, size, "setxor1d")
    if not aux.aval.size and size is None:
        return aux
    if aux.aval.size:
        at = N.nonzero(hits, size=n, fill_value=s)[0]
        vals = U.get(aux, at, mode="fill", fill_value=0)
    else:
        vals = convert(b, _full(b, 0, aux.aval[1], n), aux.aval[1], False)
    return vals if size is None else _padded(b, vals, count, fill_value)
