"""Covariance and histograms: cov, corrcoef, histogram_bin_edges, histogram,
histogram2d and histogramdd, following ``jax._src.numpy.lax_numpy`` step by step
(histograms: bin edges by linspace, bin indices by searchsorted, counts by a
bincount with a static length). Composed from other weaktrace.numpy mirrors on
tracers, so that eager and traced share one code path."""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import numpy as np

from weaktrace.core.promotion import check_ranks
from weaktrace.errors import InvalidInputError, OperandTypeError, OperandValueError, ShapeError
from weaktrace.numpy._core import N, Tracer, context, export, operand, promote


def _ndim(v: Any) -> int:
    if isinstance(v, Tracer):
        return len(v.aval[0])
    return int(np.ndim(v))


def _shape(v: Any) -> tuple[int, ...]:
    if isinstance(v, Tracer):
        return tuple(v.aval[0])
    return tuple(np.shape(v))


def _inexact_dtype(b: Any, name: str, dtype: Any) -> Any:
    if dtype is None:
        return None
    dt = b.policy.user_dtype(dtype)
    if dt.kind not in "fc":
        raise OperandValueError(
            f"{name}: dtype must be a subclass of float or complex; got {dtype=}"
        )
    return dtype


# -- cov / corrcoef -------------------------------------------------------------------


def _weights(b: Any, w: Any, n: int, what: str) -> Tracer:
    t = operand(w, b)
    if _ndim(t) > 1:
        raise ShapeError(f"cannot handle multidimensional {what}")
    if _shape(t)[0] != n:
        raise ShapeError(f"incompatible numbers of samples and {what}")
    return t


@export
def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None, dtype: Any = None) -> Any:  # fmt: skip
    """``jax.numpy.cov``: the (weighted) sample covariance of the rows (or columns)."""
    b = context(m, y, fweights, aweights)
    if y is not None:
        x, yy = promote(b, "cov", [operand(m, b), operand(y, b)], "inexact")
        check_ranks("cov", [x.aval.shape, yy.aval.shape])  # jax's promote_args_inexact
        if _ndim(yy) > 2:
            raise ShapeError("y has more than 2 dimensions")
    else:
        (x,) = promote(b, "cov", [operand(m, b)], "inexact")
    if _ndim(x) > 2:
        raise ShapeError("m has more than 2 dimensions")
    _inexact_dtype(b, "cov", dtype)
    X = N.atleast_2d(x)
    if not rowvar and _ndim(x) != 1:
        X = N.transpose(X)
    if _shape(X)[0] == 0:
        return N.zeros((0, 0))
    if y is not None:
        Y = N.atleast_2d(yy)
        if not rowvar and _shape(Y)[0] != 1:
            Y = N.transpose(Y)
        X = N.concatenate((X, Y), axis=0)
    rows, n = _shape(X)
    if n == 0:
        return N.full(() if rows == 1 else (rows, rows), np.nan, dtype=X.aval[1])
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    aw = None
    if fweights is not None:
        fw = _weights(b, fweights, n, "fweights")
        if fw.aval[1].kind not in "iu":
            raise OperandTypeError("fweights must be integer.")
        w = N.abs(fw)
    if aweights is not None:
        aw = N.abs(_weights(b, aweights, n, "aweights"))
        w = aw if w is None else N.multiply(w, aw)
    if dtype is not None:
        X = N.astype(X, dtype)
        w = None if w is None else N.astype(w, dtype)
    avg, w_sum = N.average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        f: Any = n - ddof
    elif ddof == 0:
        f = w_sum
    elif aw is None:
        f = N.subtract(w_sum, ddof)
    else:
        f = N.subtract(w_sum, N.true_divide(N.multiply(ddof, N.sum(N.multiply(w, aw))), w_sum))
    X = N.subtract(X, N.expand_dims(avg, 1))
    X_T = N.transpose(X if w is None else N.multiply(X, N.expand_dims(w, 0)))
    return N.squeeze(N.true_divide(N.dot(X, N.conj(X_T)), f))


@export
def corrcoef(x: Any, y: Any = None, rowvar: bool = True, dtype: Any = None) -> Any:
    """``jax.numpy.corrcoef``: cov normalized by the standard deviations, clipped to [-1, 1]."""
    b = context(x, y)
    x = operand(x, b)
    y = None if y is None else operand(y, b)
    _inexact_dtype(b, "corrcoef", dtype)
    c = cov(x, y, rowvar, dtype=dtype)
    if _ndim(c) == 0:
        return N.divide(c, c)
    stddev = N.astype(N.sqrt(N.real(N.diag(c))), c.aval[1])
    c = N.true_divide(N.true_divide(c, N.expand_dims(stddev, 1)), N.expand_dims(stddev, 0))
    real_part = N.clip(N.real(c), -1, 1)
    if c.aval[1].kind == "c":
        return _lax_complex(real_part, N.clip(N.imag(c), -1, 1))
    return real_part


# -- histograms -----------------------------------------------------------------------


