"""``make_program``: trace a function of abstract values into a Program.

Used by ``weaktrace.trace`` (a whole function), by control flow (loop bodies and
branches, traced inside an enclosing trace) and by lint.
"""

from __future__ import annotations

import inspect
import linecache
import os
import re
import traceback
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax

from weaktrace.core.operands import operand
from weaktrace.core.trace import Builder, Promotion, Tracer, current, new_trace
from weaktrace.dtypes.policies import Policy
from weaktrace.errors import ForeignFunctionError, InvalidInputError, WeaktraceError
from weaktrace.ir.values import AbstractValue, Program, Var


class Made(NamedTuple):
    """A traced program with what its caller needs to use it."""

    program: Program
    out_avals: list[AbstractValue]  # flat, in program output order
    out_tree: Any  # the pytree structure of the function's result
    promotions: tuple[Promotion, ...]
    captures: list[Tracer]  # tracers of the enclosing trace the program reads (inputs first)
    int_checks: tuple[tuple[Var, Any], ...] = ()  # (input, integer dtype) its value must fit


def make_program(
    fun: Callable[..., Any],
    in_avals: Sequence[AbstractValue],
    policy: Policy,
    *,
    nested: bool = False,
) -> Made:
    """Trace ``fun(*tracers)``, one tracer per abstract value, under `policy` (resolved).

    With ``nested=True`` the program is a sub-program of the current trace: tracers
    of the enclosing trace that `fun` reads are captured and become the program's
    first inputs (``Made.captures`` lists them, to pass as operands).
    """
    parent = current() if nested else None
    with new_trace(policy, parent) as b:
        tracers = [b.new_arg(a) for a in in_avals]
        try:
            out = fun(*tracers)  # unpinned: a new trace takes its equations' own lines
        except (TypeError, ValueError) as err:
            foreign = foreign_call(err)
            if foreign is None:
                raise
            raise foreign from err
        leaves, out_tree = jax.tree_util.tree_flatten(out)
        outs = [output(o, b) for o in leaves]
        program = b.program(outs)
    promotions = tuple(b.promotions) if parent is None else ()
    return Made(program, [o.aval for o in outs], out_tree, promotions, b.captures(),
                tuple(b.int_checks))  # fmt: skip


_MIRRORS = {
    "jnp": "weaktrace.numpy", "numpy": "weaktrace.numpy", "lax": "weaktrace.lax",
    "nn": "weaktrace.nn", "random": "weaktrace.random", "special": "weaktrace.scipy.special",
    "scipy.linalg": "weaktrace.scipy.linalg", "numpy.linalg": "weaktrace.numpy.linalg",
    "jnp.linalg": "weaktrace.numpy.linalg",
}  # fmt: skip
_CALL = re.compile(
    r"\b((?:jax\.)?(?:scipy\.linalg|numpy\.linalg|jnp\.linalg|numpy|jnp|lax|nn|random"
    r"|scipy\.special|special))\.(\w+)\s*\("
)
_WEAKTRACE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def foreign_call(err: BaseException) -> ForeignFunctionError | None:
    """jax's error for a weaktrace tracer handed to a jax function, as a named error
    naming the call and the weaktrace mirror to use (None: another error)."""
    text = str(err)
    if "__jax_array__" not in text and "Tracer<" not in text and _JAX_ARRAY not in text:
        return None
    frames = list(traceback.walk_tb(err.__traceback__))
    user = [k for k, (frame, _) in enumerate(frames) if not _in_library(frame.f_code.co_filename)]
    if not user:
        return None
    inner = [frame.f_code.co_filename for frame, _ in frames[user[-1] + 1 :]]
    if isinstance(err, WeaktraceError) and all(f.startswith(_WEAKTRACE_DIR) for f in inner):
        return None  # weaktrace's own refusal (a traced shape), raised in a mirror
    frame, lineno = frames[user[-1]]
    line = linecache.getline(frame.f_code.co_filename, lineno).strip()
    hint = _bound_name_hint(frame, line)
    if hint is None:
        found = _CALL.search(line)
        if found is None:
            hint = "the weaktrace mirror (weaktrace.numpy for jax.numpy, weaktrace.lax for jax.lax)"
        else:
            family = found.group(1).removeprefix("jax.")
            family = family if family.endswith("linalg") else family.rsplit(".", 1)[-1]
            hint = f"{_MIRRORS.get(family, 'weaktrace.numpy')}.{found.group(2)}"
        hint = f"Call {hint} instead."
    return ForeignFunctionError(
        f"{frame.f_code.co_filename}:{lineno}: `{line}` hands a weaktrace value (a traced "
        f"array) to a jax or numpy function, which cannot compute on it. {hint}"
    )


