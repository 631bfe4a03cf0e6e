"""Set operations and array comparisons: isin, array_equal, array_equiv, unique (and
the array-API unique_all / unique_counts / unique_inverse / unique_values), union1d
and setdiff1d, following ``jax._src.numpy.setops``.

The unique family sorts (a lexsort of the rows for ``axis=``), marks where a row
differs from the previous one and gathers the marked rows. Inside a trace the number
of unique rows is unknown: ``size=`` (and ``fill_value=``) is needed there, as under
``jax.jit``; eagerly the size is read from the concrete mask.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from weaktrace.errors import InvalidInputError, RankPromotionError, ShapeError, TypePromotionError
from weaktrace.numpy._core import (
    BOOL,
    Context,
    P,
    axis_arg,
    broadcast_to,
    context,
    convert,
    emit,
    export,
    kind,
    lit,
    operand,
    promote,
    result_shape,
    to_bool,
)
from weaktrace.numpy._core import N as _N
from weaktrace.numpy.reductions import all as _all
from weaktrace.numpy.reductions import any as _any
from weaktrace.numpy.reductions import sum as _sum
from weaktrace.numpy.shapes import concatenate, reshape, transpose
from weaktrace.numpy.sorting import _iota, lexsort, nonzero, static_size
from weaktrace.numpy.ufuncs import isnan, where


class _UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class _UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


# The result types are jax's own namedtuples when it has them, so that results are the
# same pytrees as jax.numpy's (a tree_map over both lines up).
try:
    from jax._src.numpy import setops as _setops

    UniqueAllResult: Any = _setops._UniqueAllResult
    UniqueCountsResult: Any = _setops._UniqueCountsResult
    UniqueInverseResult: Any = _setops._UniqueInverseResult
except (ImportError, AttributeError):  # pragma: no cover - another jax version
    UniqueAllResult, UniqueCountsResult = _UniqueAllResult, _UniqueCountsResult
    UniqueInverseResult = _UniqueInverseResult


def _op(x: Any, b: Context) -> Any:
    return operand(x, b)


def _seq_op(x: Any, b: Context) -> Any:
    """An operand that may be a list or tuple (array_equal asarrays its inputs)."""
    return operand(_N.asarray(x) if isinstance(x, list | tuple) else x, b)


def _full(b: Context, value: Any, dt: Any, shape: tuple[int, ...]) -> Any:
    return emit(P.broadcast_in_dim_p, lit(b, value, dt), shape=shape, broadcast_dimensions=())


def _in1d(b: Context, x: Any, t: Any, invert: bool, method: str) -> Any:
    if method not in ("auto", "compare_all", "binary_search", "sort"):
        raise InvalidInputError(
            f"method={method!r} is not implemented; options are 'compare_all', "
            "'binary_search', 'sort', and 'auto'"
        )
    x, t = promote(b, "isin", [x, t])
    x1, t1 = reshape(x, (-1,)), reshape(t, (-1,))
    if x1.aval.size == 0 or t1.aval.size == 0:
        return _full(b, bool(invert), BOOL, x1.aval.shape)
    xs: Any = reshape(x1, (-1, 1))
    ts: Any = reshape(t1, (1, -1))
    if invert:
        return _all(xs != ts, axis=-1)
    return _any(xs == ts, axis=-1)


@export
def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False,
         *, method: str = "auto") -> Any:  # fmt: skip
    """``jax.numpy.isin``: whether each element is in `test_elements` (all methods compare)."""
    b = context(element, test_elements)
    x, t = _op(element, b), _op(test_elements, b)
    return reshape(_in1d(b, x, t, invert, method), x.aval.shape)


@export
def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """``jax.numpy.array_equal``: same shape and all elements equal."""
    b = context(a1, a2)
    x, y = _seq_op(a1, b), _seq_op(a2, b)
    if x.aval.shape != y.aval.shape:
        return _full(b, False, BOOL, ())
    eq = x == y
    if equal_nan:
        eq = eq | (isnan(x) & isnan(y))
    return _all(eq)


@export
def array_equiv(a1: Any, a2: Any) -> Any:
    """``jax.numpy.array_equiv``: all elements equal after broadcasting."""
    b = context(a1, a2)
    x, y = _seq_op(a1, b), _seq_op(a2, b)
    # jax only catches ValueError around ``equal``: its rank check (under 'raise') and its
    # broadcast of shapes of different ranks raise one, so those give False; shapes of
    # equal rank that do not broadcast are lax's TypeError, so they raise (ShapeError).
    try:
        eq = x == y
    except (RankPromotionError, TypePromotionError):  # jax: a ValueError (strict mode's too)
        return _full(b, False, BOOL, ())
    except ShapeError:
        if x.aval.ndim == y.aval.ndim:
            raise
        return _full(b, False, BOOL, ())
    return _all(eq)


def _moveaxis(x: Any, src: int, dst: int) -> Any:
    perm = [i for i in range(x.aval.ndim) if i != src]
    perm.insert(dst, src)
    return x if perm == list(range(x.aval.ndim)) else transpose(x, perm)


def _sorted_mask(b: Context, ar: Any, axis: int, equal_nan: bool) -> tuple[Any, Any, Any]:
    """``_unique_sorted_mask``: rows sorted, the first-of-a-run mask, the permutation."""
    int_ = b.policy.user_dtype(int)
    aux = _moveaxis(ar, axis, 0)
    if kind(aux) == "c":
        aux = where(isnan(aux), lit(b, complex(np.nan, 0), aux.aval[1]), aux)
    size, *rest = aux.aval.shape
    inner = math.prod(rest)
    if inner == 0:
        size = 1
        perm = _full(b, 0, int_, (1,))
    else:
        rows: Any = transpose(reshape(aux, (size, inner)))
        perm = lexsort(rows[::-1])
    aux = aux[perm]
    if aux.aval.size:
        x, y = aux[1:], aux[:-1]
        neq = x != y
        if kind(aux) in "fc" and equal_nan:
            neq = neq & ~(isnan(x) & isnan(y))
        diff = _any(neq, axis=tuple(range(1, aux.aval.ndim)))
        mask = concatenate([_full(b, True, BOOL, (1,)), diff])
    else:
        mask = _full(b, False, BOOL, (size,))
    return aux, mask, perm


def _unique(b: Context, ar: Any, axis: int, return_index: bool, return_inverse: bool,
            return_counts: bool, equal_nan: bool, size: int | None,
            fill_value: Any) -> Any:  # fmt: skip
    int_ = b.policy.user_dtype(int)
    if ar.aval.shape[axis] == 0 and size and fill_value is None:
        raise ShapeError(
            "jnp.unique: for zero-sized input with nonzero size argument, fill_value must be "
            "specified"
        )
    aux, mask, perm = _sorted_mask(b, ar, axis, equal_nan)
    count = _sum(mask)
    n = static_size(b, count, size, "unique")
    ind = nonzero(mask, size=n)[0]
    result = aux[ind] if aux.aval.size else aux
    if size is not None and fill_value is not None:
        fill = convert(b, _op(fill_value, b), result.aval[1], False)
        if result.aval.shape[0]:
            valid = _iota(b, int_, (size,), 0) < count
            valid = reshape(valid, (size,) + (1,) * (result.aval.ndim - 1))
            result = where(valid, result, fill)
        else:
            result = emit(P.broadcast_in_dim_p, fill, shape=(size, *result.aval.shape[1:]),
                          broadcast_dimensions=())  # fmt: skip
    result = _moveaxis(result, 0, axis)
    ret: list[Any] = [result]
    if return_index:
        ret.append(perm[ind] if aux.aval.size else perm)
    if return_inverse:
        if aux.aval.size:
            from weaktrace.numpy.cumulative import cumsum

            imask = cumsum(mask) - 1
            inv: Any = _full(b, 0, int_, mask.aval.shape)
            ret.append(inv.at[perm].set(imask))
        else:
            ret.append(_full(b, 0, int_, (ar.aval.shape[axis],)))
    if return_counts:
        if aux.aval.size:
            idx: Any = nonzero(mask, size=n + 1)[0]
            tail = idx[1:]
            idx = idx.at[1:].set(where(tail, tail, mask.aval.size))
            ret.append(idx[1:] - idx[:-1])
        elif ar.aval.shape[axis]:
            ret.append(_full(b, ar.aval.shape[axis], int_, (1,)))
        else:
            ret.append(_full(b, 0, int_, (0,)))
    return ret[0] if len(ret) == 1 else tuple(ret)


@export
def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value: Any = None,
           sorted: bool = True) -> Any:  # fmt: skip
    """``jax.numpy.unique``: the sorted unique elements (rows along `axis`)."""
    b = context(ar, fill_value)
    x = _op(ar, b)
    shape = x.aval.shape
    if axis is None:
        x, a = reshape(x, (-1,)), 0
    else:
        a = axis_arg(axis, x.aval.ndim, "unique")
    result = _unique(b, x, a, return_index, return_inverse, return_counts, equal_nan, size,
                     fill_value)  # fmt: skip
    if return_inverse and axis is None:
        i = 2 if return_index else 1
        result = (*result[:i], reshape(result[i], shape), *result[i + 1 :])
    return result


@export
def unique_all(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``jax.numpy.unique_all``: values, indices, inverse indices and counts."""
    r = unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False,
               size=size, fill_value=fill_value)  # fmt: skip
    return UniqueAllResult(*r)


