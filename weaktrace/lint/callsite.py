"""The operands of the user's call to a jax function, read from the frames of a trace.

A conversion made by jax.numpy's promotion helpers is a finding only when the user's
own operands meet: ``jnp.select(conds, [b1, b2])`` stacks the bools with its default 0
(int32), ``jnp.unwrap(i32, 1.0)`` joins the signal with its default ``period=2*pi`` and
``jnp.unravel_index(i, s)`` computes ``s - 1``; the user wrote no promotion in any of
them. So the operands of a call are the arguments the user passed (found from the call
instruction of the user's frame: positional count and keyword names), never the
defaults nor the values the function made itself, and a helper's operand counts only
when it is one of them (or a tracer: jax's own constants are concrete values).
"""

from __future__ import annotations

import dis
import inspect
import os
import types
from typing import Any

import jax
import numpy as np
from jax._src import core, source_info_util
from jax._src import dtypes as jdtypes
from jax._src.numpy import util as jnp_util

from weaktrace.lint.importer import _PACKAGE_DIR

_ARRAY_LIKE = (int, float, complex, np.generic, np.ndarray, jax.Array, core.Tracer)
# the call instruction of the user's frame -> (positional count, keyword names)
_CALLS: dict[tuple[types.CodeType, int], tuple[int, tuple[str, ...]] | None] = {}


def user_file(name: str) -> bool:
    """A file of the user's code: neither jax's, Python's (``<frozen runpy>``) nor
    weaktrace's."""
    return (
        source_info_util.is_user_filename(name)
        and not name.startswith(_PACKAGE_DIR)
        and not name.startswith("<frozen ")
    )


def users_int(frame: Any, value: int) -> bool:
    """Whether the Python int `value` (met in a frame from `frame` on) is one the user's
    call passed, shapes and lists included; True when no user call is on the stack."""
    api = None
    while frame is not None and not user_file(frame.f_code.co_filename):
        api, frame = frame, frame.f_back
    if frame is None or api is None:
        return True
    values = [_receiver(api.f_locals.get(n)) for n in _passed_names(api, frame)]
    return any(type(u) is int and u == value for u in jax.tree_util.tree_leaves(values))


def user_operands_join(frame: Any, helper_operands: list[Any]) -> bool:
    """Whether the user's own operands meet in a join made in `frame` (inside jax):
    those of the user's call (the arguments passed to the jax function below the
    user's frame) join two dtypes, and so do the join's operands less jax's own
    constants (a default such as jnp.unwrap's period, a literal of its code). With no
    user frame on the stack the join's own verdict stands."""
    api = None
    while frame is not None and not user_file(frame.f_code.co_filename):
        api, frame = frame, frame.f_back
    if frame is None or api is None:
        return True
    # one reading per call (jax.tree.map(jnp.add, a, b) promotes once per leaf)
    cached = _VERDICTS.get(id(api))
    if cached is not None and cached[0] is api and cached[1] == api.f_lasti:
        user, verdict = cached[2], cached[3]
    else:
        user = call_operands(api, frame)
        verdict = joins_two(user)
        if len(_VERDICTS) > 64:
            _VERDICTS.clear()
        _VERDICTS[id(api)] = (api, api.f_lasti, user, verdict)
    if not verdict:
        return False
    return joins_two([a for a in helper_operands if not is_own_constant(a, user)])


def forget() -> None:
    """Drop the frames kept for one trace (its calls' verdicts and joins)."""
    _VERDICTS.clear()
    _JOINS.clear()


_VERDICTS: dict[int, tuple[Any, int, list[Any], bool]] = {}
# jax.numpy functions that join their operands with dtypes.result_type and cast them
# to the join themselves (jnp.linspace's start and stop): frame id -> (frame, the
# join's operands, its dtype)
_JOINS: dict[int, tuple[Any, list[Any], np.dtype]] = {}
_NUMPY_DIR = os.path.dirname(os.path.abspath(jnp_util.__file__)) + os.sep


