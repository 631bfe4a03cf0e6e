"""``weaktrace.scipy.stats``' statistics functions: ``mode``, ``rankdata`` and ``sem``,
the mirrors of jax.scipy.stats' (jax jits them with their options static: here options
are Python values, the data may be traced)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.errors import OperandTypeError
from weaktrace.scipy.stats._common import inexact, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()

_NAN_POLICIES = ("propagate", "omit", "raise")


class _ModeResult(NamedTuple):
    mode: Any
    count: Any


# jax's own result type when it has one, so that results are the same pytrees.
try:
    from jax._src.scipy.stats._core import ModeResult as _JaxModeResult

    ModeResult: Any = _JaxModeResult
except (ImportError, AttributeError):  # pragma: no cover - another jax version
    ModeResult = _ModeResult


def _arraylike(name: str, a: Any) -> None:
    """jax's ``check_arraylike``: lists and tuples are not arrays."""
    if isinstance(a, list | tuple):
        raise OperandTypeError(
            f"{name} requires ndarray or scalar arguments, got {type(a).__name__} at "
            "position 0; convert it with weaktrace.numpy.asarray first."
        )


def _nan_policy(name: str, nan_policy: str) -> None:
    if nan_policy not in _NAN_POLICIES:
        raise ValueError(
            f"Illegal nan_policy value {nan_policy!r}; expected one of "
            "{'propagate', 'omit', 'raise'}"
        )
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains "
            f"nans. Please check if nans exist in `x` outside of the `{name}` function."
        )


def _runs(s: Any) -> Any:
    """For columns s sorted along axis 0: each entry's run length (NaNs are one run,
    as unique(equal_nan=True) counts them)."""
    n = s.shape[0]
    differ = (s[1:] != s[:-1]) & ~(wnp.isnan(s[1:]) & wnp.isnan(s[:-1]))
    edge = wnp.ones((1, *s.shape[1:]), bool)
    starts = wnp.concatenate([edge, differ], axis=0)
    ends = wnp.concatenate([differ, edge], axis=0)
    pos = lax.broadcasted_iota(np.int32, s.shape, 0)
    first = lax.cummax(wnp.where(starts, pos, 0), axis=0)
    last = lax.cummin(wnp.where(ends, pos, n), axis=0, reverse=True)
    return last - first + 1


@export
def mode(
    a: Any, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False
) -> Any:
    """``jax.scipy.stats.mode``: the most frequent value along `axis` (the smallest of
    equally frequent ones) and its count."""
    _arraylike("mode", a)
    x = wnp.atleast_1d(a)
    _nan_policy("mode", nan_policy)
    if axis is not None:
        axis = _axis(axis, x.ndim)
    shape = x.shape
    if keepdims:
        out_shape = tuple(1 if axis is None or i == axis else s for i, s in enumerate(shape))
    else:
        out_shape = () if axis is None else shape[:axis] + shape[axis + 1 :]
    if axis is None:
        axis, x = 0, wnp.ravel(x)
    x = wnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    if x.shape[0] == 0:  # jax: NaN and a count of 0, both of the default float
        fill = wnp.full((x.shape[1],), np.nan, float)
        return ModeResult(fill.reshape(out_shape), wnp.zeros_like(fill).reshape(out_shape))
    if x.shape[1] == 0:  # no columns: empty results of the data's dtype and the count's
        empty = (wnp.zeros(out_shape, x.dtype), wnp.zeros(out_shape, int))
        return ModeResult(*empty)
    s = wnp.sort(x, axis=0)
    counts = _runs(s).astype(int)
    best = wnp.argmax(counts, axis=0)
    values = wnp.take_along_axis(s, best[None], axis=0)[0]
    return ModeResult(values.reshape(out_shape), counts.max(axis=0).reshape(out_shape))


def _axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _ranks(a: Any, method: str) -> Any:
    """The ranks of a 1-d a (no NaNs considered), as the default float."""
    n = a.size
    arr, order = lax.sort_key_val(a, wnp.arange(n))
    inv = wnp.empty_like(order).at[order].set(wnp.arange(n, dtype=order.dtype))
    if method == "ordinal":
        return (inv + 1).astype(float)
    new = wnp.concatenate([wnp.array([True]), arr[1:] != arr[:-1]])
    dense = new.cumsum()[inv]
    if method == "dense":
        return dense.astype(float)
    # ends[j]: the index where the j-th run of equal values starts (n past the last)
    ends = wnp.nonzero(new, size=n + 1, fill_value=n)[0].astype(float)
    if method == "max":
        return ends[dense]
    if method == "min":
        return ends[dense - 1] + 1
    return 0.5 * (ends[dense] + ends[dense - 1] + 1)  # average


@export
def rankdata(a: Any, method: str = "average", *, axis: int | None = None,
             nan_policy: str = "propagate") -> Any:  # fmt: skip
    """``jax.scipy.stats.rankdata``: ranks from 1, ties per `method`; all NaN if the
    data (or, with `axis`, the slice) holds a NaN."""
    _arraylike("rankdata", a)
    if nan_policy not in _NAN_POLICIES or nan_policy != "propagate":
        _nan_policy("rankdata", nan_policy)
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return wnp.apply_along_axis(rankdata, axis, a, method)
    a = wnp.ravel(a)
    ranks = _ranks(a, method)
    return wnp.where(wnp.any(wnp.isnan(a)), wnp.full_like(a, np.nan, float), ranks)


@export
def sem(a: Any, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False) -> Any:  # fmt: skip
    """``jax.scipy.stats.sem``: the standard error of the mean, std(ddof) / sqrt(n)."""
    b: Any = inexact("sem", a)[0]
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / wnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~wnp.isnan(b)).sum(axis, keepdims=keepdims)
        spread = wnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims)
        return spread / wnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
