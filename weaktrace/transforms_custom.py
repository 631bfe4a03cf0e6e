"""``jax.custom_gradient`` and ``jax.closure_convert`` called inside a weaktrace trace.

``jax.custom_gradient(fun)``: `fun` returns the value and its vjp as a Python closure over
the forward pass. jax builds a ``custom_vjp`` whose rules are its own functions, which
never run on weaktrace values, so its call inside a trace raised ForeignFunctionError.
Here `fun` is traced by weaktrace once, with the cotangent as an extra input, into a
sub-program giving both the value and ``vjp(cotangent)``; when the program lowers, jax's
``custom_gradient`` is applied to a function of jax's values whose vjp is that
sub-program at the real cotangent (the forward pass is recomputed there, as under
``jax.checkpoint``): jax's checks and its gradients' dtypes apply.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from weaktrace.core.operands import operand
from weaktrace.core.program import make_program
from weaktrace.core.source import users_frame
from weaktrace.core.trace import Builder, current
from weaktrace.lowering.rules import convert
from weaktrace.lowering.stages import spec
from weaktrace.transforms import ORIGINAL, _eager_values, _jax_values, bind_transform


def _zeros(s: Any) -> Any:
    """A zero cotangent of `s`'s type (its weak flag too)."""
    return convert(np.zeros(s.shape, s.dtype), new_dtype=s.dtype, weak_type=s.weak_type)


def _wrap_custom_gradient() -> None:
    original = ORIGINAL["custom_gradient"] = jax.custom_gradient

    @functools.wraps(original)
    def custom_gradient(fun: Callable[..., Any]) -> Any:
        wrapped = original(fun)
        if not users_frame(sys._getframe(1)):
            return wrapped

        @functools.wraps(fun)
        def call(*args: Any, **kwargs: Any) -> Any:
            b = current()
            if not isinstance(b, Builder) or _jax_values((args, kwargs)):
                return wrapped(*_eager_values(args), **_eager_values(kwargs))
            return _bind_custom_gradient(b, fun, args, kwargs)

        return call

    jax.custom_gradient = custom_gradient


def _bind_custom_gradient(b: Builder, fun: Callable[..., Any], args: tuple[Any, ...],
                          kwargs: dict[str, Any]) -> Any:  # fmt: skip
    leaves, in_tree = jax.tree_util.tree_flatten((args, kwargs))
    avals = [operand(x, b).aval for x in leaves]

    def value(*tracers: Any) -> Any:
        a, k = jax.tree_util.tree_unflatten(in_tree, tracers)
        return fun(*a, **k)[0]

    made = make_program(value, avals, b.policy, nested=True)  # the value's types only
    ct_specs = jax.tree_util.tree_unflatten(
        made.out_tree, [spec(v.aval, b.policy) for v in made.program.outvars]
    )

    def both(args: Any, kwargs: Any, ct: Any) -> Any:
        out, rule = fun(*args, **kwargs)
        return out, rule(ct)

    def apply(fn: Callable[..., Any], args: Any, kwargs: Any, specs: Any) -> Any:
        zero = jax.tree_util.tree_map(_zeros, specs)

        def with_rule(*a: Any, **k: Any) -> Any:
            return fn(a, k, zero)[0], lambda ct: fn(a, k, ct)[1]

        return original(with_rule)(*args, **kwargs)

    original = ORIGINAL["custom_gradient"]
    name = getattr(fun, "__name__", type(fun).__name__)
    return bind_transform("custom_gradient", {"fun": name}, apply, both,
                          (args, kwargs, ct_specs), {}, (2,))  # fmt: skip


def install() -> None:
    """Wrap these jax functions (once)."""
    if "custom_gradient" in ORIGINAL:
        return
    _wrap_custom_gradient()
