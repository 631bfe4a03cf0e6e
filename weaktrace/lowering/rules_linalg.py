"""Lowering rules of ``weaktrace.core.primitives_linalg`` onto ``jax.lax.linalg``.

``solve`` follows ``jax.lax.linalg._solve``: an LU factorization of the stopped-
gradient matrix reused by ``lax.custom_linear_solve`` (forward and transposed
solves), so that values and gradients are jax's.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import jax
from jax import lax
from jax._src.lax.linalg import geqrf as _lax_geqrf  # jax.lax.linalg does not export it
from jax.lax import linalg as lax_linalg

from weaktrace.core import primitives_linalg as L
from weaktrace.lowering.rules import _register


def _svd(x: Any, *, full_matrices: bool, compute_uv: bool, algorithm: Any = None) -> list[Any]:
    out = lax_linalg.svd(x, full_matrices=full_matrices, compute_uv=compute_uv,
                         algorithm=algorithm)  # fmt: skip
    return list(out) if compute_uv else [out]


def _eig(x: Any, *, compute_left_eigenvectors: bool, compute_right_eigenvectors: bool,
         enable_eigvec_derivs: bool = False) -> list[Any]:  # fmt: skip
    return list(
        lax_linalg.eig(
            x,
            compute_left_eigenvectors=compute_left_eigenvectors,
            compute_right_eigenvectors=compute_right_eigenvectors,
            enable_eigvec_derivs=enable_eigvec_derivs,
        )
    )


_register(L.cholesky_p, lambda x, *, symmetrize_input: lax_linalg.cholesky(
    x, symmetrize_input=symmetrize_input))  # fmt: skip
_register(L.lu_p, lambda x: list(lax_linalg.lu(x)))
_register(L.qr_p, lambda x, *, full_matrices: list(lax_linalg.qr(x, full_matrices=full_matrices)))
_register(L.geqrf_p, lambda x: list(_lax_geqrf(x)))
_register(L.eigh_p, lambda x, *, lower, symmetrize_input, **opts: list(lax_linalg.eigh(
    x, lower=lower, symmetrize_input=symmetrize_input, **opts)))  # fmt: skip
_register(L.svd_p, _svd)
_register(L.eig_p, _eig)
_register(L.triangular_solve_p, lax_linalg.triangular_solve)


def _take_rows(x: Any, rows: Any) -> Any:
    """``x[rows, :]`` for a 2-D x, as one gather."""
    dnums = lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    return lax.gather(x, rows[:, None], dnums, (1, x.shape[1]), mode="promise_in_bounds")


def _lu_solve(lu: Any, perm: Any, b: Any, trans: int) -> Any:
    """``jax.lax.linalg._lu_solve_core`` for one matrix and a vector b."""
    m = lu.shape[0]
    x = lax.reshape(b, (m, 1))
    if trans == 0:
        x = _take_rows(x, perm)
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    else:
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False, transpose_a=True)
        x = lax_linalg.triangular_solve(
            lu, x, left_side=True, lower=True, unit_diagonal=True, transpose_a=True
        )
        _, ind = lax.sort_key_val(perm, lax.iota("int32", m))
        x = _take_rows(x, ind)
    return lax.reshape(x, b.shape)


def _solve_vector(a: Any, b: Any) -> Any:
    lu, _, perm = lax_linalg.lu(lax.stop_gradient(a))
    matvec = partial(lax.dot_general, a, dimension_numbers=(((1,), (0,)), ((), ())),
                     precision=lax.Precision.HIGHEST)  # fmt: skip
    return lax.custom_linear_solve(
        matvec,
        b,
        solve=lambda _, x: _lu_solve(lu, perm, x, 0),
        transpose_solve=lambda _, x: _lu_solve(lu, perm, x, 1),
    )


def _solve(a: Any, b: Any, *, vector: bool) -> Any:
    """a (..., n, n), b (..., n) or (..., n, k) of one batch shape."""
    batch = a.shape[:-2]
    n = a.shape[-1]
    a2 = lax.reshape(a, (math.prod(batch), n, n))
    if vector:
        out = jax.vmap(_solve_vector)(a2, lax.reshape(b, (math.prod(batch), n)))
    else:
        k = b.shape[-1]
        b2 = lax.reshape(b, (math.prod(batch), n, k))
        out = jax.vmap(jax.vmap(_solve_vector, (None, 1), 1))(a2, b2)
    return lax.reshape(out, b.shape)


_register(L.solve_p, _solve)
# jax's own functions, for their custom JVPs (a composition of lu would differentiate to
# NaN at a singular matrix)
_register(L.det_p, lambda x: jax.numpy.linalg.det(x))
_register(L.slogdet_p, lambda x: list(jax.numpy.linalg.slogdet(x)))
_register(L.pinv_p, lambda x, rtol, *, hermitian: jax.numpy.linalg.pinv(x, rtol, hermitian))
