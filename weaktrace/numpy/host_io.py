"""Host input/output: jax.numpy's eager-only functions that read bytes, strings and
files into arrays (or write them). They run on concrete values only, as jax's do; the
arrays they make enter weaktrace through ``asarray``, so dtypes follow the policy
(64-bit values become 32-bit with x64 off, as in jax)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from weaktrace.errors import InvalidInputError
from weaktrace.numpy._core import EXPORTS, Tracer, export
from weaktrace.numpy.creation import asarray

__all__ = ["from_dlpack", "frombuffer", "fromfile", "fromiter", "fromstring", "load"]

# The writers are numpy's own functions, as in jax.numpy (jnp.save is np.save).
save = EXPORTS["save"] = np.save
savez = EXPORTS["savez"] = np.savez


def _host(name: str, value: Any) -> None:
    if value.__class__ is Tracer:
        raise InvalidInputError(
            f"weaktrace.numpy.{name} reads host data and cannot take a traced value; call "
            "it outside the traced function and pass the array in"
        )


@export
def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Any:
    """``jax.numpy.frombuffer``: the bytes of `buffer` as a 1-d array."""
    _host("frombuffer", buffer)
    return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


@export
def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Any:
    """``jax.numpy.fromstring``: numbers parsed from a text string (``sep`` required)."""
    _host("fromstring", string)
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


@export
def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Any:
    """``jax.numpy.from_dlpack``: an array from any object with ``__dlpack__``."""
    import jax.dlpack

    _host("from_dlpack", x)
    return jax.dlpack.from_dlpack(x, device=device, copy=copy)


@export
def load(file: Any, *args: Any, **kwargs: Any) -> Any:
    """``jax.numpy.load``: ``numpy.load``, with an array result made a jax array."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":  # numpy saves bfloat16 (which it does not know) as void16
            out = out.view(ml_dtypes.bfloat16)
        try:
            return asarray(out)
        except (TypeError, InvalidInputError):  # object arrays stay numpy's, as in jax
            return out
    return out


@export
def fromfile(*args: Any, **kwargs: Any) -> Any:
    """``jax.numpy.fromfile``: not provided (as in jax: reading files is not pure)."""
    raise NotImplementedError(
        "weaktrace.numpy.fromfile() is not implemented, as jnp.fromfile is not: reading a "
        "file is not pure. Use weaktrace.numpy.asarray(numpy.fromfile(...)) instead."
    )


@export
def fromiter(*args: Any, **kwargs: Any) -> Any:
    """``jax.numpy.fromiter``: not provided (as in jax: an iterator is not pure)."""
    raise NotImplementedError(
        "weaktrace.numpy.fromiter() is not implemented, as jnp.fromiter is not: consuming "
        "an iterator is not pure. Use weaktrace.numpy.asarray(numpy.fromiter(...)) instead."
    )