def note_join(frame: Any, args: Any, joined: Any) -> None:
    """Record a dtypes.result_type call made in `frame` (kept for jax.numpy's own)."""
    if not frame.f_code.co_filename.startswith(_NUMPY_DIR):
        return
    values = [a for a in args if isinstance(a, _ARRAY_LIKE)]
    dtype = joined[0] if isinstance(joined, tuple) else joined
    if len(values) < 2 or jdtypes.issubdtype(dtype, jdtypes.extended):
        return  # PRNG key arrays (key<fry>) have no promotion
    if len(_JOINS) > 64:
        _JOINS.clear()
    _JOINS[id(frame)] = (frame, values, np.dtype(jdtypes.canonicalize_dtype(dtype)))


def cast_to_join(operand: Any, new_dtype: Any, frame: Any) -> tuple[Any, list[Any]] | None:
    """The jax.numpy frame (on the stack from `frame`) that joined `operand` with other
    operands by dtypes.result_type and now casts it to that join (or its inexact form,
    as jnp.linspace does), with the join's operands; None for any other conversion."""
    for _ in range(8):
        if frame is None:
            return None
        entry = _JOINS.get(id(frame))
        if entry is not None and entry[0] is frame:
            break
        frame = frame.f_back
    else:
        return None
    _, values, joined = entry
    if not any(operand is v for v in values) or jdtypes.is_weakly_typed(operand):
        return None
    try:
        to, before = np.dtype(new_dtype), np.dtype(jdtypes.dtype(operand))
        inexact = np.dtype(jdtypes.to_inexact_dtype(joined))
    except TypeError:
        return None
    if before == joined or to not in (joined, inexact):
        return None
    return frame, values


def operands(values: Any) -> list[Any]:
    """The array-like leaves of `values` (Python bools are flags, such as keepdims=False,
    not operands)."""
    leaves = jax.tree_util.tree_leaves(values)
    return [x for x in leaves if isinstance(x, _ARRAY_LIKE) and type(x) is not bool]


def joins_two(values: list[Any]) -> bool:
    """Whether jnp.result_type of `values` differs from one of their strong dtypes
    (operands of two dtypes, or a weak scalar changing a strong operand's dtype)."""
    try:
        joined = np.dtype(jdtypes.result_type(*values))
        strong = [np.dtype(jdtypes.dtype(a)) for a in values if not jdtypes.is_weakly_typed(a)]
    except (TypeError, ValueError):  # operands jax does not join (keys, float0)
        return True
    return any(d != joined for d in strong)


def call_operands(api: Any, user: Any) -> list[Any]:
    """The operands of the call the user's frame `user` is making to the jax function
    running in frame `api`: the parameters the call passed (all of them when the call
    instruction does not say, as for an operator or ``f(*args)``)."""
    code = api.f_code
    params = _parameters(code)
    names = _passed_names(api, user)
    varargs = params[code.co_argcount + code.co_kwonlyargcount] if _has_varargs(code) else None
    values = [_receiver(api.f_locals.get(n)) for n in names]
    return operands(
        [v for n, v in zip(names, values, strict=True) if n == varargs or not _static_ints(v)]
    )


def _has_varargs(code: types.CodeType) -> bool:
    return bool(code.co_flags & inspect.CO_VARARGS)


def _static_ints(value: Any) -> bool:
    """A tuple or list of Python ints: a shape or axes (jnp.unravel_index(i, (2, 3))),
    whose ints are not operands even where jax computes with them (as weak ints, which
    change a bool index's dtype)."""
    return (
        isinstance(value, tuple | list)
        and bool(value)
        and all(type(v) is int for v in jax.tree_util.tree_leaves(value))
    )


def _passed_names(api: Any, user: Any) -> list[str]:
    """The parameters of the function running in `api` that the user's call passed."""
    params = _parameters(api.f_code)
    passed = _passed(user, api.f_code, params)
    return [p for p in params if passed is None or p in passed]


