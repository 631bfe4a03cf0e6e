"""What every mirror namespace (weaktrace.numpy, .lax, .nn, ...) shares: `exporter`.

A mirror function has one code path; called eagerly by the user, its result (a
tracer of the eager context) is handed back as a jax array, as jax would; called by
another mirror (which passes tracers), it stays a tracer.
"""

from __future__ import annotations

import functools
import importlib
import types
from collections.abc import Callable
from typing import Any, TypeVar

import jax
import numpy as np

from weaktrace.core import eager_jit
from weaktrace.core.eager_jit import FALLBACK, EagerJit
from weaktrace.core.operands import foreign_extended, to_jax
from weaktrace.core.trace import Tracer, current, pinning
from weaktrace.errors import InvalidInputError

_GENERATOR = types.GeneratorType

F = TypeVar("F", bound=Callable[..., Any])
_ARRAY = type(jax.numpy.zeros(()))  # jax's concrete array class (ArrayImpl)


# Classes of positional arguments that are neither a tracer, nor a container that could
# hold one, nor a generator: an eager call whose positional arguments all are one of
# these is from user code and needs no argument rewriting, decided with one set lookup
# per argument (`_internal` and the generator check cost ~0.35 us per Python scalar).
_LEAVES = frozenset(
    {_ARRAY, int, float, complex, bool, type(None), str, np.ndarray}
    | {type(np.dtype(c).type(0)) for c in "?bBhHiIlLqQefdgFDG"}
)
_SEQUENCES = (tuple, list)


def _internal(args: tuple[Any, ...]) -> bool:
    """A call from inside weaktrace: users never hold eager tracers."""
    for a in args:
        c = a.__class__
        if c is _ARRAY:  # the common eager case, decided at once
            continue
        if c is Tracer or (isinstance(a, _SEQUENCES) and any(v.__class__ is Tracer for v in a)):
            return True
    return False


