"""Lowering of weaktrace.core.primitives_special: each primitive calls the jax.nn or
jax.scipy.special function it stands for (so values and custom JVPs are jax's own),
on operands whose dtypes weaktrace already promoted."""

from __future__ import annotations

from typing import Any

import jax
import jax.scipy.special as jsp

from weaktrace.core import primitives_special as S
from weaktrace.ir.values import lowering_rules

# jax.lax.polygamma: jsp.polygamma checks that n has an integer dtype before promoting it,
# the mirror checks that and hands over n promoted.
_NN = {"relu": jax.nn.relu, "relu6": jax.nn.relu6, "polygamma": jax.lax.polygamma}


def _elementwise(fn: Any, multiple: bool) -> Any:
    def rule(*xs: Any, **params: Any) -> Any:
        out = fn(*xs, **params)
        return list(out) if multiple else out

    return rule


for _name, _prim in S.PRIMS.items():
    _fn = _NN.get(_name) or getattr(jsp, _name)
    lowering_rules[_prim] = _elementwise(_fn, _prim.multiple_results)


def _where(rest: tuple[Any, ...], has_where: bool) -> Any:
    return rest[-1] if has_where else None


def _softmax(x: Any, *rest: Any, axis: Any, has_where: bool, dtype: Any, weak: bool) -> Any:
    return jax.nn.softmax(x, axis=axis, where=_where(rest, has_where))


def _log_softmax(x: Any, *rest: Any, axis: Any, has_where: bool, dtype: Any, weak: bool) -> Any:
    return jax.nn.log_softmax(x, axis=axis, where=_where(rest, has_where))


def _logsumexp(a: Any, *rest: Any, axis: Any, keepdims: bool, return_sign: bool, has_b: bool,
               has_where: bool) -> list[Any]:  # fmt: skip
    out = jsp.logsumexp(a, axis=axis, b=rest[0] if has_b else None, keepdims=keepdims,
                        return_sign=return_sign, where=_where(rest, has_where))  # fmt: skip
    return list(out) if return_sign else [out]


def _logmeanexp(x: Any, *rest: Any, axis: Any, keepdims: bool, has_where: bool) -> Any:
    return jax.nn.logmeanexp(x, axis=axis, where=_where(rest, has_where), keepdims=keepdims)


# series_order goes positionally: jax's log_ndtr is a custom_jvp with it nondiff, and a
# keyword call fails jax's own argument-name check under jax_enable_checks.
lowering_rules[S.PRIMS["log_ndtr"]] = lambda x, *, series_order: jsp.log_ndtr(x, series_order)
lowering_rules[S.PRIMS["owens_t"]] = lambda h, a, *, dtype: jsp.owens_t(h, a)
lowering_rules[S.log1mexp_p] = lambda x, *, dtype, weak: jax.nn.log1mexp(x)
lowering_rules[S.softmax_p] = _softmax
lowering_rules[S.log_softmax_p] = _log_softmax
lowering_rules[S.logsumexp_p] = _logsumexp
lowering_rules[S.logmeanexp_p] = _logmeanexp
lowering_rules[S.bessel_jn_p] = lambda z, *, v, n_iter: jsp.bessel_jn(z, v=v, n_iter=n_iter)
lowering_rules[S.bernoulli_p] = lambda *, n, dtype: jsp.bernoulli(n).astype(dtype.numpy)
lowering_rules[S.sph_harm_y_p] = lambda n, m, theta, phi, *, n_max, dtype: jsp.sph_harm_y(
    n, m, theta, phi, n_max=n_max
)