def _receiver(value: Any) -> Any:
    """The array of ``x.at[i]`` (its update methods' receiver), else `value`."""
    array = getattr(value, "array", None)
    if not isinstance(value, _ARRAY_LIKE) and isinstance(array, _ARRAY_LIKE):
        return array
    return value


def is_own_constant(value: Any, user_operands: list[Any]) -> bool:
    """Whether a helper's operand is a constant of jax's own (a default, a literal of
    the function's code): a concrete scalar that is none of the user's operands."""
    if isinstance(value, core.Tracer) or np.ndim(value) != 0:
        return False
    return not any(value is u or _same_scalar(value, u) for u in user_operands)


def _same_scalar(a: Any, b: Any) -> bool:
    """The same concrete scalar (jnp.asarray of the user's 2.5 is not the user's 2.5)."""
    if isinstance(b, core.Tracer) or np.ndim(b) != 0:
        return False
    try:
        same_type = jdtypes.dtype(a) == jdtypes.dtype(b)
        weak = jdtypes.is_weakly_typed(a) == jdtypes.is_weakly_typed(b)
        return bool(same_type and weak and np.asarray(a) == np.asarray(b))
    except (TypeError, ValueError):
        return False


def _parameters(code: types.CodeType) -> list[str]:
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return list(code.co_varnames[:n])


def _passed(user: Any, code: types.CodeType, params: list[str]) -> set[str] | None:
    """The parameters of `code` the user's call passes, or None when unknown."""
    if code.co_argcount + code.co_kwonlyargcount == 0:
        return None  # a wrapper of (*args, **kwargs), as jax.jit's: all it has was passed
    call = _call_at(user.f_code, user.f_lasti)
    if call is None:
        return None
    npos, keywords = call
    positional = list(params[: code.co_argcount])
    varargs = _has_varargs(code)
    if positional and positional[0] in ("self", "cls"):
        npos += 1  # a method: the receiver is its first argument (x.clip(0, 1))
    if npos > len(positional) and not varargs:
        return None  # the function called is not the one running (a wrapper)
    passed = set(positional[:npos])
    if npos > len(positional):
        passed.add(params[code.co_argcount + code.co_kwonlyargcount])
    varkw = params[-1] if code.co_flags & inspect.CO_VARKEYWORDS else None
    for k in keywords:
        if k in params:
            passed.add(k)
        elif varkw is None:
            return None
        else:
            passed.add(varkw)
    return passed


def _call_at(code: types.CodeType, offset: int) -> tuple[int, tuple[str, ...]] | None:
    """(positional count, keyword names) of the call instruction at `offset`."""
    key = (code, offset)
    if key not in _CALLS:
        if len(_CALLS) > 4096:
            _CALLS.clear()
        _CALLS[key] = _read_call(code, offset)
    return _CALLS[key]


def _read_call(code: types.CodeType, offset: int) -> tuple[int, tuple[str, ...]] | None:
    # the frame of a running call reports the call instruction's offset, or (Python
    # 3.11, calling a Python function) its PRECALL's or one of its inline caches'
    ins = list(dis.get_instructions(code))
    at = max((k for k, i in enumerate(ins) if i.offset <= offset), default=None)
    if at is None:
        return None
    if ins[at].opname == "PRECALL" and at + 1 < len(ins):
        at += 1  # its CALL follows
    if at and ins[at - 1].opname == "PRECALL":
        del ins[at - 1]
        at -= 1
    call, last = ins[at], ins[at - 1] if at else None
    if call.opname not in ("CALL", "CALL_KW") or call.arg is None:
        return None  # CALL_FUNCTION_EX, an operator, a subscript: not known
    keywords: tuple[str, ...] = ()
    if last is not None and last.opname == "KW_NAMES":  # Python 3.11, 3.12
        names = code.co_consts[last.arg] if last.arg is not None else ()
        keywords = tuple(names) if isinstance(names, tuple) else ()
    elif call.opname == "CALL_KW":  # Python 3.13: the names are a constant pushed last
        if last is None or not isinstance(last.argval, tuple):
            return None
        keywords = tuple(last.argval)
    return call.arg - len(keywords), keywords