@export
def unique_values(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``jax.numpy.unique_values``: the unique values (NaNs kept apart)."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


@export
def unique_counts(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``jax.numpy.unique_counts``: values and counts."""
    r = unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value)
    return UniqueCountsResult(*r)


@export
def unique_inverse(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``jax.numpy.unique_inverse``: values and the inverse indices."""
    r = unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value)
    return UniqueInverseResult(*r)


@export
def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``jax.numpy.union1d``: unique of both arrays, flattened."""
    b = context(ar1, ar2)
    both = concatenate([_op(ar1, b), _op(ar2, b)], axis=None)
    return unique(both, size=size, fill_value=fill_value)


@export
def setdiff1d(
    ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
    fill_value: Any = None,
) -> Any:  # fmt: skip
    """``jax.numpy.setdiff1d``: the unique values of ar1 not in ar2."""
    b = context(ar1, ar2, fill_value)
    x1: Any = reshape(_op(ar1, b), (-1,))
    x2 = reshape(_op(ar2, b), (-1,))
    fill = convert(b, _op(0 if fill_value is None else fill_value, b), x1.aval[1], x1.aval[2])
    if x1.aval.size == 0:
        return emit(P.broadcast_in_dim_p, fill, shape=(size or 0,), broadcast_dimensions=())
    if not assume_unique:
        x1 = unique(x1, size=size and x1.aval.size)
    mask = _in1d(b, x1, x2, True, "auto")
    n = static_size(b, _sum(mask), size, "setdiff1d")
    if size is None:
        return x1[nonzero(mask, size=n)[0]]
    if not assume_unique:
        n_unique = x1.aval.size + 1 - _sum(x1 == x1[0])
        mask = where(_iota(b, b.policy.user_dtype(int), (x1.aval.size,), 0) < n_unique, mask,
                     False)  # fmt: skip
    picked = x1[nonzero(mask, size=size)[0]]
    return where(_iota(b, b.policy.user_dtype(int), (size,), 0) < _sum(mask), picked, fill)


@export
def select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    """``jax.numpy.select``: the choice of the first true condition, else `default`
    (the choices and the default promoted together, everything broadcast)."""
    if len(condlist) != len(choicelist):
        raise InvalidInputError(
            f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})"
        )
    if len(condlist) == 0:
        raise InvalidInputError("condlist must be non-empty")
    b = context(*condlist, *choicelist, default)
    choices = promote(b, "select", [_op(c, b) for c in (default, *choicelist)])
    conds = [to_bool(_op(c, b)) for c in condlist]
    shape = result_shape("select", [x.aval.shape for x in (*conds, *choices)])
    out = broadcast_to(choices[0], shape)
    for cond, choice in zip(conds[::-1], choices[:0:-1], strict=True):
        out = where(cond, choice, out)
    return broadcast_to(out, shape)