_JAX_ARRAY = "a jax function was given a weaktrace value"  # a tracer's __jax_array__
_JAX_DIR = os.path.dirname(os.path.abspath(jax.__file__)) + os.sep
# jax's namespaces weaktrace mirrors under the same path (jax.nn -> weaktrace.nn).
_NAMESPACES = ("numpy", "lax", "nn", "random", "scipy.special", "scipy.linalg", "numpy.linalg",
               "numpy.fft", "scipy.stats.norm", "scipy.signal", "image")  # fmt: skip


def _in_library(filename: str) -> bool:
    return filename.startswith(_WEAKTRACE_DIR) or f"{os.sep}jax{os.sep}" in filename


def _bound_name_hint(frame: Any, line: str) -> str | None:
    """What to do about a name called in the user's `line` that is bound to a jax
    function itself (``from jax.nn import relu``; ``from jax import grad`` run before
    weaktrace was imported, so it is jax's grad, not the one weaktrace wraps)."""
    import importlib
    import sys

    transforms = sys.modules.get("weaktrace.transforms")
    originals = getattr(transforms, "ORIGINAL", {})
    for called in re.findall(r"(?<![\w.])([A-Za-z_]\w*)\s*\(", line):
        obj = frame.f_locals.get(called, frame.f_globals.get(called))
        if obj is None or not callable(obj):
            continue
        for jax_name, original in originals.items():
            if obj is original:
                return (
                    f"`{called}` is jax.{jax_name} as it was before weaktrace was imported "
                    f"(`from ... import {jax_name.rsplit('.', 1)[-1]}` ran before `import "
                    f"weaktrace`): weaktrace makes jax.{jax_name} work on traced values when "
                    f"it is imported. Import weaktrace first, or call jax.{jax_name}."
                )
        code = getattr(inspect.unwrap(obj), "__code__", None)
        if code is None or not code.co_filename.startswith(_JAX_DIR):
            continue
        for space in _NAMESPACES:
            try:
                jax_space = importlib.import_module(f"jax.{space}")
                ours = importlib.import_module(f"weaktrace.{space}")
            except ImportError:
                continue
            if getattr(jax_space, called, None) is obj and hasattr(ours, called):
                mirror = f"weaktrace.{space}.{called}"
                return f"`{called}` is jax.{space}.{called}: call {mirror} instead."
    return None


def output(o: Any, b: Builder) -> Tracer:
    """A function result as a tracer of the trace (constants become literals or consts)."""
    try:
        return operand(o, b)
    except InvalidInputError:
        raise InvalidInputError(
            f"the traced function returned {o!r} (type {type(o).__name__}), which is not an "
            "array: return arrays, scalars, or pytrees (tuples, lists, dicts) of them."
        ) from None


# Eager calls of reduce / reduce_window / scatter_apply trace the user's computation
# into a sub-program on every call. jax traces its computation once per function and
# avals (a cache keyed weakly on the function), so repeat eager calls reuse one
# compiled executable; weaktrace handing jax a fresh program (hence a fresh closure) each
# time recompiled on every call (jax's lax_test "Compilation detected during second
# call ... in op-by-op mode"). Only eager calls are cached: nested traces capture.
_EAGER_PROGRAMS: weakref.WeakKeyDictionary[Any, dict[Any, Made]] = weakref.WeakKeyDictionary()


def eager_program(fun: Callable[..., Any], key: Any, make: Callable[[], Made]) -> Made:
    """`make()`, cached on the function `fun` (weakly) and the hashable `key` (its
    avals, tree structure and policy); uncached when `fun` cannot be a weak key."""
    try:
        per_fun = _EAGER_PROGRAMS.setdefault(fun, {})
        hash(key)
    except TypeError:
        return make()
    made = per_fun.get(key)
    if made is None:
        made = per_fun[key] = make()
    return made
