"""Polynomials: poly, polyadd, polysub, polymul, polydiv, polyder, polyint, polyfit and
roots, following ``jax._src.numpy.polynomial`` step by step. Composed from other
weaktrace.numpy mirrors on tracers (one code path eager and traced); what jax needs
concrete values for (``roots(strip_zeros=True)``, ``trim_leading_zeros=True``) raises
ConcretizationError in a trace, as jax does under jit."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from weaktrace.errors import InvalidInputError, OperandTypeError, ShapeError
from weaktrace.numpy._core import N, Tracer, context, export, operand, promote
from weaktrace.numpy.gathers import _concrete


def _static_int(v: Any, what: str) -> int:
    if isinstance(v, Tracer):
        return int(_concrete(v, what))
    return operator.index(v)


def _len(x: Any) -> int:
    if not x.aval[0]:  # jnp calls len() on it: a TypeError
        raise OperandTypeError(
            f"a polynomial's coefficients must be a 1-d array, got a 0-d {x.aval}; "
            "wrap a constant polynomial as a one-element array, e.g. jnp.atleast_1d(c)."
        )
    return int(x.aval[0][0])


def _ndim(x: Any) -> int:
    return len(x.aval[0])


def _inexact(name: str, *args: Any) -> list[Any]:
    b = context(*args)
    return promote(b, name, [operand(a, b) for a in args], "inexact")


def _same(name: str, *args: Any) -> list[Any]:
    b = context(*args)
    ops = [operand(a, b) for a in args]
    return promote(b, name, ops, None) if len(ops) > 1 else ops


@export
def poly(seq_of_zeros: Any) -> Any:
    """``jax.numpy.poly``: the coefficients of the monic polynomial with these roots."""
    (z,) = _inexact("poly", seq_of_zeros)
    z = N.atleast_1d(z)
    sh = z.aval[0]
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        z = _eigvals(z)
    if _ndim(z) != 1:
        raise ShapeError("input must be 1d or non-empty square 2d array.")
    dt = z.aval[1]
    if _len(z) == 0:
        return N.ones((), dtype=dt)
    a = operand(N.ones((1,), dtype=dt), context(z))
    for k in range(_len(z)):
        a = N.convolve(a, N.asarray(N.stack([N.ones((), dt), N.negative(z[k])]), dtype=dt),
                       mode="full")  # fmt: skip
    return a


def _eigvals(a: Any) -> Any:
    import weaktrace.numpy.linalg as L

    return L.eigvals(a)  # type: ignore[attr-defined]


def _linalg() -> Any:
    import weaktrace.numpy.linalg as L

    return L


@export
def polyadd(a1: Any, a2: Any) -> Any:
    """``jax.numpy.polyadd``: the shorter coefficients added to the tail of the longer."""
    x, y = _same("polyadd", a1, a2)
    if y.aval[0][0] <= x.aval[0][0]:
        return x.at[-y.aval[0][0] :].add(y)
    return y.at[-x.aval[0][0] :].add(x)


@export
def polysub(a1: Any, a2: Any) -> Any:
    """``jax.numpy.polysub``: polyadd(a1, -a2)."""
    x, y = _same("polysub", a1, a2)
    return polyadd(x, N.negative(y))


@export
def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """``jax.numpy.polyint``: the m-th antiderivative with integration constants k."""
    m = _static_int(m, "'m' argument of jnp.polyint")
    k = 0 if k is None else k
    pa, ka = _inexact("polyint", p, k)
    if m < 0:
        raise ShapeError("Order of integral must be positive (see polyder)")
    ka = N.atleast_1d(ka)
    if _len(ka) == 1:
        ka = N.full((m,), ka[0])
    if tuple(ka.aval[0]) != (m,):
        raise ShapeError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return pa
    dt = pa.aval[1]
    grid = N.subtract(N.expand_dims(N.arange(_len(pa) + m, dtype=dt), 0),
                      N.expand_dims(N.arange(m, dtype=dt), 1))  # fmt: skip
    coeff = N.prod(N.maximum(1, grid), axis=0)[::-1]
    return N.true_divide(N.concatenate((pa, ka)), coeff)


@export
def polyder(p: Any, m: int = 1) -> Any:
    """``jax.numpy.polyder``: the m-th derivative's coefficients."""
    b = context(p)
    operand(p, b)
    m = _static_int(m, "'m' argument of jnp.polyder")
    (pa,) = _inexact("polyder", p)
    if m < 0:
        raise ShapeError("Order of derivative must be positive")
    if m == 0:
        return pa
    dt = pa.aval[1]
    coeff = N.prod(N.subtract(N.expand_dims(N.arange(m, _len(pa), dtype=dt), 0),
                              N.expand_dims(N.arange(m, dtype=dt), 1)), axis=0)  # fmt: skip
    return N.multiply(pa[:-m], coeff[::-1])


