"""``weaktrace.scipy.optimize``: the ``jax.scipy.optimize`` mirror, ``minimize``
(methods ``"BFGS"`` and ``"l-bfgs-experimental-do-not-rely-on-this"``) and its
``OptimizeResults``.

The objective is differentiated by jax: inside a weaktrace trace each
``value_and_grad`` of it is one ``jax_transform`` equation of the objective traced by
weaktrace (so its promotions are weaktrace's, its gradient jax's). The methods live in
``_bfgs`` and their line search in ``_line_search``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import weaktrace.numpy as _wnp
from weaktrace.errors import OperandTypeError, OperandValueError
from weaktrace.scipy.optimize._bfgs import minimize_bfgs, minimize_lbfgs

wnp: Any = _wnp

__all__ = ["OptimizeResults", "minimize"]


class OptimizeResults(NamedTuple):
    """``jax.scipy.optimize.OptimizeResults``: x (the solution), success, status (0
    converged, 1 out of iterations, 3 zoom failed, 4 saddle point, 5 out of line search
    iterations, -1 undefined), fun, jac, hess_inv (None for L-BFGS), nfev, njev, nit."""

    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def minimize(fun: Callable[..., Any], x0: Any, args: tuple[Any, ...] = (), *, method: str,
             tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:  # fmt: skip
    """``jax.scipy.optimize.minimize``: minimize ``fun(x, *args)`` over the 1-D `x`
    from `x0` by `method` (``"BFGS"``, or jax's experimental L-BFGS); `options` go to
    the method (``maxiter``, ``gtol``, ``norm``, ...). `tol` is unused, as in jax.

    >>> import weaktrace.numpy as wnp
    >>> r = minimize(lambda x: wnp.sum((x - 2.0) ** 2), wnp.zeros(2), method="BFGS")
    >>> [round(float(v), 4) for v in r.x], bool(r.success)
    ([2.0, 2.0], True)
    """
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise OperandTypeError(
            f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}"
        )

    def objective(x: Any) -> Any:
        return fun(x, *args)

    name = method.lower()
    if name == "bfgs":
        r: Any = minimize_bfgs(objective, x0, **options)
        hess_inv = r.H_k
    elif name == "l-bfgs-experimental-do-not-rely-on-this":
        r = minimize_lbfgs(objective, x0, **options)
        hess_inv = None
    else:
        raise OperandValueError(f"Method {method} not recognized")
    return OptimizeResults(
        x=r.x_k, success=r.converged & wnp.logical_not(r.failed), status=r.status,
        fun=r.f_k, jac=r.g_k, hess_inv=hess_inv, nfev=r.nfev, njev=r.ngev, nit=r.k,
    )  # fmt: skip
