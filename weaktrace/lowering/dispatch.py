"""How a traced function is called: jax.jit's own C++ dispatch and cache (whose keys tell
weak from strong inputs exactly as jax's do), with weaktrace's handling of the calls jax
refuses (weaktrace tracers inside another trace, non-native numpy arguments) on misses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from weaktrace.core.arguments import native_args
from weaktrace.core.trace import current
from weaktrace.lowering import stages

_current = current  # bound once: read on every miss


def dispatcher(
    jitted: Any,
    fun: Callable[..., Any],
    x64: bool | None,
    check: Callable[..., bool],
    wrap: Callable[..., Any] | None = None,
) -> Callable[..., Any]:
    """The call path of a traced function: jax.jit's dispatch, whose cache tells weak
    from strong inputs exactly as jax's does. Inside another weaktrace trace the
    arguments are weaktrace tracers, which jax.jit rejects before it traces anything:
    then the function is traced inline, as jax.jit inside jax.jit is. (A try costs
    nothing until it raises; checking for a trace on every call would cost ~8%.)"""
    if x64 is None and wrap is None:
        fast = _with_own_misses(jitted, fun)
        if fast is not None:
            return fast
    if x64 is None:

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                if wrap is not None:
                    a, k = wrap(args, kwargs)
                    return jitted(*a, **k)
                return jitted(*args, **kwargs)
            except (TypeError, ValueError):
                if _current() is None:
                    native = native_args(args, kwargs)
                    if native is None:
                        raise
                    return call(*native[0], **native[1])
            return fun(*args, **kwargs)

        return call

    def call_pinned(*args: Any, **kwargs: Any) -> Any:
        if _current() is not None:
            return fun(*args, **kwargs)
        checked = check(args, kwargs)
        a, k = (args, kwargs) if wrap is None else wrap(args, kwargs)
        with stages.x64_mode(x64):
            try:
                out = jitted(*a, **k)
            except (TypeError, ValueError):
                native = native_args(args, kwargs)
                if native is None:
                    raise
                return call_pinned(*native[0], **native[1])
        if not checked:
            check(args, kwargs)  # the first call traced: the int targets are known now
        return out

    return call_pinned


def _with_own_misses(jitted: Any, fun: Callable[..., Any]) -> Any:
    """jax.jit's own C++ call object, with its cache-miss handler wrapped, or None if
    this jaxlib does not let it be rebuilt.

    Cached calls then cost exactly what a jax.jit call costs: no Python frame of ours
    runs before jax's C++ dispatch, which calls back into Python only on a miss. Every
    call jax cannot serve from its cache is a miss (new signatures, weaktrace tracers,
    argument types it refuses), so the miss handler is where the two cases `call`
    below handles go: inside another weaktrace trace the function is traced inline,
    and arguments numpy takes but jax.jit refuses are retried in their native form.
    The object is rebuilt through jaxlib's pickle protocol (`__getstate__` /
    `__setstate__`, one jaxlib version on both sides); it shares jax's compile cache
    with `jitted` (same function, same cache key), so `jitted` still lowers, reports
    its cache size and clears it."""
    try:
        state = jitted.__getstate__()
        jax_miss = state["cache_miss"]
        cls: Any = type(jitted)
        fast = cls.__new__(cls)
    except (AttributeError, KeyError, TypeError):
        return None

    def miss(*args: Any, **kwargs: Any) -> Any:
        try:
            return jax_miss(*args, **kwargs)
        except (TypeError, ValueError):
            if _current() is not None:  # weaktrace tracers: trace inline
                return fun(*args, **kwargs), None, False  # no fast path for these
            native = native_args(args, kwargs)
            if native is None:
                raise
            # No fast path: jax's signature of '>u4' is that of 'u4', and its C++
            # must not hand the swapped bytes to the executable on a later hit.
            return jax_miss(*native[0], **native[1])[0], None, False

    state["cache_miss"] = miss
    try:
        fast.__setstate__(state)
    except (TypeError, ValueError):
        return None
    return fast
