"""BFGS (Wright and Nocedal, algorithm 6.1) and jax's experimental L-BFGS (algorithm
7.5, generalised to complex variables after Sorber, Barel and De Lathauwer, 2012), the
two methods of ``jax.scipy.optimize.minimize``, on weaktrace.numpy / .lax.

Each is one ``weaktrace.lax.while_loop`` over a NamedTuple state whose initial Python
scalars are weak, as jax's are, so the loop gives every field jax's dtype; the
updates follow jax's order of operations, so the iterates are jax's step for step.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy.optimize._line_search import dot, line_search, value_and_grad

wnp: Any = _wnp
lax: Any = _lax


class BFGSResults(NamedTuple):
    """The BFGS state (jax's ``_BFGSResults``): converged, failed, k (iterations), nfev,
    ngev, nhev, x_k, f_k, g_k, H_k (the inverse Hessian estimate), old_old_fval,
    status and line_search_status."""

    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    nhev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    H_k: Any
    old_old_fval: Any
    status: Any
    line_search_status: Any


def minimize_bfgs(fun: Any, x0: Any, maxiter: Any = None, norm: Any = np.inf,
                  gtol: float = 1e-5, line_search_maxiter: int = 10) -> BFGSResults:  # fmt: skip
    """Minimize `fun` from `x0` by BFGS until the `norm` of the gradient is below
    `gtol`, the line search fails or `maxiter` iterations (200 per variable) ran."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    n = x0.shape[0]
    f_0, g_0 = value_and_grad(fun, x0)
    start = BFGSResults(
        converged=wnp.linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0, nfev=1, ngev=1,
        nhev=0, x_k=x0, f_k=f_0, g_k=g_0, H_k=wnp.eye(n, dtype=x0.dtype),
        old_old_fval=f_0 + wnp.linalg.norm(g_0) / 2, status=0, line_search_status=0,
    )  # fmt: skip

    def going(s: BFGSResults) -> Any:
        return ~wnp.asarray(s.converged) & ~wnp.asarray(s.failed) & (s.k < maxiter)

    def step(s: BFGSResults) -> BFGSResults:
        p_k = -dot(s.H_k, s.g_k)
        ls = line_search(fun, s.x_k, p_k, old_fval=s.f_k, old_old_fval=s.old_old_fval,
                         gfk=s.g_k, maxiter=line_search_maxiter)  # fmt: skip
        s = s._replace(nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, failed=ls.failed,
                       line_search_status=ls.status)  # fmt: skip
        s_k = ls.a_k * p_k
        y_k = ls.g_k - s.g_k
        rho_k = wnp.reciprocal(dot(y_k, s_k))
        # H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T, kept where rho is finite
        w = wnp.eye(n, dtype=rho_k.dtype) - rho_k * (s_k[:, None] * y_k[None, :])
        h = wnp.einsum("ij,jk,lk", w, s.H_k, w, precision=jax.lax.Precision.HIGHEST)
        h = h + rho_k * s_k[:, None] * s_k[None, :]
        h = wnp.where(wnp.isfinite(rho_k), h, s.H_k)
        return s._replace(converged=wnp.linalg.norm(ls.g_k, ord=norm) < gtol, k=s.k + 1,
                          x_k=s.x_k + s_k, f_k=ls.f_k, g_k=ls.g_k, H_k=h,
                          old_old_fval=s.f_k)  # fmt: skip

    s = lax.while_loop(going, step, start)
    # 0 converged, 1 out of iterations, 2 + the line search's status, -1 undefined
    failed_search = wnp.where(s.failed, 2 + s.line_search_status, -1)
    status = wnp.where(s.converged, 0, wnp.where(s.k == maxiter, 1, failed_search))
    return s._replace(status=status)


class LBFGSResults(NamedTuple):
    """The L-BFGS state (jax's ``LBFGSResults``): converged, failed, k, nfev, ngev, x_k,
    f_k, g_k, the last `maxcor` steps, gradient changes and their 1/(y.s), gamma (the
    initial inverse Hessian scale), status and ls_status."""

    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    s_history: Any
    y_history: Any
    rho_history: Any
    gamma: Any
    status: Any
    ls_status: Any


def minimize_lbfgs(fun: Any, x0: Any, maxiter: Any = None, norm: Any = np.inf,
                   maxcor: int = 10, ftol: float = 2.220446049250313e-09,
                   gtol: float = 1e-05, maxfun: Any = None, maxgrad: Any = None,
                   maxls: int = 20) -> LBFGSResults:  # fmt: skip
    """Minimize `fun` from `x0` (real or complex) by L-BFGS with `maxcor` corrections.
    Status: 0 converged, 1 maxiter, 2 maxfun, 3 maxgrad, 4 a decrease under `ftol`,
    5 the line search failed."""
    n = len(x0)
    dtype = wnp.result_type(x0)
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = n * 200  # at least one limit
    maxiter, maxfun, maxgrad = (np.inf if v is None else v for v in (maxiter, maxfun, maxgrad))
    f_0, g_0 = value_and_grad(fun, x0)
    start = LBFGSResults(
        converged=wnp.array(False, dtype=bool), failed=wnp.array(False, dtype=bool),
        k=0, nfev=1, ngev=1, x_k=x0, f_k=f_0, g_k=g_0,
        s_history=wnp.zeros((maxcor, n), dtype=dtype),
        y_history=wnp.zeros((maxcor, n), dtype=dtype),
        rho_history=wnp.zeros((maxcor,), dtype=dtype), gamma=1.0, status=0, ls_status=0,
    )  # fmt: skip

    def step(s: LBFGSResults) -> LBFGSResults:
        p_k = _two_loop_direction(s)
        ls = line_search(f=fun, xk=s.x_k, pk=p_k, old_fval=s.f_k, gfk=s.g_k, maxiter=maxls)
        s_k = wnp.asarray(ls.a_k).astype(p_k.dtype) * p_k
        y_k = ls.g_k - s.g_k
        ys = wnp.real(dot(y_k, s_k))
        rho_k = wnp.reciprocal(ys).astype(y_k.dtype)
        gamma = ys / wnp.real(dot(wnp.conj(y_k), y_k))
        status = wnp.array(0)
        status = wnp.where(s.f_k - ls.f_k < ftol, 4, status)
        status = wnp.where(s.ngev >= maxgrad, 3, status)
        status = wnp.where(s.nfev >= maxfun, 2, status)
        status = wnp.where(s.k >= maxiter, 1, status)
        status = wnp.where(ls.failed, 5, status)
        converged = wnp.linalg.norm(ls.g_k, ord=norm) < gtol
        return s._replace(
            converged=converged, failed=(status > 0) & ~converged, k=s.k + 1,
            nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev,
            x_k=(s.x_k + s_k).astype(s.x_k.dtype), f_k=ls.f_k.astype(s.f_k.dtype),
            g_k=ls.g_k.astype(s.g_k.dtype), s_history=_push(s.s_history, s_k),
            y_history=_push(s.y_history, y_k), rho_history=_push(s.rho_history, rho_k),
            gamma=gamma.astype(s.g_k.dtype), status=wnp.where(converged, 0, status),
            ls_status=ls.status,
        )  # fmt: skip

    return lax.while_loop(lambda s: ~s.converged & ~s.failed, step, start)


def _two_loop_direction(s: LBFGSResults) -> Any:
    """The search direction -H g by the two-loop recursion over the stored pairs."""
    dtype = s.rho_history.dtype
    size = len(s.rho_history)
    used = wnp.where(s.k < size, s.k, size)

    def newest_first(j: Any, carry: Any) -> Any:
        q, alphas = carry
        i = size - 1 - j
        a_i = s.rho_history[i] * dot(wnp.conj(s.s_history[i]), q).real.astype(dtype)
        return q - a_i * wnp.conj(s.y_history[i]), alphas.at[i].set(a_i)

    start = (-wnp.conj(s.g_k), wnp.zeros_like(s.rho_history))
    q, alphas = lax.fori_loop(0, used, newest_first, start)

    def oldest_first(j: Any, q: Any) -> Any:
        i = size - used + j
        b_i = s.rho_history[i] * dot(s.y_history[i], q).real.astype(dtype)
        return q + (alphas[i] - b_i) * s.s_history[i]

    return lax.fori_loop(0, used, oldest_first, s.gamma * q)


def _push(history: Any, new: Any) -> Any:
    """The history with its oldest entry dropped and `new` appended."""
    return wnp.roll(history, -1, axis=0).at[-1].set(new)
