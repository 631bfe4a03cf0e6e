"""jax.nn's functions, written as jax.nn writes them (with weaktrace.numpy and
weaktrace.lax), so that every dtype and weak flag follows from weaktrace's promotion.
relu, relu6, log1mexp, softmax, log_softmax and logmeanexp bind primitives whose
lowering is jax.nn's own function: their custom JVPs (relu's gradient 0 at 0, softmax's)
and their exact numerics come with it."""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from weaktrace import lax as _lax
from weaktrace import numpy as _numpy
from weaktrace.core import primitives as P
from weaktrace.core import primitives_lax as L
from weaktrace.core import primitives_special as S
from weaktrace.core.mirror import exporter
from weaktrace.core.primitives import broadcast_shapes
from weaktrace.errors import ConcretizationError, InvalidInputError, ShapeError
from weaktrace.numpy._core import (
    Tracer,
    axes_arg,
    axis_arg,
    bind,
    broadcast_to,
    context,
    convert,
    lit,
    operand,
    promote,
    promote_args,
)
from weaktrace.scipy._special_core import along_axes
from weaktrace.scipy._special_core import logsumexp as _logsumexp

wnp: Any = _numpy  # the mirror namespaces fill their globals from their export tables
wlax: Any = _lax
EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.nn")


def _arr(name: str, x: Any) -> Any:
    return operand(x, context(x))


def _param(x: Any) -> Any:
    """A parameter (alpha, negative_slope, b ...) as jax sees it: arrays become operands
    (a numpy array would otherwise apply numpy's own operator to a tracer)."""
    return x if isinstance(x, int | float | complex) else operand(x, context(x))


@export
def identity(x: Any) -> Any:
    """``jax.nn.identity``: x itself."""
    return _arr("identity", x)


@export
def relu(x: Any) -> Any:
    """``jax.nn.relu``: ``max(x, 0)``, with jax's custom JVP (gradient 0 at 0)."""
    b = context(x)
    (x, _) = promote_args(b, "relu", (x, 0))
    return bind(S.PRIMS["relu"], x)


@export
def relu6(x: Any) -> Any:
    """``jax.nn.relu6``: ``min(max(x, 0), 6.)``, with jax's custom JVP."""
    b = context(x)
    (x, _) = promote_args(b, "relu6", (x, 0))
    (x, _) = promote_args(b, "relu6", (x, 6.0))
    return bind(S.PRIMS["relu6"], x)


@export
def log1mexp(x: Any) -> Any:
    """``jax.nn.log1mexp``: ``log(1 - exp(-x))``, computed stably, with jax's JVP."""
    b = context(x)
    x = operand(x, b)
    dt, weak = b.policy.promote("log1mexp", [x.aval], "inexact")
    return bind(S.log1mexp_p, x, dtype=dt, weak=weak)


@export
def squareplus(x: Any, b: Any = 4) -> Any:
    """``jax.nn.squareplus``: ``(x + sqrt(x**2 + b)) / 2``."""
    x = _arr("squareplus", x)
    y = x + wnp.sqrt(wnp.square(x) + _param(b))
    return y / 2


@export
def softplus(x: Any) -> Any:
    """``jax.nn.softplus``: ``log(1 + exp(x))`` (``logaddexp(x, 0)``)."""
    return wnp.logaddexp(x, 0)


