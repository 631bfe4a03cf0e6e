"""What jax's trace loses, recorded while it runs: requested 64-bit dtypes (jax's own
"Explicitly requested dtype" warnings), 64-bit numpy constants given to jax.numpy's
ufuncs and operators or to ``jnp.array``/``jnp.asarray``, and Python int literals that
wrap when jax converts them to a narrower dtype.

The hooks wrap a few jax functions for the duration of one trace (restored after, also
on error) and record each event with the user's file and line.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax._src import source_info_util
from jax._src.interpreters import partial_eval as pe
from jax._src.lax import lax as jlax
from jax._src.numpy import ufunc_api

from weaktrace.ir.values import SourceInfo
from weaktrace.lint.importer import user_source


@dataclass
class Event:
    where: SourceInfo | None
    message: str


@dataclass
class Recorder:
    x64: list[Event] = field(default_factory=list)
    overflow: list[Event] = field(default_factory=list)


def user_here(tb: Any = None) -> SourceInfo | None:
    """The user's frame of a jax traceback (default: the current one)."""
    return user_source(tb if tb is not None else source_info_util.current().traceback)


def out_of_range(value: Any, dtype: Any) -> bool:
    """Whether an integer value does not fit `dtype` (an integer or floating dtype)."""
    try:
        dt = np.dtype(dtype)
        v = int(value)
    except (TypeError, ValueError, OverflowError):
        return False
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return not info.min <= v <= info.max
    if dt.kind == "f":
        return abs(v) > float(np.finfo(dt).max)
    return False


def _is_int_value(x: Any) -> bool:
    return isinstance(x, int | np.integer) and not isinstance(x, bool | np.bool_)


_WIDE = frozenset(np.dtype(t) for t in ("float64", "int64", "uint64", "complex128"))


@contextlib.contextmanager
def recording(x64: bool) -> Iterator[Recorder]:
    rec = Recorder()
    orig_convert = jlax._convert_element_type
    cet = jlax.convert_element_type_p
    orig_fold = pe.const_fold_rules.get(cet)

    def literal(value: Any, new_dtype: Any) -> None:
        if _is_int_value(value) and new_dtype is not None and out_of_range(value, new_dtype):
            rec.overflow.append(
                Event(
                    user_here(), f"Python int {int(value)} does not fit {np.dtype(new_dtype).name}"
                )
            )

    def wide(values: Any) -> None:
        for c in values:
            if isinstance(c, np.ndarray | np.generic) and c.dtype in _WIDE:
                shape = "x".join(map(str, np.shape(c))) or "scalar"
                rec.x64.append(
                    Event(
                        user_here(),
                        f"{c.dtype.name} numpy constant ({shape}) "
                        f"becomes {_narrow(c.dtype)} with x64 off",
                    )
                )

    def ufunc_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not x64:
            wide(args)
        return orig_ufunc(self, *args, **kwargs)

    def make_array(orig: Any) -> Any:
        def array(obj: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> Any:
            if not x64 and dtype is None:
                wide((obj,))
            return orig(obj, dtype, *args, **kwargs)

        return array

    def convert(operand: Any, new_dtype: Any = None, *args: Any, **kwargs: Any) -> Any:
        if type(operand) is int:
            literal(operand, new_dtype)
        return orig_convert(operand, new_dtype, *args, **kwargs)

    def fold(consts: Any, params: Any, out_avals: Any) -> Any:
        c = consts[0] if consts else None
        # a Python int that jax canonicalized (a TypedInt, weakly typed)
        if c is not None and isinstance(c, int) and _weak_const(c):
            literal(int(c), params.get("new_dtype"))
        assert orig_fold is not None
        return orig_fold(consts, params, out_avals)

    def showwarning(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
        text = str(message)
        if "Explicitly requested dtype" in text:
            first = text.split(" is not available")[0].replace("Explicitly requested dtype ", "")
            rec.x64.append(
                Event(user_here(), f"requested dtype {first} becomes 32-bit with x64 off")
            )
        else:
            saved_show(message, category, *args, **kwargs)

    orig_ufunc = ufunc_api.ufunc.__call__
    orig_arrays = (jnp.array, jnp.asarray)
    with warnings.catch_warnings():
        saved_show = warnings.showwarning
        warnings.simplefilter("always")
        warnings.showwarning = showwarning
        jlax._convert_element_type = convert
        ufunc_api.ufunc.__call__ = ufunc_call  # type: ignore[method-assign]
        jnp.array, jnp.asarray = (make_array(f) for f in orig_arrays)
        if orig_fold is not None:
            pe.const_fold_rules[cet] = fold
        try:
            yield rec
        finally:
            jlax._convert_element_type = orig_convert
            ufunc_api.ufunc.__call__ = orig_ufunc  # type: ignore[method-assign]
            jnp.array, jnp.asarray = orig_arrays
            if orig_fold is not None:
                pe.const_fold_rules[cet] = orig_fold


def _weak_const(c: Any) -> bool:
    aval = getattr(c, "aval", None)
    return bool(getattr(aval, "weak_type", False))


def _narrow(dtype: np.dtype) -> str:
    return {"float64": "float32", "int64": "int32", "uint64": "uint32", "complex128": "complex64"}[
        dtype.name
    ]
