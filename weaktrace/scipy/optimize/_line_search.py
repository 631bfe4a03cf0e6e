"""The strong-Wolfe line search ``jax.scipy.optimize`` steps with (Wright and Nocedal,
*Numerical Optimization*, 1999, algorithms 3.5 and 3.6), on weaktrace.numpy / .lax.

Both loops are ``weaktrace.lax.while_loop``s whose every branch is evaluated and
selected with ``where`` (no ``cond``), in jax's order, so the trial steps, their
count and the carries' dtypes and weak flags are jax's. The objective's value and
gradient come from `value_and_grad` (jax's transformation recorded in the trace).
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.core.operands import context, operand, to_jax
from weaktrace.core.promotion import promote
from weaktrace.core.trace import current
from weaktrace.transforms import ORIGINAL, _eager_values, _jax_values, bind_transform

wnp: Any = _wnp
lax: Any = _lax

_HIGHEST = jax.lax.Precision.HIGHEST


def dot(a: Any, b: Any) -> Any:
    """The inner products of the search: at HIGHEST precision, as jax's."""
    return wnp.dot(a, b, precision=_HIGHEST)


def value_and_grad(fun: Any, x: Any) -> Any:
    """``jax.value_and_grad(fun)(x)``: jax's own outside a weaktrace trace (and on jax's
    values), else recorded as one ``jax_transform`` equation of the traced `fun`."""
    vg = ORIGINAL.get("value_and_grad", jax.value_and_grad)
    if current() is None or _jax_values(x):
        return vg(fun)(_eager_values(x))

    def apply(fn: Any, *args: Any, **kwargs: Any) -> Any:
        return vg(fn)(*args, **kwargs)

    return bind_transform("value_and_grad", {}, apply, fun, (x,), {})


def _pick(mask: Any, old: NamedTuple, **new: Any) -> dict[str, Any]:
    """The fields `new` names: the new value where `mask`, the old one elsewhere."""
    return {k: wnp.where(mask, v, getattr(old, k)) for k, v in new.items()}


def _cubic_minimizer(a: Any, fa: Any, fpa: Any, b: Any, fb: Any, c: Any, fc: Any) -> Any:
    """The minimizer of the cubic through (a, fa) with slope fpa, (b, fb), (c, fc)."""
    dtype = wnp.result_type(a, fa, fpa, b, fb, c, fc)
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    m = wnp.array([[dc**2, -(db**2)], [-(dc**3), db**3]], dtype=dtype)
    v = wnp.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
    ca, cb = dot(m, v) / denom
    radical = cb * cb - 3.0 * ca * fpa
    return a + (-cb + wnp.sqrt(radical)) / (3.0 * ca)


def _quadratic_minimizer(a: Any, fa: Any, fpa: Any, b: Any, fb: Any) -> Any:
    """The minimizer of the parabola through (a, fa) with slope fpa and (b, fb)."""
    db = b - a
    curvature = (fb - fa - fpa * db) / (db**2)
    return a - fpa / (2.0 * curvature)