def _read_generators(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments with each one-shot argument (axis=(i for i in ...)) read once, as a
    tuple, so that the compiled path and its eager fallback see the same values."""
    args = tuple(tuple(a) if type(a) is _GENERATOR else a for a in args)
    kwargs = {k: tuple(v) if type(v) is _GENERATOR else v for k, v in kwargs.items()}
    return args, kwargs


def _traced(out: Any) -> bool:
    """A container holding tracers of a (non-eager) trace: the function was called
    inside a trace with its tracers nested in pytrees (dicts), not eagerly."""
    return any(
        leaf.__class__ is Tracer and not leaf.ctx.eager for leaf in jax.tree_util.tree_leaves(out)
    )


def exporter(
    registry: dict[str, Callable[..., Any]],
    compile_key: Callable[[], Any] | None = None,
    *,
    counterpart: str | None = None,
) -> Callable[[F], F]:
    """A decorator that registers a mirror function in `registry` under its name and
    makes its eager results jax arrays. `compile_key` names global state that the
    traced program reads but jax.jit's cache does not key on (weaktrace.random: the
    default PRNG implementation raw keys are read with); each value gets its own
    compiled eager path, as each gives jax's eager functions another answer.

    `compile_key` may answer `FALLBACK`: the call then runs uncompiled (state whose
    effect is on every call, not on the traced program: jax's legacy-key warnings).

    `counterpart` names the jax module the namespace mirrors ("jax.lax"): a call
    outside any weaktrace trace with a jax value of an extended dtype weaktrace has
    no type for (a custom element type; see `foreign_extended`) is handed to that
    module's function of the same name, which is the reference for it."""

    def export(fn: F) -> F:
        def foreign(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            if counterpart is None or current() is not None:
                return None
            if not foreign_extended((args, kwargs)):
                return None
            return getattr(importlib.import_module(counterpart), fn.__name__, None)

        def finish(args: tuple[Any, ...], out: Any) -> Any:
            if out.__class__ is Tracer:
                if not out.ctx.eager or _internal(args):
                    return out
                return to_jax(out)
            if isinstance(out, tuple | list | dict) and not _internal(args):
                return out if _traced(out) else to_jax(out)
            return out

        compiled: dict[Any, EagerJit] = {}  # made on the first eager call
        # (EagerJit, its jitted function) of compile_key None while it runs compiled:
        # the warm path reads it without the key, the dict or the EagerJit's flags
        hot: list[Any] = []

        def failed(ej: EagerJit, err: Exception, args: Any, kwargs: Any) -> Any:
            """The jax function to hand the call to, or None after counting a failure
            (the caller then evaluates eagerly, which gives the error or runs it)."""
            other = foreign(args, kwargs) if type(err) is InvalidInputError else None
            if other is None:
                ej.failed(err)
                if not ej.fast:
                    hot.clear()
            return other

        @functools.wraps(fn)
        def public(*args: Any, **kwargs: Any) -> Any:
            # An eager call from user code runs compiled: no source line is needed, so
            # nothing is pinned (this is the path whose cost is jax.jit's dispatch).
            for a in args:
                if a.__class__ not in _LEAVES:  # a tracer, container or generator maybe
                    if _GENERATOR in map(type, args) or (
                        kwargs and _GENERATOR in map(type, kwargs.values())
                    ):
                        args, kwargs = _read_generators(args, kwargs)
                    # a call from inside weaktrace (a tracer first: decided at once)
                    uncompiled = a.__class__ is Tracer or _internal(args)
                    break
            else:  # ~0.05 us per argument: every eager call pays it
                uncompiled = False
                if kwargs and _GENERATOR in map(type, kwargs.values()):
                    args, kwargs = _read_generators(args, kwargs)
                elif hot and current() is None and eager_jit.ENABLED:
                    # the warm path: jax.jit's dispatch with one frame of ours before it
                    ej, jitted = hot
                    try:
                        return jitted(*args, **kwargs) if kwargs else jitted(*args)
                    except Exception as err:
                        if (other := failed(ej, err, args, kwargs)) is not None:
                            return other(*args, **kwargs)
                    uncompiled = True  # evaluated eagerly below: it gives the error
            if (
                not uncompiled
                and current() is None
                and eager_jit.ENABLED
                and (key := None if compile_key is None else compile_key()) is not FALLBACK
            ):
                ej = compiled.get(key)
                if ej is None:
                    ej = compiled[key] = EagerJit(fn)
                if ej.fast:  # jax.jit's dispatch, with no Python frame of ours between
                    if compile_key is None:
                        hot[:] = (ej, ej.jitted)
                    try:
                        return ej.jitted(*args, **kwargs) if kwargs else ej.jitted(*args)
                    except Exception as err:
                        if (other := failed(ej, err, args, kwargs)) is not None:
                            return other(*args, **kwargs)
                elif ej.failures < eager_jit.GIVE_UP:
                    out = ej(args, kwargs)
                    if out is not FALLBACK:
                        return out
            pin = pinning(1)  # the user's line, for every equation this call records
            try:
                return finish(args, fn(*args, **kwargs))
            except InvalidInputError:
                other = foreign(args, kwargs)
                if other is None:
                    raise
                return other(*args, **kwargs)
            finally:
                if pin is not None:  # None: called from inside weaktrace or a public call
                    pin.src = None

        registry[fn.__name__] = public
        return public  # type: ignore[return-value]

    return export


def keeps_commitment(registry: dict[str, Callable[..., Any]], name: str, placement: str) -> Any:
    """Wrap the registered mirror `name` (``lax.full_like`` or a jnp ``*_like`` built on
    it) so that, as jax's, its result for a concrete array committed to a device (by
    ``jax.device_put``) is committed to that array's sharding, unless it is weak or
    the call places it itself (the `placement` keyword: device=, sharding=)."""
    mirror = registry[name]

    @functools.wraps(mirror)
    def like(x: Any, *args: Any, **kwargs: Any) -> Any:
        out = mirror(x, *args, **kwargs)
        if (
            x.__class__ is _ARRAY
            and out.__class__ is _ARRAY
            and x.committed
            and not out.committed
            and not out.weak_type
            and kwargs.get(placement) is None
        ):
            return jax.device_put(out, x.sharding)
        return out

    registry[name] = like
    return like