def _edges(b: Any, a: Any, bins: Any, range: Any) -> Any:
    """``histogram_bin_edges`` on an operand already in its inexact dtype."""
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    dt = a.aval[1]
    if _ndim(bins) == 1:
        return N.asarray(operand(bins, b), dtype=dt)
    try:
        nbins = operator.index(bins)
    except TypeError as err:
        if isinstance(bins, Tracer):
            raise
        raise InvalidInputError(f"bins argument of histogram_bin_edges: {err}") from None
    if range is None:
        lohi = N.stack([N.min(a), N.max(a)])
    else:
        lohi = N.asarray(operand(range, b) if isinstance(range, Tracer) else range, dtype=dt)
        if _shape(lohi) != (2,):
            raise ShapeError(f"`range` must be either None or a sequence of scalars, got {range}")
        lohi = operand(lohi, b)
    empty = N.equal(N.ptp(lohi), 0)
    lo = N.where(empty, N.subtract(lohi[0], 0.5), lohi[0])
    hi = N.where(empty, N.add(lohi[1], 0.5), lohi[1])
    return N.linspace(lo, hi, nbins + 1, dtype=dt)


@export
def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    """``jax.numpy.histogram_bin_edges``: `bins` + 1 evenly spaced edges over `range`."""
    del weights  # as in jax: only string bins would use it
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    b = context(a, bins)
    (x,) = promote(b, "histogram_bin_edges", [operand(a, b)], "inexact")
    x = N.astype(x, x.aval[1])
    return _edges(b, x, bins, range)


@export
def histogram(a: Any, bins: Any = 10, range: Any = None, weights: Any = None,
              density: bool | None = None) -> tuple[Any, Any]:  # fmt: skip
    """``jax.numpy.histogram``: (counts or weight sums per bin, bin edges)."""
    if isinstance(bins, str):
        raise InvalidInputError(f"histogram: expected an array-like bins, got {bins!r}")
    b = context(a, bins, weights)
    if weights is None:
        (x,) = promote(b, "histogram", [operand(a, b)], "inexact")
        w = N.ones_like(x)
    else:
        x, w = operand(a, b), operand(weights, b)
        if _shape(x) != _shape(w):
            raise ShapeError("weights should have the same shape as a.")
        x, w = promote(b, "histogram", [x, w], "inexact")
    edges = _edges(b, N.astype(x, x.aval[1]), bins, range)
    n = _shape(edges)[0]
    flat = N.ravel(x)
    idx = N.searchsorted(edges, flat, side="right")
    idx = N.where(N.equal(flat, edges[-1]), n - 1, idx)
    counts = N.bincount(idx, N.ravel(w), length=n)[1:]
    if density:
        counts = N.true_divide(N.true_divide(counts, N.diff(edges)), N.sum(counts))
    return counts, edges


@export
def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, weights: Any = None,
                density: bool | None = None) -> tuple[Any, Any, Any]:  # fmt: skip
    """``jax.numpy.histogram2d``: histogramdd of the (x, y) pairs."""
    b = context(x, y, weights)
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):
        edges = N.asarray(operand(bins, b) if isinstance(bins, Tracer) else bins)
        bins = [edges, edges]
    sample = N.transpose(N.asarray([operand(x, b), operand(y, b)]))
    hist, edges2 = histogramdd(sample, bins, range, weights, density)
    return hist, edges2[0], edges2[1]


@export
def histogramdd(sample: Any, bins: Any = 10, range: Any = None, weights: Any = None,
                density: bool | None = None) -> tuple[Any, list[Any]]:  # fmt: skip
    """``jax.numpy.histogramdd``: a D-dimensional histogram of N samples (N, D)."""
    b = context(sample, weights)
    if weights is None:
        s: Any = promote(b, "histogramdd", [operand(sample, b)], "inexact")[0]
        w = None
    else:
        s, w = operand(sample, b), operand(weights, b)
        if _shape(w) != _shape(s)[:1]:
            raise ShapeError("should have one weight for each sample.")
        s, w = promote(b, "histogramdd", [s, w], "inexact")
    if _ndim(s) != 2:
        raise ShapeError(f"histogramdd: sample must have shape (N, D), got {_shape(s)}")
    n, d = _shape(s)
    if range is not None and (
        len(range) != d or any(r is not None and np.shape(r)[0] != 2 for r in range)
    ):
        raise ShapeError(f"For sample.shape={(n, d)}, range must be a sequence "
                         f"of {d} pairs or Nones; got {range=}")  # fmt: skip
    try:
        per_dim = list(bins)
    except TypeError:
        per_dim = d * [bins]
    else:
        if len(per_dim) != d:
            raise ShapeError("should be a bin for each dimension.")
    idxs, all_edges = [], []
    for i in builtins_range(d):
        col = N.astype(s[:, i], s.aval[1])
        edges = _edges(b, col, per_dim[i], None if range is None else range[i])
        idx = N.searchsorted(edges, col, side="right")
        idx = N.where(N.equal(col, edges[-1]), N.subtract(idx, 1), idx)
        idxs.append(idx)
        all_edges.append(edges)
    nbins = tuple(_shape(e)[0] + 1 for e in all_edges)
    xy = N.ravel_multi_index(tuple(idxs), nbins, mode="clip")
    hist = N.reshape(N.bincount(xy, w, length=math.prod(nbins)), nbins)
    hist = hist[d * (slice(1, -1),)]
    if density:
        hist = N.astype(hist, s.aval[1])
        hist = N.true_divide(hist, N.sum(hist))
        for norm in N.ix_(*[N.diff(e) for e in all_edges]):
            hist = N.true_divide(hist, norm)
    return hist, all_edges


builtins_range = builtins.range


def _lax_complex(re: Any, im: Any) -> Any:
    import weaktrace.lax

    return weaktrace.lax.complex(re, im)  # type: ignore[attr-defined]
