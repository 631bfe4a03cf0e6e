"""``weaktrace.scipy.sparse.linalg``: the ``jax.scipy.sparse.linalg`` mirror (the
iterative solvers ``cg``, ``bicgstab`` and ``gmres``).

Each solver is a ``weaktrace.lax.while_loop`` over pytrees of vectors (inner products
at HIGHEST precision, summed over the leaves), wrapped in
``weaktrace.lax.custom_linear_solve`` so that derivatives are implicit, as jax's are.
The operator ``A`` (and the preconditioner ``M``) is a function or a square matrix.
The iterations follow scipy's (and jax's) formulas step for step, so the iterates,
their dtypes and their weak flags are jax's: ``cg`` (conjugate gradients: symmetric
positive definite A), ``bicgstab`` (stabilised biconjugate gradients, with scipy's
breakdown codes in the step counter) and ``gmres`` (restarted GMRES: Arnoldi with
classical Gram-Schmidt repeated once, then least squares on the Hessenberg matrix,
``batched``, or Givens rotations as it grows, ``incremental``).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.errors import OperandValueError
from weaktrace.scipy import linalg as _sla
from weaktrace.scipy._registry import registry
from weaktrace.scipy.sparse import _trees as T
from weaktrace.scipy.sparse._gmres import gmres_solve

wnp: Any = _wnp
lax: Any = _lax
sla: Any = _sla

EXPORTS, export = registry()

__all__ = ["bicgstab", "cg", "gmres"]

leaves, tmap, _identity = T.leaves, T.tmap, T.identity


def _tolerance2(b: Any, tol: Any, atol: Any) -> Any:
    """max(tol**2 |b|**2, atol**2): the squared residual norm to stop at."""
    return wnp.maximum(wnp.square(tol) * T.real_dot_tree(b, b), wnp.square(atol))


# -- cg and bicgstab -----------------------------------------------------------------------


def _cg(A: Any, b: Any, x0: Any, *, maxiter: int, tol: Any, atol: Any, M: Any) -> Any:
    stop2 = _tolerance2(b, tol, atol)
    r0 = T.sub(b, A(x0))
    p0 = z0 = M(r0)
    dt = wnp.result_type(*leaves(p0))

    def going(state: Any) -> Any:
        _, r, gamma, _, k = state
        rs = wnp.real(gamma) if M is _identity else T.real_dot_tree(r, r)
        return (rs > stop2) & (k < maxiter)

    def step(state: Any) -> Any:
        x, r, gamma, p, k = state
        ap = A(p)
        alpha = gamma / T.real_dot_tree(p, ap).astype(dt)
        x = T.add(x, T.scale(alpha, p))
        r = T.sub(r, T.scale(alpha, ap))
        z = M(r)
        gamma_next = T.real_dot_tree(r, z).astype(dt)
        p = T.add(z, T.scale(gamma_next / gamma, p))
        return x, r, gamma_next, p, k + 1

    start = (x0, r0, T.real_dot_tree(r0, z0).astype(dt), p0, 0)
    return lax.while_loop(going, step, start)[0]


def _bicgstab(A: Any, b: Any, x0: Any, *, maxiter: int, tol: Any, atol: Any, M: Any) -> Any:
    stop2 = _tolerance2(b, tol, atol)

    def going(state: Any) -> Any:
        r, k = state[1], state[-1]
        return (T.real_dot_tree(r, r) > stop2) & (k < maxiter) & (k >= 0)

    def step(state: Any) -> Any:
        x, r, rhat, alpha, omega, rho, p, q, k = state
        rho_next = T.dot_tree(rhat, r)
        beta = rho_next / rho * alpha / omega
        p = T.add(r, T.scale(beta, T.sub(p, T.scale(omega, q))))
        phat = M(p)
        q = A(phat)
        alpha = rho_next / T.dot_tree(rhat, q)
        s = T.sub(r, T.scale(alpha, q))
        done = T.real_dot_tree(s, s) < stop2
        shat = M(s)
        t = A(shat)
        omega = T.dot_tree(t, s) / T.dot_tree(t, t)
        pick = functools.partial(wnp.where, done)
        x = tmap(pick, T.add(x, T.scale(alpha, phat)),
                 T.add(x, T.add(T.scale(alpha, phat), T.scale(omega, shat))))  # fmt: skip
        r = tmap(pick, s, T.sub(s, T.scale(omega, t)))
        # scipy's breakdown codes, carried in the counter: -11 (omega or alpha 0), -10 (rho 0)
        k = wnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = wnp.where(rho_next == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_next, p, q, k

    r0 = T.sub(b, A(x0))
    one = T.cast_like(1, b)
    start = (x0, r0, r0, one, one, one, r0, r0, 0)
    return lax.while_loop(going, step, start)[0]


def _structure(tree: Any) -> Any:
    return jax.tree_util.tree_structure(tree)


def _shapes(tree: Any) -> list[tuple[int, ...]]:
    return [tuple(np.shape(v)) for v in leaves(tree)]


def _solver(solve: Any, A: Any, b: Any, x0: Any, *, tol: Any, atol: Any, maxiter: Any,
            M: Any, check_symmetric: bool) -> tuple[Any, None]:  # fmt: skip
    """jax's ``_isolve``: defaults, operator checks, then the solve under
    custom_linear_solve (symmetric for cg on real b)."""
    x0 = tmap(wnp.zeros_like, b) if x0 is None else x0
    if maxiter is None:
        maxiter = 10 * sum(np.size(v) for v in leaves(b))  # scipy's default
    A, M = T.as_operator(A), T.as_operator(_identity if M is None else M)
    if _structure(x0) != _structure(b):
        raise OperandValueError(
            "x0 and b must have matching tree structure: "
            f"{jax.tree_util.tree_structure(x0)} vs {jax.tree_util.tree_structure(b)}"
        )
    if _shapes(x0) != _shapes(b):
        raise OperandValueError(
            f"arrays in x0 and b must have matching shapes: {_shapes(x0)} vs {_shapes(b)}"
        )
    run = functools.partial(solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    symmetric = check_symmetric and all(not wnp.iscomplexobj(v) for v in leaves(b))
    x = lax.custom_linear_solve(A, b, solve=run, transpose_solve=run, symmetric=symmetric)
    return x, None


@export
def cg(A: Any, b: Any, x0: Any = None, *, tol: Any = 1e-5, atol: Any = 0.0,
       maxiter: Any = None, M: Any = None) -> tuple[Any, None]:  # fmt: skip
    """``jax.scipy.sparse.linalg.cg``: conjugate gradients for a symmetric positive
    definite A; (x, None)."""
    return _solver(_cg, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=True)  # fmt: skip


@export
def bicgstab(A: Any, b: Any, x0: Any = None, *, tol: Any = 1e-5, atol: Any = 0.0,
             maxiter: Any = None, M: Any = None) -> tuple[Any, None]:  # fmt: skip
    """``jax.scipy.sparse.linalg.bicgstab``: stabilised biconjugate gradients; (x, None)."""
    return _solver(_bicgstab, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=False)  # fmt: skip


@export
def gmres(A: Any, b: Any, x0: Any = None, *, tol: Any = 1e-5, atol: Any = 0.0,
          restart: int = 20, maxiter: Any = None, M: Any = None,
          solve_method: str = "batched") -> tuple[Any, Any]:  # fmt: skip
    """``jax.scipy.sparse.linalg.gmres``: restarted GMRES; (x, info), info -1 where the
    solution is NaN, else 0."""
    x0 = tmap(wnp.zeros_like, b) if x0 is None else x0
    A, M = T.as_operator(A), T.as_operator(_identity if M is None else M)
    size = sum(np.size(v) for v in leaves(b))
    maxiter = 10 * size if maxiter is None else maxiter
    restart = min(restart, size)
    if _structure(x0) != _structure(b):
        raise OperandValueError(
            "x0 and b must have matching tree structure: "
            f"{jax.tree_util.tree_structure(x0)} vs {jax.tree_util.tree_structure(b)}"
        )
    b_norm = T.norm(b)
    atol = wnp.maximum(tol * b_norm, atol)
    ptol = T.norm(M(b)) * wnp.minimum(1.0, atol / b_norm)
    if solve_method not in ("incremental", "batched"):
        raise OperandValueError(
            f"invalid solve_method {solve_method}, must be either 'incremental' or 'batched'"
        )

    def solve(op: Any, rhs: Any) -> Any:
        return gmres_solve(op, rhs, x0, atol, ptol, restart, maxiter, M, solve_method)

    x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve)
    return x, wnp.where(wnp.isnan(T.norm(x)), -1, 0)
