"""Primitives for jax.nn and jax.scipy.special functions whose values or gradients are
jax's own definitions: custom JVPs (relu at 0, softmax, xlogy, logit ...) and long series
(zeta, betainc, hyp1f1 ...). weaktrace decides every dtype, weak flag and shape before
binding (the mirror promotes its operands under the policy); the abstract rules below
only check what they are given, and the lowering (weaktrace/lowering/rules_special.py)
calls the jax function on operands that already have the result's dtype."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from weaktrace.core.primitives import (
    FLOAT,
    INEXACT,
    NUMERIC,
    _def,
    _require,
    _same_dtypes,
    broadcast_shapes,
)
from weaktrace.dtypes import registry
from weaktrace.errors import ComplexInputError, ComplexNotImplementedError, ShapeError
from weaktrace.ir.values import AbstractValue, Primitive

_make = AbstractValue.make
_KINDS_TEXT = {FLOAT: "a real floating dtype", INEXACT: "a floating or complex dtype",
               NUMERIC: "a number (not bool)", "fc": "a floating or complex dtype",
               "c": "a complex dtype"}  # fmt: skip


# jax.scipy.special refuses complex operands of these with ValueError, in these words.
_COMPLEX_WORDS = {n: f"{n} does not support complex-valued inputs." for n in (
    "beta", "betainc", "dawsn", "entr", "exp1", "expi", "expn", "gammasgn", "hyp1f1",
    "kl_div", "rel_entr")}  # fmt: skip
_COMPLEX_WORDS["poch"] = "jnp.poch does not support complex-valued inputs."


def _joined(name: str, avals: Sequence[AbstractValue], kinds: str) -> AbstractValue:
    dt = _same_dtypes(name, avals)
    if dt.kind == "c" and name in _COMPLEX_WORDS:
        raise ComplexInputError(f"{_COMPLEX_WORDS[name]} Got dtype {dt}.")
    if dt.kind == "c" and name == "sici":
        raise ComplexInputError(f"Argument `x` to sici must be real-valued. Got dtype {dt}.")
    if dt.kind == "c" and name == "fresnel":
        raise ComplexNotImplementedError(
            f"fresnel: support for complex-valued inputs is not implemented yet (got {dt})."
        )
    _require(name, avals[0], kinds, _KINDS_TEXT.get(kinds, kinds))
    shapes = [a[0] for a in avals]
    shape = broadcast_shapes(name, shapes) if len(set(shapes)) > 1 else shapes[0]
    return _make(shape, dt, all(a[2] for a in avals))


def elementwise(
    name: str, kinds: str, n_out: int = 1, out: str | None = None, weak: bool | str = True
) -> Primitive:
    """An elementwise primitive: operands of one dtype, any static params; `n_out`
    results of that dtype (see ELEMENTWISE for `out`), weak iff `weak` and every operand
    is (`weak="real"`: and the result is not complex)."""

    def rule(*avals: AbstractValue, **params: Any) -> list[AbstractValue]:
        a = _joined(name, avals, kinds)
        dt = a[1]
        if out == "c":
            dt = _complex_of(dt)
        elif out == "param":
            dt = params["dtype"]
        weak_out = (a[2] and bool(weak) and (name not in _ZERO_OF_P or not avals[0][0])
                    and (weak != "real" or dt.kind != "c"))  # fmt: skip
        return [_make(a[0], dt, weak_out)] * n_out

    return _def(name, rule, multiple_results=n_out > 1)


# jax's rel_entr (and kl_div through it) mixes in lax._const(p, 0): a Python scalar (weak)
# for a weak 0-d p, a strong array of p's dtype for any other p, weak or not
_ZERO_OF_P = frozenset({"rel_entr", "kl_div"})


def _complex_of(dt: Any) -> Any:
    return (
        registry.by_name("complex128" if dt.bits == 64 else "complex64") if dt.kind == "f" else dt
    )


def _reduced(shape: tuple[int, ...], axis: tuple[int, ...], keepdims: bool) -> tuple[int, ...]:
    if keepdims:
        return tuple(1 if i in axis else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axis)


def _along_axes(x: AbstractValue, *rest: AbstractValue, axis: tuple[int, ...],
                has_where: bool, dtype: Any, weak: bool) -> list[AbstractValue]:  # fmt: skip
    _require("softmax", x, NUMERIC, "a number (not bool)")
    if any(not 0 <= a < len(x[0]) for a in axis):
        raise ShapeError(f"axis {axis} out of range for shape {x[0]}")
    return [_make(x[0], dtype, weak)]


# softmax / log_softmax (x, [where]; where broadcast to x's shape). x keeps its dtype (jax
# subtracts the maximum in x's own dtype, integers wrap); the result has the inexact
# `dtype` weaktrace's promotion chose.
softmax_p = _def("softmax", _along_axes)
log_softmax_p = _def("log_softmax", _along_axes)


def _logsumexp(a: AbstractValue, *rest: AbstractValue, axis: tuple[int, ...], keepdims: bool,
               return_sign: bool, has_b: bool, has_where: bool) -> list[AbstractValue]:  # fmt: skip
    _require("logsumexp", a, INEXACT, "a floating or complex dtype")
    if has_b:
        _same_dtypes("logsumexp", [a, rest[0]])
    shape = _reduced(a[0], axis, keepdims)
    weak = False  # jax's result is strong: its maximum has initial=-inf
    if not return_sign:
        return [_make(shape, a[1], weak)]
    # with return_sign jax takes abs(sum) first: the result is real, the sign complex
    return [_make(shape, _real_of(a[1]), weak), _make(shape, a[1], weak)]


def _real_of(dt: Any) -> Any:
    return registry.by_name({"complex64": "float32", "complex128": "float64"}.get(dt.name, dt.name))


logsumexp_p = _def("logsumexp", _logsumexp, multiple_results=True)


def _logmeanexp(x: AbstractValue, *rest: AbstractValue, axis: tuple[int, ...], keepdims: bool,
                has_where: bool) -> list[AbstractValue]:  # fmt: skip
    _require("logmeanexp", x, INEXACT, "a floating or complex dtype")
    # strong whatever x is, as jax's: logsumexp's maximum has initial=-inf
    return [_make(_reduced(x[0], axis, keepdims), x[1], False)]


logmeanexp_p = _def("logmeanexp", _logmeanexp)


def _bessel_jn(z: AbstractValue, *, v: int, n_iter: int) -> list[AbstractValue]:
    _require("bessel_jn", z, FLOAT, "a real floating dtype")
    return [_make((v + 1, *z[0]), z[1], z[2])]


bessel_jn_p = _def("bessel_jn", _bessel_jn)


def _bernoulli(*, n: int, dtype: Any) -> list[AbstractValue]:
    if n < 0:
        raise ValueError("bernoulli: n must be a non-negative integer.")
    return [_make((n + 1,), dtype, False)]


bernoulli_p = _def("bernoulli", _bernoulli)


def _sph_harm_y(*avals: AbstractValue, n_max: int, dtype: Any) -> list[AbstractValue]:
    n = avals[0]
    if len(n[0]) != 1:
        raise ShapeError(f"sph_harm_y: n must be one-dimensional, got shape {n[0]}")
    for a in avals[:2]:
        _require("sph_harm_y", a, "iu", "an integer dtype")
    shape = broadcast_shapes("sph_harm_y", [a[0] for a in avals])
    return [_make(shape, dtype, False)]


sph_harm_y_p = _def("sph_harm_y", _sph_harm_y)


def _log1mexp(x: AbstractValue, *, dtype: Any, weak: bool) -> list[AbstractValue]:
    # jax negates x in its own dtype (unsigned integers wrap) before exp / expm1; complex x
    # computes too (jax compares x < log 2 lexicographically to choose the branch)
    _require("log1mexp", x, "uifc", "a number (not bool)")
    return [_make(x[0], dtype, weak)]


log1mexp_p = _def("log1mexp", _log1mexp)


# name -> (accepted kinds, number of results, result dtype rule, weak results?) of the
# elementwise ones. The result dtype is the operands' (promoted) dtype, or: "c" its complex
# counterpart, "param" the `dtype` param the mirror chose (owens_t: jax's quadrature mixes
# in strong float64 weights, so the result is the operands' dtype joined with float64).
# jax's results are strong where its definition mixes in strong constants (gamma, hyp1f1 ...);
# "real": weak for real results only (complex loggamma ends in a where with a strong NaN).
ELEMENTWISE: dict[str, tuple[str, int, str | None, bool | str]] = {
    # jax.nn (custom JVPs)
    "relu": (NUMERIC, 1, None, True), "relu6": (NUMERIC, 1, None, True),
    # jax.scipy.special
    "xlogy": (INEXACT, 1, None, True), "xlog1py": (INEXACT, 1, None, True),
    "entr": (FLOAT, 1, None, True), "logit": (INEXACT, 1, None, True),
    "zeta": (FLOAT, 1, None, True), "polygamma": (FLOAT, 1, None, True),
    "betainc": (FLOAT, 1, None, True), "gamma": (INEXACT, 1, None, False),
    "loggamma": (INEXACT, 1, None, "real"), "gammasgn": (FLOAT, 1, None, False),
    "beta": (FLOAT, 1, None, False), "betaln": (FLOAT, 1, None, True),
    "factorial": (FLOAT, 1, None, True), "comb": (FLOAT, 1, None, True),
    "boxcox": (INEXACT, 1, None, True), "boxcox1p": (INEXACT, 1, None, True),
    "dawsn": (FLOAT, 1, None, False), "erfcx": (INEXACT, 1, None, False),
    "exp1": (FLOAT, 1, None, False), "expi": (FLOAT, 1, None, False),
    "expn": (FLOAT, 1, None, False), "fresnel": (FLOAT, 2, None, False),
    "hyp1f1": (FLOAT, 1, None, False), "hyp2f1": (FLOAT, 1, None, False),
    "i0": (FLOAT, 1, None, True), "i1": (FLOAT, 1, None, True),
    "kl_div": (FLOAT, 1, None, True), "rel_entr": (FLOAT, 1, None, True),
    "log_ndtr": (FLOAT, 1, None, False), "ndtr": (FLOAT, 1, None, False),
    "ndtri": (FLOAT, 1, None, False), "multigammaln": (FLOAT, 1, None, False),
    "owens_t": (INEXACT, 1, "param", False), "poch": (FLOAT, 1, None, False),
    "sici": (FLOAT, 2, None, False), "spence": (FLOAT, 1, None, False),
    "wofz": ("c", 1, None, False),
}  # fmt: skip

PRIMS: dict[str, Primitive] = {
    name: elementwise(name, kinds, n_out, out, weak)
    for name, (kinds, n_out, out, weak) in ELEMENTWISE.items()
}
