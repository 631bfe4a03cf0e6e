"""The placement attributes of ``jax.Array`` on weaktrace tracers (devices, shards).

Tracer subclasses ``jax.Array`` (so ``isinstance(x, jax.Array)`` holds inside a trace,
as under jax.jit), whose base class defines these to raise a bare NotImplementedError.
A traced value has no placement, so each answers as jax's tracers do under jax.jit:
``sharding``, ``device`` and ``copy_to_host_async`` are missing attributes (an
AttributeError, so ``hasattr`` / ``getattr(x, name, default)`` work), the shard queries
need a concrete value, and the two private methods jax's own code calls on arrays
(``_split``, ``_multi_slice``) compute on the tracer. ``to_device`` is a recorded
``jax.device_put`` (installed by weaktrace.transforms_calls). Pickling refuses by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from weaktrace.errors import ConcretizationError, TracerAttributeError
from weaktrace.numpy._core import EXPORTS, Tracer


def _missing(name: str) -> property:
    def get(self: Tracer) -> Any:
        raise TracerAttributeError(
            f"'{name}' is not available on a traced value ({self.aval}): under a trace "
            "nothing is placed on a device yet (jax's tracers have no such attribute "
            "either)."
        )

    return property(get)


def _concrete(self: Tracer, name: str) -> ConcretizationError:
    return ConcretizationError(
        f"{name} needs a concrete array, but this is a tracer {self.aval}: its shards "
        "do not exist while tracing. Read it outside the traced function."
    )


def _needs_value(name: str) -> property:
    def get(self: Tracer) -> Any:
        raise _concrete(self, name)

    return property(get)


def _reduce(self: Tracer) -> Any:
    raise ConcretizationError(
        f"pickling a tracer {self.aval}: its value is "
        "not known while tracing. Return it from the traced function and pickle the result."
    )


def _addressable_data(self: Tracer, index: int) -> Any:
    raise _concrete(self, "x.addressable_data(...)")


def _split(self: Tracer, indices_or_sections: Any, axis: int = 0) -> Any:
    return _unwrapped("split")(self, indices_or_sections, axis)


def _multi_slice(
    self: Tracer,
    start_indices: tuple[tuple[int, ...], ...],
    limit_indices: tuple[tuple[int, ...], ...],
    removed_dims: tuple[tuple[int, ...], ...],
) -> list[Any]:
    """One static slice per (starts, limits), its `removed` axes squeezed."""
    out = []
    for starts, limits, removed in zip(start_indices, limit_indices, removed_dims, strict=True):
        index = tuple(slice(a, b) for a, b in zip(starts, limits, strict=True))
        piece = self[index]  # type: ignore[index]
        out.append(_unwrapped("squeeze")(piece, tuple(removed)) if removed else piece)
    return out


def _unwrapped(name: str) -> Callable[..., Any]:
    f = EXPORTS[name]
    return getattr(f, "__wrapped__", f)


def methods() -> dict[str, Any]:
    """The overrides of every placement attribute jax.Array's base class defines."""
    out: dict[str, Any] = {
        name: _missing(name) for name in ("sharding", "device", "copy_to_host_async")
    }
    shard_queries = ("committed", "addressable_shards", "global_shards")
    out.update({name: _needs_value(name) for name in shard_queries})
    out.update({n: _needs_value(n) for n in ("is_fully_addressable", "is_fully_replicated")})
    # numpy >= 2.4 asks for this before reading `.dtype`; jax's base warns (a deprecation)
    # on it, jax's tracers do not have it: without it np.dtype(x) reads x.dtype
    out["__numpy_dtype__"] = _missing("__numpy_dtype__")
    out.update(
        addressable_data=_addressable_data,
        _split=_split,
        _multi_slice=_multi_slice,
        __reduce__=_reduce,  # jax.Array's base refuses with a bare TypeError
    )
    return out