@export
def polymul(a1: Any, a2: Any, *, trim_leading_zeros: bool = False) -> Any:
    """``jax.numpy.polymul``: the full convolution of the coefficients."""
    x, y = _inexact("polymul", a1, a2)
    if trim_leading_zeros and (_len(x) > 1 or _len(y) > 1):
        x, y = N.trim_zeros(x, trim="f"), N.trim_zeros(y, trim="f")
        x, y = operand(x, context(x, y)), operand(y, context(x, y))
    if _len(x) == 0:
        x = N.zeros(1, dtype=y.aval[1])
    if _len(y) == 0:
        y = N.zeros(1, dtype=x.aval[1])
    return N.convolve(x, y, mode="full")


def _trim_zeros_tol(filt: Any, tol: float) -> Any:
    """``trim_zeros_tol(trim='f')``: leading entries with ``abs(x) < tol`` dropped."""
    v = _concrete(filt, "Error arose in the `filt` argument of trim_zeros_tol()")
    small = np.abs(v) < tol
    if small.all():
        return N.zeros(0, dtype=filt.aval[1])
    return filt[int(np.argmin(small)) :]


@export
def polydiv(u: Any, v: Any, *, trim_leading_zeros: bool = False) -> tuple[Any, Any]:
    """``jax.numpy.polydiv``: (quotient, remainder) by synthetic division."""
    ua, va = _inexact("polydiv", u, v)
    m, n = _len(ua) - 1, _len(va) - 1
    scale = N.true_divide(1.0, va[0])
    q = operand(N.zeros(max(m - n + 1, 1), dtype=ua.aval[1]), context(ua))
    for k in range(0, m - n + 1):
        d = N.multiply(scale, ua[k])
        q = q.at[k].set(d)  # type: ignore[attr-defined]
        ua = ua.at[k : k + n + 1].add(N.multiply(N.negative(d), va))
    if trim_leading_zeros:
        eps = float(N.finfo(ua.aval[1].numpy).eps)
        ua = _trim_zeros_tol(ua, tol=float(np.sqrt(eps)))
    return q, ua


