"""jax's API beyond its transformations, called on traced values inside a weaktrace trace.

Real JAX programs call ``jax.device_put``, ``jax.pure_callback``, ``jax.linearize``,
``jax.linear_transpose`` or ``jax.experimental.ode.odeint`` on the values they compute.
Under ``weaktrace.trace`` those values are weaktrace tracers, which jax's functions cannot
take: each of these raised ForeignFunctionError. They are wrapped here as the
transformations are in `weaktrace.transforms`: outside a weaktrace trace (and for calls
from weaktrace itself) the wrapper is jax's function; inside, the call is recorded as a
``jax_transform`` equation (`bind_transform`) whose lowering calls jax's function on
jax's values, so its output types and values are jax's.

A call that runs no user function (``device_put``, ``pure_callback``, ``checkpoint_name``)
is recorded as jax's function applied to the identity sub-program of its arguments
(`_jax_call`); one that runs a user function (``odeint``'s vector field, the linear
function ``linear_transpose`` transposes) traces it into the sub-program.

Functions of jax's submodules are wrapped where they live (``jax.experimental.ode.odeint``,
``jax.ad_checkpoint.checkpoint_name``): a name bound by ``from ... import`` before weaktrace
is imported stays jax's, and raises ForeignFunctionError on traced values.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import jax

from weaktrace.core.operands import operand
from weaktrace.core.source import users_frame
from weaktrace.core.trace import Builder, Tracer, current
from weaktrace.lowering.stages import spec
from weaktrace.transforms import ORIGINAL, _eager_values, _has_tracer, _jax_values, bind_transform


def _identity(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
    return args, kwargs


def _jax_call(name: str, options: dict[str, Any], call: Callable[..., Any], args: tuple[Any, ...],
              kwargs: dict[str, Any]) -> Any:  # fmt: skip
    """Record ``call(*args, **kwargs)``, a jax function of arrays that calls no user
    function, applied to the traced arguments when the program runs."""

    def apply(fn: Callable[..., Any], *a: Any, **k: Any) -> Any:
        a, k = fn(*a, **k)  # the identity sub-program: jax's values of the arguments
        return call(*a, **k)

    return bind_transform(name, options, apply, _identity, args, kwargs)


def _inside(frame: Any, tree: Any) -> bool:
    """Whether the call is the user's, inside a weaktrace trace, not on jax's values."""
    return isinstance(current(), Builder) and users_frame(frame) and not _jax_values(tree)


def _wrap_device_put() -> None:
    """``jax.device_put(x, device)``: under jax.jit, a ``device_put`` of the traced value
    (on one CPU device it changes nothing but may drop the weak flag, as jax's does)."""
    original = ORIGINAL["device_put"] = jax.device_put

    @functools.wraps(original)
    def device_put(x: Any, device: Any = None, **kw: Any) -> Any:
        if not _inside(sys._getframe(1), x) or not _has_tracer(x):
            return original(_eager_values(x), device, **kw)
        return _jax_call("device_put", dict(kw, device=device),
                         lambda v: original(v, device, **kw), (x,), {})  # fmt: skip

    def to_device(self: Tracer, device: Any, *, stream: Any = None) -> Any:
        """``x.to_device(device)``: jax.Array's method is ``jax.device_put(x, device)``,
        recorded as that call is (a tracer is a jax.Array, whose base raises here)."""
        if stream is not None:
            raise NotImplementedError("stream argument of array.to_device()")  # as jax
        return _jax_call("device_put", {"device": device},
                         lambda v: original(v, device), (self,), {})  # fmt: skip

    jax.device_put = device_put
    Tracer.to_device = to_device  # type: ignore[attr-defined]


def _wrap_device_get() -> None:
    """``jax.device_get`` of a traced value gives it back, as jax's does for its tracers."""
    original = ORIGINAL["device_get"] = jax.device_get

    @functools.wraps(original)
    def device_get(x: Any) -> Any:
        if not _inside(sys._getframe(1), x) or not _has_tracer(x):
            return original(_eager_values(x))
        return jax.tree_util.tree_map(lambda y: y if y.__class__ is Tracer else original(y), x)

    jax.device_get = device_get


def _wrap_callbacks() -> None:
    """``jax.pure_callback`` and ``jax.experimental.io_callback`` of traced values: the
    callback runs on the host when the program runs, as under jax.jit (and under a
    ``jax.vmap`` around it, by its ``vmap_method``)."""
    import jax.experimental as experimental

    pure = ORIGINAL["pure_callback"] = jax.pure_callback
    io = ORIGINAL["experimental.io_callback"] = experimental.io_callback

    @functools.wraps(pure)
    def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                      sharding: Any = None, vmap_method: str | None = None,
                      **kwargs: Any) -> Any:  # fmt: skip
        if not _inside(sys._getframe(1), (args, kwargs)):
            return pure(callback, result_shape_dtypes, *_eager_values(args), sharding=sharding,
                        vmap_method=vmap_method, **_eager_values(kwargs))  # fmt: skip

        def call(*a: Any, **k: Any) -> Any:
            return pure(callback, result_shape_dtypes, *a, sharding=sharding,
                        vmap_method=vmap_method, **k)  # fmt: skip

        options = {"callback": _name(callback), "vmap_method": vmap_method}
        return _jax_call("pure_callback", options, call, args, kwargs)

    @functools.wraps(io)
    def io_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                    sharding: Any = None, ordered: bool = False, **kwargs: Any) -> Any:  # fmt: skip
        if not _inside(sys._getframe(1), (args, kwargs)):
            return io(callback, result_shape_dtypes, *_eager_values(args), sharding=sharding,
                      ordered=ordered, **_eager_values(kwargs))  # fmt: skip

        def call(*a: Any, **k: Any) -> Any:
            return io(callback, result_shape_dtypes, *a, sharding=sharding, ordered=ordered, **k)

        options = {"callback": _name(callback), "ordered": ordered}
        return _jax_call("io_callback", options, call, args, kwargs)

    jax.pure_callback = pure_callback
    experimental.io_callback = io_callback