class _Zoom(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


def _zoom_step(phi_dphi: Any, sufficient: Any, curvature: Any, z: _Zoom) -> _Zoom:
    """One zoom iteration: a trial step by cubic, quadratic or bisection
    interpolation inside [a_lo, a_hi], then the bracket updated (algorithm 3.6)."""
    width = z.a_hi - z.a_lo
    left, right = wnp.minimum(z.a_hi, z.a_lo), wnp.maximum(z.a_hi, z.a_lo)
    cubic_margin, quad_margin = 0.2 * width, 0.1 * width
    # a bracket narrower than this stops the search (failed: Wolfe not satisfied)
    floor = wnp.where(wnp.finfo(width.dtype).bits < 64, 1e-5, 1e-10)
    z = z._replace(failed=z.failed | (width <= floor))

    cubic = _cubic_minimizer(z.a_lo, z.phi_lo, z.dphi_lo, z.a_hi, z.phi_hi, z.a_rec, z.phi_rec)
    use_cubic = (z.j > 0) & (cubic > left + cubic_margin) & (cubic < right - cubic_margin)
    quad = _quadratic_minimizer(z.a_lo, z.phi_lo, z.dphi_lo, z.a_hi, z.phi_hi)
    use_quad = ~use_cubic & (quad > left + quad_margin) & (quad < right - quad_margin)
    use_bisection = ~use_cubic & ~use_quad
    a_j = wnp.where(use_cubic, cubic, z.a_rec)
    a_j = wnp.where(use_quad, quad, a_j)
    a_j = wnp.where(use_bisection, (z.a_lo + z.a_hi) / 2.0, a_j)

    phi_j, dphi_j, g_j = phi_dphi(a_j)
    phi_j = phi_j.astype(z.phi_lo.dtype)
    dphi_j = dphi_j.astype(z.dphi_lo.dtype)
    g_j = g_j.astype(z.g_star.dtype)
    z = z._replace(nfev=z.nfev + 1, ngev=z.ngev + 1)

    j_is_hi = sufficient(a_j, phi_j) | (phi_j >= z.phi_lo)
    j_is_star = curvature(dphi_j) & ~j_is_hi
    lo_is_hi = (dphi_j * (z.a_hi - z.a_lo) >= 0.0) & ~j_is_hi & ~j_is_star
    j_is_lo = ~j_is_hi & ~j_is_star

    z = z._replace(**_pick(j_is_hi, z, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j,
                           a_rec=z.a_hi, phi_rec=z.phi_hi))  # fmt: skip
    z = z._replace(done=j_is_star | z.done,
                   **_pick(j_is_star, z, a_star=a_j, phi_star=phi_j, dphi_star=dphi_j,
                           g_star=g_j))  # fmt: skip
    z = z._replace(**_pick(lo_is_hi, z, a_hi=z.a_lo, phi_hi=z.phi_lo, dphi_hi=z.dphi_lo,
                           a_rec=z.a_hi, phi_rec=z.phi_hi))  # fmt: skip
    z = z._replace(**_pick(j_is_lo & ~lo_is_hi, z, a_rec=z.a_lo, phi_rec=z.phi_lo))
    z = z._replace(**_pick(j_is_lo, z, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j))
    j = z.j + 1
    return z._replace(j=j, failed=z.failed | (j >= 30))  # jax's cap: 30 zoom steps


def _zoom(phi_dphi: Any, sufficient: Any, curvature: Any, lo: tuple[Any, Any, Any],
          hi: tuple[Any, Any, Any], g_0: Any, skip: Any) -> _Zoom:  # fmt: skip
    """Zoom into the bracket from `lo` = (a, phi, dphi) to `hi` (not run where `skip`)."""
    (a_lo, phi_lo, dphi_lo), (a_hi, phi_hi, dphi_hi) = lo, hi
    start = _Zoom(
        done=False, failed=False, j=0,
        a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo, a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi,
        a_rec=(a_lo + a_hi) / 2.0, phi_rec=(phi_lo + phi_hi) / 2.0,
        a_star=1.0, phi_star=phi_lo, dphi_star=dphi_lo, g_star=g_0, nfev=0, ngev=0,
    )  # fmt: skip
    step = functools.partial(_zoom_step, phi_dphi, sufficient, curvature)
    return lax.while_loop(lambda z: ~z.done & ~skip & ~z.failed, step, start)


class _Search(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_i1: Any
    phi_i1: Any
    dphi_i1: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


class LineSearchResults(NamedTuple):
    """The line search's outcome: `failed` (the strong Wolfe conditions were not met),
    iterations, evaluations, the step `a_k`, f and its gradient there, `status` (0
    passed, 1 zoom failed, 3 out of iterations)."""

    failed: Any
    nit: Any
    nfev: Any
    ngev: Any
    k: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def _take_zoom(s: _Search, mask: Any, z: _Zoom) -> _Search:
    """Where `mask`, the search ends with the zoom's step (failed if the zoom failed)."""
    return s._replace(done=mask | s.done, failed=(mask & z.failed) | s.failed,
                      **_pick(mask, s, a_star=z.a_star, phi_star=z.phi_star,
                              dphi_star=z.dphi_star, g_star=z.g_star))  # fmt: skip


def _inexact(*args: Any) -> list[Any]:
    """jax's ``promote_dtypes_inexact`` (eagerly, as jax values: the loops close over them)."""
    b = context(*args)
    return to_jax(promote(b, "line_search", [operand(a, b) for a in args], "inexact"))


def line_search(f: Any, xk: Any, pk: Any, old_fval: Any = None, old_old_fval: Any = None,
                gfk: Any = None, c1: float = 1e-4, c2: float = 0.9,
                maxiter: int = 20) -> LineSearchResults:  # fmt: skip
    """A step along the descent direction `pk` from `xk` that satisfies the strong
    Wolfe conditions (constants `c1`, `c2`): trial steps from jax's (scipy's) start
    value, doubled until one is accepted or brackets a step, then zoomed into."""
    xk, pk = _inexact(xk, pk)

    def phi_dphi(t: Any) -> tuple[Any, Any, Any]:
        t = wnp.array(t, dtype=pk.dtype)
        phi, g = value_and_grad(f, xk + t * pk)
        return phi, wnp.real(dot(g, pk)), g

    evaluate_first = old_fval is None or gfk is None
    if evaluate_first:
        phi_0, dphi_0, gfk = phi_dphi(0)
    else:
        phi_0, dphi_0 = old_fval, wnp.real(dot(gfk, pk))
    if old_old_fval is None:
        start = 1
    else:
        guess = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start = wnp.where(guess > 1, 1.0, guess)

    def sufficient(a: Any, phi: Any) -> Any:  # sufficient decrease fails (not W1)
        return phi > phi_0 + c1 * a * dphi_0

    def curvature(dphi: Any) -> Any:  # the strong curvature condition (W2)
        return wnp.abs(dphi) <= -c2 * dphi_0

    def step(s: _Search) -> _Search:
        a_i = wnp.where(s.i == 1, start, s.a_i1 * 2.0)  # scipy's doubling, no amax
        phi_i, dphi_i, g_i = phi_dphi(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        zoom_up = sufficient(a_i, phi_i) | ((phi_i >= s.phi_i1) & (s.i > 1))
        accept = curvature(dphi_i) & ~zoom_up
        zoom_down = (dphi_i >= 0.0) & ~zoom_up & ~accept
        previous, current_ = (s.a_i1, s.phi_i1, s.dphi_i1), (a_i, phi_i, dphi_i)
        z1 = _zoom(phi_dphi, sufficient, curvature, previous, current_, gfk, ~zoom_up)
        s = s._replace(nfev=s.nfev + z1.nfev, ngev=s.ngev + z1.ngev)
        z2 = _zoom(phi_dphi, sufficient, curvature, current_, previous, gfk, ~zoom_down)
        s = s._replace(nfev=s.nfev + z2.nfev, ngev=s.ngev + z2.ngev)
        s = _take_zoom(s, zoom_up, z1)
        s = s._replace(done=accept | s.done, **_pick(accept, s, a_star=a_i, phi_star=phi_i,
                                                     dphi_star=dphi_i, g_star=g_i))  # fmt: skip
        s = _take_zoom(s, zoom_down, z2)
        return s._replace(i=s.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    counted = 1 if evaluate_first else 0
    begin = _Search(
        done=wnp.array(False, dtype=bool), failed=wnp.array(False, dtype=bool),
        i=1,  # Wright and Nocedal start at 1 (scipy at 0: scipy issue 12157)
        a_i1=0.0, phi_i1=phi_0, dphi_i1=dphi_0, nfev=counted, ngev=counted,
        a_star=0.0, phi_star=phi_0, dphi_star=dphi_0, g_star=gfk,
    )  # fmt: skip
    going = lambda s: ~s.done & (s.i <= maxiter) & ~s.failed  # noqa: E731
    s = lax.while_loop(going, step, begin)

    status = wnp.where(s.failed, wnp.array(1), wnp.where(s.i > maxiter, wnp.array(3),
                                                          wnp.array(0)))  # fmt: skip
    # below 64 bits, a step under 1e-8 would stall the minimizer: jax's floor
    a_k = wnp.asarray(s.a_star)
    tiny = (wnp.finfo(a_k.dtype).bits != 64) & (wnp.abs(a_k) < 1e-8)
    a_k = wnp.where(tiny, wnp.sign(a_k) * 1e-8, a_k)
    return LineSearchResults(
        failed=s.failed | ~s.done, nit=s.i - 1, nfev=s.nfev, ngev=s.ngev, k=s.i,
        a_k=a_k, f_k=s.phi_star, g_k=s.g_star, status=status,
    )  # fmt: skip