@export
def polyfit(x: Any, y: Any, deg: int, rcond: float | None = None, full: bool = False,
            w: Any = None, cov: bool | str = False) -> Any:  # fmt: skip
    """``jax.numpy.polyfit``: least-squares coefficients (highest power first)."""
    b = context(x, y, w)
    xa, ya = operand(x, b), operand(y, b)
    deg = _static_int(deg, "deg must be int")
    order = deg + 1
    if deg < 0:
        raise ShapeError("expected deg >= 0")
    if _ndim(xa) != 1:
        raise InvalidInputError("expected 1D vector for x")
    if _len(xa) == 0:
        raise InvalidInputError("expected non-empty vector for x")
    if _ndim(ya) < 1 or _ndim(ya) > 2:
        raise InvalidInputError("expected 1D or 2D array for y")
    if _len(xa) != _len(ya):
        raise InvalidInputError("expected x and y to have same length")
    if rcond is None:
        rcond = _len(xa) * float(N.finfo(xa.aval[1].numpy).eps)
    if isinstance(rcond, Tracer):
        rcond = float(_concrete(rcond, "rcond must be float"))
    rcond = float(rcond)
    lhs = N.vander(xa, order)
    rhs = ya
    if w is not None:
        (wa,) = promote(b, "polyfit", [operand(w, b)], "inexact")
        if _ndim(wa) != 1:
            raise InvalidInputError("expected a 1-d array for weights")
        if _len(wa) != _len(ya):
            raise InvalidInputError("expected w and y to have the same length")
        lhs = N.multiply(lhs, N.expand_dims(wa, 1))
        rhs = N.multiply(rhs, N.expand_dims(wa, 1) if _ndim(rhs) == 2 else wa)
    scale = N.sqrt(N.sum(N.multiply(lhs, lhs), axis=0))
    lhs = N.true_divide(lhs, N.expand_dims(scale, 0))
    L = _linalg()
    c, resids, rank, s = L.lstsq(lhs, rhs, rcond)
    if _ndim(c) > 1:
        c = N.transpose(N.true_divide(N.transpose(c), N.expand_dims(scale, 0)))
    else:
        c = N.true_divide(c, scale)
    if full:
        return c, resids, rank, s, N.asarray(rcond)
    if cov:
        vbase = N.true_divide(L.inv(N.dot(N.transpose(lhs), lhs)), N.outer(scale, scale))
        if cov == "unscaled":
            fac: Any = N.array(1.0)
        else:
            if _len(xa) <= order:
                raise ShapeError("the number of data points must exceed order"
                                 " to scale the covariance matrix")  # fmt: skip
            fac = N.true_divide(resids, _len(xa) - order)
        if _ndim(ya) == 1:
            return c, N.multiply(vbase, N.expand_dims(N.atleast_1d(fac), 0))
        return c, N.multiply(N.expand_dims(vbase, 2), N.atleast_1d(fac)[None, None, :])
    return c


@export
def roots(p: Any, *, strip_zeros: bool = True) -> Any:
    """``jax.numpy.roots``: eigenvalues of the companion matrix. ``strip_zeros=True``
    needs concrete coefficients (ConcretizationError in a trace, as in jax)."""
    (pa,) = _inexact("roots", p)
    pa = N.atleast_1d(pa)
    if _ndim(pa) != 1:
        raise ShapeError("Input must be a rank-1 array.")
    if _len(pa) < 2:
        return N.zeros(0, dtype=_complex_of(pa))
    iszero = N.equal(pa, 0)
    nlz = N.where(N.all(iszero), _len(pa), N.argmin(iszero))
    if strip_zeros:
        lead = int(_concrete(nlz, "jnp.roots with strip_zeros=True",
                             "The error occurred in the jnp.roots() function. To use this "
                             "within a traced function, pass strip_zeros=False."))  # fmt: skip
        return _roots_no_zeros(pa[lead:])
    pa = N.where(N.equal(_len(pa), nlz), 1.0, pa)
    r = _roots_no_zeros(N.roll(pa, N.negative(nlz)))
    r = N.take(r, N.argsort(N.equal(r, 0), stable=True))
    size = r.aval[0][0]
    return N.where(N.less(N.arange(size), N.subtract(size, nlz)), r, complex(np.nan, np.nan))


def _complex_of(x: Any) -> Any:
    """``dtypes.to_complex_dtype`` of an inexact dtype: a cast, not a promotion (so
    strict promotion has nothing to refuse)."""
    dt = x.aval[1]
    if dt.kind == "c":
        return dt
    return "complex128" if dt.name == "float64" else "complex64"


def _roots_no_zeros(p: Any) -> Any:
    n = _len(p)
    if n < 2:
        return N.zeros(0, dtype=_complex_of(p))
    dt = p.aval[1]
    a = operand(N.diag(N.ones((n - 2,), dt), -1), context(p))
    a = a.at[0, :].set(N.true_divide(N.negative(p[1:]), p[0]))  # type: ignore[attr-defined]
    return _linalg().eigvals(a)