def _name(f: Any) -> str:
    return str(getattr(f, "__name__", type(f).__name__))


def _wrap_checkpoint_name() -> None:
    """``jax.ad_checkpoint.checkpoint_name(x, name)``: the name a ``jax.checkpoint``
    policy (save_only_these_names ...) reads, given to jax's value when the program runs."""
    import jax.ad_checkpoint as ad_checkpoint

    original = ORIGINAL["ad_checkpoint.checkpoint_name"] = ad_checkpoint.checkpoint_name

    @functools.wraps(original)
    def checkpoint_name(x: Any, name: Any) -> Any:
        if not _inside(sys._getframe(1), x) or not _has_tracer(x):
            return original(_eager_values(x), name)
        return _jax_call("checkpoint_name", {"name": name}, lambda v: original(v, name), (x,), {})

    ad_checkpoint.checkpoint_name = checkpoint_name


def _specs(tree: Any, b: Builder) -> Any:
    """The arguments' abstract values as jax.ShapeDtypeStructs (with their weak flags)."""
    return jax.tree_util.tree_map(lambda x: spec(operand(x, b).aval, b.policy), tree)


def _wrap_linear_transpose() -> None:
    """``jax.linear_transpose(fun, *primals)(ct)`` inside a trace: only the primals' types
    are used (as jax uses them); the transpose records jax's transpose of `fun` traced
    by weaktrace (closed-over tracers are constants of the linear map)."""
    original = ORIGINAL["linear_transpose"] = jax.linear_transpose

    @functools.wraps(original)
    def linear_transpose(fun: Callable[..., Any], *primals: Any, **kw: Any) -> Any:
        b = current()
        if not _inside(sys._getframe(1), primals) or not isinstance(b, Builder):
            return original(fun, *_eager_values(primals), **kw)
        specs = _specs(primals, b)  # jax's errors for them come at the transpose's call

        def apply(fn: Callable[..., Any], specs: Any, cts: Any) -> Any:
            return original(fn, *specs, **kw)(*cts)

        @functools.wraps(fun)
        def transpose(*cts: Any) -> Any:
            return bind_transform("linear_transpose", kw, apply, fun, (specs, cts), {}, (0,))

        return transpose

    jax.linear_transpose = linear_transpose


def _wrap_linearize() -> None:
    """``out, f_jvp = jax.linearize(fun, *primals)`` inside a trace: `out` (and the aux)
    is jax's linearize output; each ``f_jvp(*tangents)`` records jax's linearize of
    `fun` applied to the tangents."""
    original: Any = jax.linearize
    ORIGINAL["linearize"] = original

    @functools.wraps(original)
    def linearize(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
        if not _inside(sys._getframe(1), primals):
            return original(fun, *_eager_values(primals), has_aux=has_aux)

        def value(fn: Callable[..., Any], primals: Any) -> Any:
            got = original(fn, *primals, has_aux=has_aux)
            return (got[0], got[2]) if has_aux else got[0]

        options = {"has_aux": has_aux}
        first = bind_transform("linearize", options, value, fun, (primals,), {})

        def apply(fn: Callable[..., Any], primals: Any, tangents: Any) -> Any:
            return original(fn, *primals, has_aux=has_aux)[1](*tangents)

        def f_jvp(*tangents: Any) -> Any:
            return bind_transform("linearize", options, apply, fun, (primals, tangents), {})

        return (first[0], f_jvp, first[1]) if has_aux else (first, f_jvp)

    jax.linearize = linearize


def _wrap_odeint() -> None:
    """``jax.experimental.ode.odeint(func, y0, t, *args)`` inside a trace: `func` traced
    by weaktrace at the state's types; jax's odeint (its adaptive stepping, its adjoint
    gradient) of it when the program runs."""
    from jax.experimental import ode

    original = ORIGINAL["experimental.ode.odeint"] = ode.odeint

    @functools.wraps(original)
    def odeint(func: Callable[..., Any], y0: Any, t: Any, *args: Any, **kw: Any) -> Any:
        if not _inside(sys._getframe(1), (y0, t, args)) or not _has_tracer((y0, t, args)):
            return original(func, _eager_values(y0), _eager_values(t), *_eager_values(args), **kw)

        def apply(fn: Callable[..., Any], y0: Any, t: Any, *args: Any) -> Any:
            return original(fn, y0, t, *args, **kw)

        return bind_transform("odeint", kw, apply, func, (y0, t, *args), {})

    ode.odeint = odeint


def _wrap_typeof() -> None:
    """``jax.typeof`` of a traced value: its type as jax's tracer would have it."""
    original = ORIGINAL["typeof"] = jax.typeof

    @functools.wraps(original)
    def typeof(x: Any) -> Any:
        b = current()
        if x.__class__ is not Tracer or not isinstance(b, Builder) or x.ctx is not b:
            return original(_eager_values(x))
        s = spec(x.aval, b.policy)
        return original(jax.ShapeDtypeStruct(s.shape, s.dtype, weak_type=s.weak_type))

    jax.typeof = typeof


def install() -> None:
    """Wrap these jax functions (once)."""
    if "device_put" in ORIGINAL:
        return
    _wrap_device_put()
    _wrap_device_get()
    _wrap_callbacks()
    _wrap_checkpoint_name()
    _wrap_linear_transpose()
    _wrap_linearize()
    _wrap_odeint()
    _wrap_typeof()
