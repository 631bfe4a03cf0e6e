"""Restarted GMRES for ``weaktrace.scipy.sparse.linalg.gmres``, as jax computes it.

Each restart builds a Krylov basis V (one column per Arnoldi step: M(A(v)),
orthogonalised against V by classical Gram-Schmidt, repeated once when the first pass
lost too much of its norm) and the Hessenberg matrix H of the projections. ``batched``
runs `restart` steps (or until breakdown) and solves the small least-squares problem
by its normal equations; ``incremental`` keeps H triangular by Givens rotations as it
grows and stops as soon as the rotated residual is below the tolerance.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy import linalg as _sla
from weaktrace.scipy.sparse import _trees as T

wnp: Any = _wnp
lax: Any = _lax
sla: Any = _sla


def normalize(x: Any, thresh: Any = None) -> tuple[Any, Any]:
    """x / |x| and |x|, or zeros and 0 where |x| is not above `thresh` (default: the
    epsilon of the norm's dtype)."""
    n = T.norm(x)
    ref = T.joined(x)
    if thresh is None:
        thresh = wnp.finfo(n.dtype).eps
    thresh = wnp.real(wnp.asarray(thresh).astype(ref.dtype))
    big = n > thresh
    n_cast = T.cast_like(n, x)
    unit = T.tmap(lambda y: wnp.where(big, y / n_cast, 0.0), x)
    return unit, wnp.where(big, n, 0.0)


def _project(Q: Any, v: Any) -> Any:
    """The coefficients of v on the columns of Q (conjugated), summed over leaves."""
    parts = T.tmap(
        lambda X, y: wnp.einsum("...n,...->n", wnp.conj(X), y, precision=T.HIGHEST), Q, v
    )
    return functools.reduce(operator.add, T.leaves(parts))


def _gram_schmidt(Q: Any, x: Any, xnorm: Any, max_iterations: int = 2) -> tuple[Any, Any]:
    """x orthogonalised against Q's columns, and its coefficients; the projection is
    repeated (up to max_iterations passes) while it removed most of x's norm."""
    Q0 = T.leaves(Q)[0]
    r = wnp.zeros(Q0.shape[-1], dtype=Q0.dtype)

    def one_pass(state: Any) -> Any:
        k, q, r, qnorm_scaled = state
        h = _project(Q, q)
        q = T.sub(q, T.tmap(lambda X: wnp.dot(X, h, precision=T.HIGHEST), Q))
        r = T.add(r, h)

        def again(inner: Any) -> Any:
            k, not_done, _, _ = inner
            return wnp.logical_and(not_done, k < (max_iterations - 1))

        def renorm(inner: Any) -> Any:
            k, _, q, _ = inner
            return k, False, q, normalize(q)[1] / wnp.sqrt(2.0)

        _, _, q, qnorm_scaled = lax.while_loop(again, renorm, (k, True, q, qnorm_scaled))
        return k + 1, q, r, qnorm_scaled

    def repeat(state: Any) -> Any:
        k, _, r, qnorm_scaled = state
        return wnp.logical_and(k < (max_iterations - 1), normalize(r)[1] < qnorm_scaled)

    state = one_pass((0, x, r, xnorm / wnp.sqrt(2.0)))
    _, q, r, _ = lax.while_loop(repeat, one_pass, state)
    return q, r


def _arnoldi(k: Any, A: Any, M: Any, V: Any, H: Any) -> tuple[Any, Any, Any]:
    """Arnoldi step k: column k+1 of V and row k of H; breakdown where it vanished."""
    ref = T.joined(V)
    eps = wnp.finfo(ref.dtype).eps
    v = M(A(T.tmap(lambda X: X[..., k], V)))
    _, norm0 = normalize(v)
    v, h = _gram_schmidt(V, v, norm0, max_iterations=2)
    unit, norm1 = normalize(v, thresh=norm0 * eps)
    V = T.tmap(lambda X, y: X.at[..., k + 1].set(y), V, unit)
    h = h.at[k + 1].set(norm1.astype(ref.dtype))
    return V, H.at[k, :].set(h), norm1 == 0.0


def _rotate(H: Any, i: Any, cs: Any, sn: Any) -> Any:
    """The Givens rotation (cs, sn) applied to entries i and i+1."""
    x1, y1 = H[i], H[i + 1]
    H = H.at[i].set(wnp.conj(cs) * x1 - wnp.conj(sn) * y1)
    return H.at[i + 1].set(sn * x1 + cs * y1)


def _givens(a: Any, b: Any) -> tuple[Any, Any]:
    """(cs, sn) of the rotation taking (a, b) to (r, 0)."""
    b_zero = abs(b) == 0
    a_small = abs(a) < abs(b)
    t = -wnp.where(a_small, a, b) / wnp.where(a_small, b, a)
    r = lax.rsqrt(1 + abs(t) ** 2).astype(t.dtype)
    cs = wnp.where(b_zero, 1, wnp.where(a_small, r * t, r))
    sn = wnp.where(b_zero, 0, wnp.where(a_small, r, r * t))
    return cs, sn


def _basis(unit_residual: Any, restart: int) -> Any:
    return T.tmap(
        lambda x: wnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)), unit_residual
    )