@export
def sparse_plus(x: Any) -> Any:
    """``jax.nn.sparse_plus``."""
    x = _arr("sparse_plus", x)
    return wnp.where(x <= -1.0, 0.0, wnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@export
def soft_sign(x: Any) -> Any:
    """``jax.nn.soft_sign``: ``x / (abs(x) + 1)``."""
    x = _arr("soft_sign", x)
    return x / (wnp.abs(x) + 1)


@export
def sigmoid(x: Any) -> Any:
    """``jax.nn.sigmoid`` (``lax.logistic``)."""
    return wlax.logistic(x)


@export
def sparse_sigmoid(x: Any) -> Any:
    """``jax.nn.sparse_sigmoid``."""
    x = _arr("sparse_sigmoid", x)
    return 0.5 * wnp.clip(x + 1.0, 0.0, 2.0)


@export
def silu(x: Any) -> Any:
    """``jax.nn.silu`` (also ``swish``): ``x * sigmoid(x)``."""
    x = _arr("silu", x)
    return x * sigmoid(x)


swish = silu
EXPORTS["swish"] = silu


@export
def mish(x: Any) -> Any:
    """``jax.nn.mish``: ``x * tanh(softplus(x))``."""
    x = _arr("mish", x)
    return x * wnp.tanh(softplus(x))


@export
def log_sigmoid(x: Any) -> Any:
    """``jax.nn.log_sigmoid``: ``-softplus(-x)``."""
    x = _arr("log_sigmoid", x)
    return -softplus(-x)


@export
def elu(x: Any, alpha: Any = 1.0) -> Any:
    """``jax.nn.elu``."""
    x = _arr("elu", x)
    return wnp.where(x > 0, x, _param(alpha) * wnp.expm1(wnp.where(x > 0, 0.0, x)))


@export
def leaky_relu(x: Any, negative_slope: Any = 1e-2) -> Any:
    """``jax.nn.leaky_relu``."""
    x = _arr("leaky_relu", x)
    return wnp.where(x >= 0, x, _param(negative_slope) * x)


@export
def hard_tanh(x: Any) -> Any:
    """``jax.nn.hard_tanh``."""
    x = _arr("hard_tanh", x)
    return wnp.where(x > 1, 1, wnp.where(x < -1, -1, x))


@export
def celu(x: Any, alpha: Any = 1.0) -> Any:
    """``jax.nn.celu``."""
    alpha = _param(alpha)
    return wnp.maximum(x, 0.0) + alpha * wnp.expm1(wnp.minimum(x, 0.0) / alpha)


@export
def selu(x: Any) -> Any:
    """``jax.nn.selu``."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


@export
def gelu(x: Any, approximate: bool = True) -> Any:
    """``jax.nn.gelu``: the tanh approximation, or (``approximate=False``) the exact
    ``x / 2 * erfc(-x / sqrt(2))``; its constants have x's dtype (strong), as jax's."""
    b = context(x)
    (x,) = promote_args(b, "gelu", (x,), "inexact")
    dt = x.aval[1]
    if approximate:
        c = lit(b, float(np.sqrt(2 / np.pi)), dt, False)
        cdf = 0.5 * (1.0 + wnp.tanh(c * (x + 0.044715 * (x**3))))
        return x * cdf
    half = lit(b, float(np.sqrt(0.5)), dt, False)
    out = 0.5 * x * bind(L.erfc_p, *promote(b, "gelu", [-x * half]))
    return convert(b, out, dt, False)


@export
def glu(x: Any, axis: int = -1) -> Any:
    """``jax.nn.glu``: the first half of x along `axis` times the sigmoid of the second."""
    x = _arr("glu", x)
    ax = axis_arg(axis, len(x.aval[0]), "glu")
    size = x.aval[0][ax]
    if size % 2:
        raise ShapeError("glu: axis size must be divisible by 2")
    x1 = wlax.slice_in_dim(x, 0, size // 2, axis=ax)
    x2 = wlax.slice_in_dim(x, size // 2, size, axis=ax)
    return x1 * sigmoid(x2)


@export
def hard_sigmoid(x: Any) -> Any:
    """``jax.nn.hard_sigmoid``: ``relu6(x + 3.) / 6.``."""
    return relu6(_arr("hard_sigmoid", x) + 3.0) / 6.0


@export
def hard_silu(x: Any) -> Any:
    """``jax.nn.hard_silu`` (also ``hard_swish``): ``x * hard_sigmoid(x)``."""
    x = _arr("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu
EXPORTS["hard_swish"] = hard_silu


@export
def tanh(x: Any, /) -> Any:
    """``jax.nn.tanh`` (``jax.numpy.tanh``)."""
    return wnp.tanh(x)


@export
def softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """``jax.nn.softmax``: ``exp(x - max) / sum(exp(x - max))`` along `axis`; elements
    outside `where` are 0. jax's custom JVP applies."""
    return along_axes(S.softmax_p, "softmax", x, axis, where)


@export
def log_softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """``jax.nn.log_softmax``; elements outside `where` are -inf."""
    return along_axes(S.log_softmax_p, "log_softmax", x, axis, where)


logsumexp = export(_logsumexp)


@export
def logmeanexp(x: Any, axis: Any = None, where: Any = None, keepdims: bool = False) -> Any:
    """``jax.nn.logmeanexp``: ``logsumexp(x) - log(n)``."""
    b = context(*([x] if where is None else [x, where]))
    (x,) = promote_args(b, "logmeanexp", (x,), "inexact")
    ops = [x] if where is None else [x, broadcast_to(operand(where, b), x.aval[0])]
    axes = axes_arg(axis, len(x.aval[0]), "logmeanexp")
    params = {"axis": axes, "keepdims": bool(keepdims), "has_where": where is not None}
    return b.emit(S.logmeanexp_p, tuple(ops), params)


@export
def standardize(
    x: Any,
    axis: Any = -1,
    mean: Any = None,
    variance: Any = None,
    epsilon: Any = 1e-5,
    where: Any = None,
    *,
    algorithm: str = "fast",
) -> Any:
    """``jax.nn.standardize``: ``(x - mean) * rsqrt(variance + epsilon)``."""
    x = _arr("standardize", x)
    if mean is None:
        mean = wnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = wnp.mean(wnp.square(wnp.subtract(x, mean)), axis, keepdims=True, where=where)
        elif algorithm == "fast":
            variance = wnp.mean(wnp.square(x), axis, keepdims=True, where=where) - wnp.square(mean)
            variance = wnp.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return wnp.subtract(x, mean) * wlax.rsqrt(_param(variance) + _param(epsilon))


@export
def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: Any = -1) -> Any:
    """``jax.nn.one_hot``: ``x[..., None] == arange(num_classes)`` as `dtype` (default: the
    policy's default float), the classes along `axis`."""
    try:
        n = operator.index(num_classes)
    except TypeError:
        # jax's error for a traced num_classes: ours, or jax's own (jax.jit(one_hot))
        if isinstance(num_classes, Tracer | jax.core.Tracer):
            raise ConcretizationError(
                "one_hot: num_classes must be a concrete integer (it sets the result's "
                "shape), got a traced value; pass a Python int or mark it static. "
                "The error arose in jax.nn.one_hot argument `num_classes`."
            ) from None
        raise InvalidInputError(
            f"one_hot: num_classes must be a concrete integer, got {num_classes!r}"
        ) from None
    b = context(x)
    x = operand(wnp.asarray(x) if isinstance(x, list | tuple) else x, b)
    if x.aval[1].kind not in "iu":
        warnings.warn(
            f"jax.nn.one_hot input should be integer-typed; got dtype={x.aval[1]}",
            DeprecationWarning,
            stacklevel=2,
        )
    dt = b.policy.defaults["f"] if dtype is None else b.policy.user_dtype(dtype)
    pos = axis_arg(axis, len(x.aval[0]) + 1, "one_hot")
    lhs = wnp.expand_dims(x, pos)
    shape = [1] * len(x.aval[0])
    shape.insert(pos, n)
    rhs = b.emit(P.iota_p, (), {"dtype": x.aval[1], "shape": tuple(shape), "dimension": pos})
    eq = bind(P.eq_p, *_same_shape(lhs, rhs))
    return convert(b, eq, dt, False)


def _same_shape(x: Any, y: Any) -> tuple[Any, Any]:
    shape = broadcast_shapes("one_hot", [x.aval[0], y.aval[0]])
    return broadcast_to(x, shape), broadcast_to(y, shape)


__all__ = sorted(EXPORTS)
