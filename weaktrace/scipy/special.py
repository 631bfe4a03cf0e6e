"""``weaktrace.scipy.special``: the jax.scipy.special mirror.

Each function promotes its operands as jax's does (``promote_args_inexact``: integers
and bools become the policy's default float, Python scalars stay weak) under the active
policy, then binds a primitive. Functions that jax.lax computes directly (erf, lgamma,
igamma ...) bind those primitives; the others bind a primitive of
weaktrace/core/primitives_special.py whose lowering is jax's own definition, so values
and custom JVPs (xlogy, logit, zeta ...) are jax's."""

from __future__ import annotations

import inspect
import operator
from typing import Any

import numpy as np

from weaktrace.core import primitives as P
from weaktrace.core import primitives_lax as L
from weaktrace.core import primitives_special as S
from weaktrace.dtypes import registry
from weaktrace.errors import InvalidInputError, OperandTypeError
from weaktrace.ir.values import AbstractValue
from weaktrace.numpy._core import bind, context, operand, promote_args
from weaktrace.scipy._special_core import EXPORTS, export, inexact
from weaktrace.scipy._special_core import log_softmax as log_softmax
from weaktrace.scipy._special_core import logsumexp as logsumexp
from weaktrace.scipy._special_core import softmax as softmax


def _lax(name: str, prim: Any, *args: Any) -> Any:
    b = context(*args)
    return b.emit(prim, tuple(promote_args(b, name, args, "inexact")), {})


@export
def erf(x: Any) -> Any:
    """``jax.scipy.special.erf``."""
    return _lax("erf", L.erf_p, x)


@export
def erfc(x: Any) -> Any:
    """``jax.scipy.special.erfc``."""
    return _lax("erfc", L.erfc_p, x)


@export
def erfinv(x: Any) -> Any:
    """``jax.scipy.special.erfinv``."""
    return _lax("erfinv", L.erf_inv_p, x)


@export
def gammaln(x: Any) -> Any:
    """``jax.scipy.special.gammaln`` (``lax.lgamma``)."""
    return _lax("gammaln", L.lgamma_p, x)


@export
def digamma(x: Any) -> Any:
    """``jax.scipy.special.digamma``."""
    return _lax("digamma", L.digamma_p, x)


@export
def expit(x: Any) -> Any:
    """``jax.scipy.special.expit`` (``lax.logistic``)."""
    return _lax("expit", L.logistic_p, x)


@export
def i0e(x: Any) -> Any:
    """``jax.scipy.special.i0e``."""
    return _lax("i0e", L.bessel_i0e_p, x)


@export
def i1e(x: Any) -> Any:
    """``jax.scipy.special.i1e``."""
    return _lax("i1e", L.bessel_i1e_p, x)


@export
def gammainc(a: Any, x: Any) -> Any:
    """``jax.scipy.special.gammainc`` (``lax.igamma``)."""
    return _lax("gammainc", L.igamma_p, a, x)


@export
def gammaincc(a: Any, x: Any) -> Any:
    """``jax.scipy.special.gammaincc`` (``lax.igammac``)."""
    return _lax("gammaincc", L.igammac_p, a, x)


def _unary(name: str) -> Any:
    def fn(x: Any) -> Any:
        return inexact(name, (x,))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jax.scipy.special.{name}``: jax's definition, on weaktrace's promotion."
    return export(fn)


def _binary(name: str, a: str, b: str) -> Any:
    # jax's parameter names, so keyword calls bind (and wrong names raise) as jax's do
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    sig = inspect.Signature([inspect.Parameter(a, kind), inspect.Parameter(b, kind)])

    def fn(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        return inexact(name, (bound.arguments[a], bound.arguments[b]))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"``jax.scipy.special.{name}({a}, {b})``: jax's definition, on weaktrace's promotion."
    )
    fn.__signature__ = sig  # type: ignore[attr-defined]
    return export(fn)


gamma = _unary("gamma")
loggamma = _unary("loggamma")
gammasgn = _unary("gammasgn")
logit = _unary("logit")
entr = _unary("entr")
dawsn = _unary("dawsn")
erfcx = _unary("erfcx")
exp1 = _unary("exp1")
expi = _unary("expi")
fresnel = _unary("fresnel")
sici = _unary("sici")
i0 = _unary("i0")
i1 = _unary("i1")

xlogy = _binary("xlogy", "x", "y")
xlog1py = _binary("xlog1py", "x", "y")
beta = _binary("beta", "a", "b")
betaln = _binary("betaln", "a", "b")
boxcox = _binary("boxcox", "x", "lmbda")
boxcox1p = _binary("boxcox1p", "x", "lmbda")
kl_div = _binary("kl_div", "p", "q")
rel_entr = _binary("rel_entr", "p", "q")


@export
def owens_t(h: Any, a: Any) -> Any:
    """``jax.scipy.special.owens_t(h, a)``: jax's quadrature weights are a strong float64
    table, so the result is the operands' inexact dtype joined with (canonical) float64."""
    b = context(h, a)
    ops = promote_args(b, "owens_t", (h, a), "inexact")
    table = AbstractValue.make((), b.policy.canonicalize(registry.by_name("float64")), False)
    dt = b.policy.promote("owens_t", [table, ops[0].aval], "inexact")[0]
    return b.emit(S.PRIMS["owens_t"], tuple(ops), {"dtype": dt})


poch = _binary("poch", "z", "m")
expn = _binary("expn", "n", "x")


@export
def betainc(a: Any, b: Any, x: Any) -> Any:
    """``jax.scipy.special.betainc``: the regularized incomplete beta function."""
    return inexact("betainc", (a, b, x))