def _finish(A: Any, M: Any, b: Any, x0: Any, V: Any, y: Any) -> tuple[Any, Any, Any]:
    x = T.add(x0, T.tmap(lambda X: wnp.dot(X[..., :-1], y, precision=T.HIGHEST), V))
    unit, n = normalize(M(T.sub(b, A(x))))
    return x, unit, n


def _incremental(A: Any, b: Any, x0: Any, unit_residual: Any, residual_norm: Any,
                 ptol: Any, restart: int, M: Any) -> tuple[Any, Any, Any]:  # fmt: skip
    V = _basis(unit_residual, restart)
    dt = wnp.result_type(*T.leaves(b))
    R = wnp.eye(restart, restart + 1, dtype=dt)
    givens = wnp.zeros((restart, 2), dtype=dt)
    beta = wnp.zeros(restart + 1, dtype=dt).at[0].set(residual_norm.astype(dt))

    def going(state: Any) -> Any:
        k, err = state[0], state[1]
        return wnp.logical_and(k < restart, err > ptol)

    def step(state: Any) -> Any:
        k, _, V, R, beta, givens = state
        V, H, _ = _arnoldi(k, A, M, V, R)
        row = lax.fori_loop(0, k, lambda i, h: _rotate(h, i, givens[i, 0], givens[i, 1]), H[k, :])
        cs, sn = _givens(row[k], row[k + 1])
        givens = givens.at[k, :].set(wnp.stack([cs, sn]))
        R = R.at[k, :].set(_rotate(row, k, cs, sn))
        beta = _rotate(beta, k, givens[k, 0], givens[k, 1])
        return k + 1, abs(beta[k + 1]), V, R, beta, givens

    _, _, V, R, beta, _ = lax.while_loop(going, step, (0, residual_norm, V, R, beta, givens))
    y = sla.solve_triangular(R[:, :-1].T, beta[:-1])
    return _finish(A, M, b, x0, V, y)


def _batched(A: Any, b: Any, x0: Any, unit_residual: Any, residual_norm: Any,
             ptol: Any, restart: int, M: Any) -> tuple[Any, Any, Any]:  # fmt: skip
    V = _basis(unit_residual, restart)
    ref = T.joined(b)
    H = T.cast_like(wnp.eye(restart, restart + 1, dtype=ref.dtype), b)

    def going(state: Any) -> Any:
        return wnp.logical_and(state[3] < restart, wnp.logical_not(state[2]))

    def step(state: Any) -> Any:
        V, H, _, k = state
        V, H, breakdown = _arnoldi(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = lax.while_loop(going, step, (V, H, False, 0))
    beta = wnp.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(ref.dtype))
    a = H.T
    normal = wnp.dot(wnp.conj(a.T), a, precision=T.HIGHEST)
    y = sla.solve(normal, wnp.dot(wnp.conj(a.T), beta, precision=T.HIGHEST), assume_a="pos")
    return _finish(A, M, b, x0, V, y)


def gmres_solve(A: Any, b: Any, x0: Any, atol: Any, ptol: Any, restart: int, maxiter: Any,
                M: Any, method: str) -> Any:  # fmt: skip
    """Restarts until the residual norm is at most atol or maxiter restarts ran."""
    inner = _incremental if method == "incremental" else _batched
    unit, n = normalize(M(T.sub(b, A(x0))))

    def going(state: Any) -> Any:
        return wnp.logical_and(state[1] < maxiter, state[3] > atol)

    def step(state: Any) -> Any:
        x, k, unit, n = state
        x, unit, n = inner(A, b, x, unit, n, ptol, restart, M)
        return x, k + 1, unit, n

    return lax.while_loop(going, step, (x0, 0, unit, n))[0]