@export
def hyp1f1(a: Any, b: Any, x: Any) -> Any:
    """``jax.scipy.special.hyp1f1``."""
    return inexact("hyp1f1", (a, b, x))


@export
def hyp2f1(a: Any, b: Any, c: Any, x: Any) -> Any:
    """``jax.scipy.special.hyp2f1``."""
    return inexact("hyp2f1", (a, b, c, x))


@export
def zeta(x: Any, q: Any = None) -> Any:
    """``jax.scipy.special.zeta``: the Hurwitz zeta function (jax requires q)."""
    if q is None:
        raise NotImplementedError(
            "Riemann zeta function not implemented; pass q != None to compute the Hurwitz "
            "Zeta function (as jax.scipy.special.zeta)."
        )
    return inexact("zeta", (x, q))


@export
def polygamma(n: Any, x: Any) -> Any:
    """``jax.scipy.special.polygamma``: n must have an integer dtype."""
    b = context(n, x)
    if operand(n, b).aval[1].kind not in "iu":
        raise InvalidInputError(  # jax: ValueError; weaktrace said TypeError before
            f"Argument `n` to polygamma must be of integer type. Got dtype {operand(n, b).aval[1]}."
        )
    return inexact("polygamma", (n, x))


@export
def factorial(n: Any, exact: bool = False) -> Any:
    """``jax.scipy.special.factorial`` (float-valued, as jax: ``exact=True`` is not
    supported)."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    return inexact("factorial", (n,))


@export
def comb(N: Any, k: Any, *, repetition: bool = False) -> Any:
    """``jax.scipy.special.comb``."""
    return inexact("comb", (N, k), repetition=bool(repetition))


@export
def multigammaln(a: Any, d: Any) -> Any:
    """``jax.scipy.special.multigammaln``: d must be a concrete integer."""
    try:
        d = operator.index(d)
    except TypeError:
        raise InvalidInputError(
            f"multigammaln: d must be a concrete Python integer, got {d!r}"
        ) from None
    b = context(a)
    (x, _) = promote_args(b, "multigammaln", (a, d), "inexact")
    return b.emit(S.PRIMS["multigammaln"], (x,), {"d": d})


def _f32_or_f64(name: str, x: Any, **params: Any) -> Any:
    b = context(x)
    t = operand(x, b)
    if t.aval[1].name not in ("float32", "float64"):
        raise OperandTypeError(
            f"x.dtype={t.aval[1]} is not supported by {name}: it needs float32 or float64."
        )
    return b.emit(S.PRIMS[name], (t,), params)


@export
def spence(x: Any) -> Any:
    """``jax.scipy.special.spence``: float32 or float64 only, as jax."""
    return _f32_or_f64("spence", x)


@export
def ndtr(x: Any) -> Any:
    """``jax.scipy.special.ndtr``: float32 or float64 only, as jax."""
    return _f32_or_f64("ndtr", x)


@export
def ndtri(p: Any) -> Any:
    """``jax.scipy.special.ndtri``: float32 or float64 only, as jax."""
    return _f32_or_f64("ndtri", p)


@export
def log_ndtr(x: Any, series_order: int = 3) -> Any:
    """``jax.scipy.special.log_ndtr``: float32 or float64 only, as jax."""
    return _f32_or_f64("log_ndtr", x, series_order=operator.index(series_order))


@export
def wofz(z: Any) -> Any:
    """``jax.scipy.special.wofz``: operands promote to complex."""
    b = context(z)
    (t,) = promote_args(b, "wofz", (z,), "complex")
    return b.emit(S.PRIMS["wofz"], (t,), {})


@export
def bessel_jn(z: Any, *, v: int, n_iter: int = 50) -> Any:
    """``jax.scipy.special.bessel_jn``: J_0 ... J_v stacked on a new first axis."""
    b = context(z)
    (t,) = promote_args(b, "bessel_jn", (z,), "inexact")
    return b.emit(S.bessel_jn_p, (t,), {"v": operator.index(v), "n_iter": operator.index(n_iter)})


@export
def sph_harm_y(
    n: Any, m: Any, theta: Any, phi: Any, diff_n: int | None = None, n_max: int | None = None
) -> Any:
    """``jax.scipy.special.sph_harm_y``: spherical harmonics of degree n (1-D integers)
    and order m, complex. ``n_max`` must be given inside a trace (as under jax.jit)."""
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported."
        )
    b = context(n, m, theta, phi)
    if n_max is None:
        if not b.eager:
            raise InvalidInputError(
                "sph_harm_y: n_max must be statically specified inside a trace (as under "
                "jax.jit): pass n_max=..."
            )
        n_max = int(np.max(np.asarray(n)))
    ops = [operand(v, b) for v in (n, m, theta, phi)]
    if ops[2].aval[0] == ():
        ops[2] = bind(P.reshape_p, ops[2], new_sizes=(1,))
    # jax's Legendre table has the default float dtype (strong): it joins theta and phi
    table = AbstractValue.make((), b.policy.defaults["f"], False)
    dt = b.policy.promote("sph_harm_y", [table, *(o.aval for o in ops[1:])], "complex")[0]
    params = {"n_max": operator.index(n_max), "dtype": dt}
    return b.emit(S.sph_harm_y_p, tuple(ops), params)


@export
def bernoulli(n: int) -> Any:
    """``jax.scipy.special.bernoulli``: the first n + 1 Bernoulli numbers."""
    b = context()
    params = {"n": operator.index(n), "dtype": b.policy.defaults["f"]}
    return b.emit(S.bernoulli_p, (), params)


__all__ = sorted(EXPORTS)
globals().update(EXPORTS)
