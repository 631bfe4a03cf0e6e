"""``weaktrace.lint``: trace unmodified JAX code with jax, import it, run the rules."""

from __future__ import annotations

import dataclasses
import functools
import gc
import inspect
import itertools
import re
import sys
import traceback as tb_module
import types
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np
from jax._src import config, source_info_util

from weaktrace.errors import InvalidInputError
from weaktrace.ir.values import AbstractValue, Program, SourceInfo
from weaktrace.lint import overflow, rules
from weaktrace.lint.callsite import user_file
from weaktrace.lint.hooks import Recorder, recording
from weaktrace.lint.importer import _PACKAGE_DIR, Meta, aval_of, import_jaxpr
from weaktrace.lint.report import Finding, LintReport

_RUNS = itertools.count()
_WIDE = ("float64", "int64", "uint64", "complex128")
# jax's TypeErrors for loop carries and branch outputs whose types differ
_CARRY_ERRORS = re.compile(
    r"(carry input and carry output must have equal types|branches must have equal output "
    r"types|must have identical types|body_fun output and input must have)"
)


def lint(
    f: Callable[..., Any],
    *args: Any,
    state_argnums: int | Sequence[int] = (),
    **kwargs: Any,
) -> LintReport:
    """Trace ``f(*args, **kwargs)`` with jax (x64 off) and report the dtype problems of
    unmodified JAX code, each at the user's file and line.

    Finding kinds: ``implicit-promotion``, ``x64-truncation``, ``weak-flip`` (for the
    arguments in `state_argnums`: the output is the new state, or a tuple whose first
    ``len(state_argnums)`` elements are the new states), ``carry-change`` and
    ``literal-overflow``. Arguments are what :func:`jax.jit` accepts (arrays, scalars,
    pytrees, :class:`jax.ShapeDtypeStruct`). Lint may be called from several threads:
    the calls trace one at a time, and jax code running in other threads meanwhile is
    neither recorded nor changed.

    >>> import jax.numpy as jnp, weaktrace as wt
    >>> def f(x, n):
    ...     return x * 2.0 + n
    >>> report = wt.lint(f, jnp.zeros(3, jnp.float32), jnp.zeros(3, jnp.int32))
    >>> [finding.kind for finding in report]
    ['implicit-promotion']
    """
    # Python's cyclic GC is paused while lint runs, as while weaktrace traces (see
    # core.trace.new_trace): jax's trace and the import allocate many small records,
    # and the collections they trigger cost ~15% of a lint (transformer step).
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        return _lint(f, args, state_argnums, kwargs)
    finally:
        if gc_was_on:
            gc.enable()


def _lint(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    state_argnums: int | Sequence[int],
    kwargs: dict[str, Any],
) -> LintReport:
    argnums = (state_argnums,) if isinstance(state_argnums, int) else tuple(state_argnums)
    bad = [i for i in argnums if not 0 <= i < len(args)]
    if bad:
        raise ValueError(f"state_argnums {bad[0]} names no positional argument of {len(args)}")
    def_line = _def_line(f)
    if def_line is None or not user_file(def_line.file):
        # jax's own function (jnp.add): no line of the user's in it; from the command
        # line, where no user's line calls lint, its own definition
        def_line = _callers_line() or def_line
    traced, args, kwargs, kept = _close_static(f, args, kwargs)
    static = [i for i in argnums if i not in kept]
    if static:
        raise ValueError(f"state_argnums {static[0]} names a static argument of the jitted {f}")
    argnums = tuple(kept.index(i) for i in argnums)
    findings: list[Finding] = []
    findings += rules.x64_truncation(Recorder(), _wide_args(args, kwargs, kept), def_line, ())
    args, kwargs = _narrow_jax_arrays(args, kwargs)
    # A fresh value of a trace-context option that only affects HLO metadata: jax's
    # trace caches miss, so jax really traces (and the hooks see) every call, while
    # the user's own caches stay as they are.
    fresh = config.hlo_source_file_canonicalization_regex(f"(?!)weaktrace-lint-{next(_RUNS)}")
    with jax.enable_x64(False), fresh, recording(False) as rec:
        try:
            closed, out_shape = jax.make_jaxpr(traced, return_shape=True)(*args, **kwargs)
        except OverflowError as err:  # a Python int too large for any dtype jax has
            where = _user_frame(err) or def_line
            value = re.search(r"value (-?\d+)", str(err))
            what = f"Python int {value.group(1)}" if value else "a Python int"
            if where is None:
                raise
            findings.append(
                Finding(
                    "literal-overflow",
                    where.file,
                    where.line,
                    f"{what} does not fit the dtype it is combined with (jax raises OverflowError)",
                    function=where.function,
                )
            )
            return LintReport(_sorted(findings), None)
        except TypeError as err:
            if not _CARRY_ERRORS.search(str(err)):
                _refuse_wide_captures(f, err)
                raise
            # the hooks' record of this refusal (not of one the user's code caught)
            ref = rec.refused[-1] if rec.refused else None
            ours = ref is not None and all(t in str(err) for t in ref.after)
            findings += (rules.refused(ref) if ref is not None and ours else []) or _carry_error(
                err, def_line
            )
            findings += rules.x64_truncation(rec, (), def_line, ())
            return LintReport(_sorted(findings), None)
    _fill_where(rec, def_line)
    program, meta = import_jaxpr(closed, def_line)
    findings += rules.x64_truncation(rec, (), def_line, _wide_consts(f, closed, program))
    findings += rules.implicit_promotion(program, meta, rec)
    findings += overflow.literal_overflow(program, rec)
    findings += rules.carry_change(program, rec, meta)
    if argnums:
        states = _states(args, argnums, out_shape, program, kept)
        findings += rules.weak_flip(program, states, def_line)
    return LintReport(_sorted(findings), program)


def _close_static(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, tuple[Any, ...], dict[str, Any], list[int]]:
    """An already-jitted `f` (``jax.jit(f, static_argnums=..., static_argnames=...)``)
    gets its static arguments as they are, never as tracers (jax.make_jaxpr would trace
    them all): the function of the other arguments that calls `f` with them, those
    arguments, and the original index of each positional one kept."""
    # a bound method (obj.step, jitted with static_argnums=0 for self) or a partial of
    # a jitted function: jax counts the receiver, the partial's arguments, first
    shift, jitted = 0, f
    if isinstance(f, types.MethodType):
        shift = 1
    elif isinstance(f, functools.partial):
        shift, jitted = len(f.args), f.func
    info = getattr(jitted, "_jit_info", None)
    nums = tuple(getattr(info, "static_argnums", None) or ())
    names = tuple(getattr(info, "static_argnames", None) or ())
    n = len(args) + shift
    static = {i % n - shift for i in nums if -n <= i < n and i % n >= shift}
    static_kw = {k: v for k, v in kwargs.items() if k in names}
    if not static and not static_kw:
        return f, args, kwargs, list(range(len(args)))
    kept = [i for i in range(len(args)) if i not in static]

    def with_static(*dynamic: Any, **dynamic_kw: Any) -> Any:
        full = list(args)
        for i, value in zip(kept, dynamic, strict=True):
            full[i] = value
        return f(*full, **static_kw, **dynamic_kw)

    rest = {k: v for k, v in kwargs.items() if k not in static_kw}
    return with_static, tuple(args[i] for i in kept), rest, kept


def _sorted(findings: list[Finding]) -> list[Finding]:
    seen: dict[tuple[str, str, int, str], Finding] = {}
    for f in findings:
        seen.setdefault((f.kind, f.file, f.line, f.message), f)
    return sorted(seen.values(), key=lambda f: (f.file, f.line, f.kind))


def _def_line(f: Any) -> SourceInfo | None:
    """The file and line of the function's ``def`` (through jax.jit and partial)."""
    fn = f
    for _ in range(10):
        if isinstance(fn, functools.partial):
            fn = fn.func
        elif hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        else:
            break
    code = getattr(fn, "__code__", None)
    if code is None:
        code = getattr(getattr(type(fn), "__call__", None), "__code__", None)  # noqa: B004
        if code is None:
            return None
    line = code.co_firstlineno
    try:
        lines, start = inspect.getsourcelines(code)
        for i, text in enumerate(lines):
            if re.match(r"\s*(async\s+)?def\b", text):
                line = start + i
                break
    except (OSError, TypeError):
        pass
    return SourceInfo(code.co_filename, line, code.co_name)


def _fill_where(rec: Recorder, where: SourceInfo | None) -> None:
    """The hooks' events met with no line of the user's on the stack (jnp.add linted
    as it is: its folded constant, its wrapping literal) get the function's line, as
    its equations do."""
    if where is None:
        return
    for events in (rec.x64, rec.overflow):
        for ev in events:
            if ev.where is None:
                ev.where = where
    rec.promotions[:] = [
        dataclasses.replace(p, where=where) if p.mixed and p.where is None else p
        for p in rec.promotions
    ]


def _callers_line() -> SourceInfo | None:
    """The user's line that called lint (for a function with no source of the user's,
    such as jnp.add or operator.add, linted as it is): None from the command line."""
    frame: types.FrameType | None = sys._getframe(2)
    while frame is not None and not user_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return None
    return SourceInfo(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)


def _leaf_dtype(x: Any) -> np.dtype | None:
    if isinstance(x, bool | int | float | complex) and not isinstance(x, np.generic):
        return None  # Python scalars are weak (np.float64 is a float, and strong)
    dtype = getattr(x, "dtype", None)
    try:
        return np.dtype(dtype) if dtype is not None else None
    except TypeError:
        return None


def _wide_args(
    args: Sequence[Any], kwargs: dict[str, Any], kept: Sequence[int]
) -> list[tuple[str, str]]:
    """Argument leaves with a 64-bit dtype (numpy arrays and scalars, ShapeDtypeStructs),
    named by the user's argument positions (`kept`: each one's, static ones left out)."""
    found = []
    leaves, _ = jax.tree_util.tree_flatten_with_path((tuple(args), kwargs))
    for path, leaf in leaves:
        dtype = _leaf_dtype(leaf)
        if dtype is not None and dtype.name in _WIDE:
            if path[0].idx == 0:
                path = (path[0], jax.tree_util.SequenceKey(kept[path[1].idx]), *path[2:])
            name = _path(path[1:])
            found.append((name if path[0].idx == 0 else f"keyword {name}", dtype.name))
    return found


def _narrow_jax_arrays(args: Any, kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """64-bit jax arrays (made while x64 was on) as the 32-bit values x64 off makes of
    every other 64-bit input: jax keeps such an array's dtype when x64 is switched off, and
    its own functions then mix the two widths (``jnp.diagonal`` of a float64 array
    multiplies it by a float32 ``eye``: TypeError), where the user's program runs."""

    def narrow(x: Any) -> Any:
        if _is_wide_jax(x):
            return jax.ShapeDtypeStruct(x.shape, rules._narrow(x.dtype.name),
                                        weak_type=x.weak_type)  # fmt: skip
        return x

    return jax.tree_util.tree_map(narrow, (tuple(args), kwargs))


def _path(path: Sequence[Any]) -> str:
    if not path:
        return ""
    head, rest = path[0], path[1:]
    first = str(getattr(head, "idx", getattr(head, "key", head)))
    return first + jax.tree_util.keystr(tuple(rest))


def _is_wide_numpy(v: Any) -> bool:
    return isinstance(v, np.ndarray | np.generic) and v.dtype.name in _WIDE


def _is_wide_jax(v: Any) -> bool:
    return (
        isinstance(v, jax.Array)
        and not isinstance(v, jax.core.Tracer)
        and (getattr(_leaf_dtype(v), "name", None) in _WIDE)
    )


def _candidates(
    f: Any, depth: int = 3, wanted: Callable[[Any], bool] = _is_wide_numpy
) -> list[Any]:
    """64-bit numpy arrays and scalars (or what `wanted` picks) the function (and
    functions it names) can see."""
    found: list[Any] = []
    seen: set[int] = set()

    def visit(fn: Any, level: int) -> None:
        while isinstance(fn, functools.partial) or hasattr(fn, "__wrapped__"):
            fn = fn.func if isinstance(fn, functools.partial) else fn.__wrapped__
        code = getattr(fn, "__code__", None)
        if code is None or id(code) in seen or level > depth:
            return
        seen.add(id(code))
        if str(code.co_filename).startswith(_PACKAGE_DIR):
            return
        values = [c.cell_contents for c in (fn.__closure__ or ()) if _has(c)]
        glb = getattr(fn, "__globals__", {})
        values += [glb[n] for n in _names(code) if n in glb]
        for v in values:
            if wanted(v):
                found.append(v)
            elif isinstance(v, types.FunctionType | functools.partial):
                visit(v, level + 1)

    visit(f, 0)
    return found


def _refuse_wide_captures(f: Any, err: TypeError) -> None:
    """jax's TypeError while tracing `f` with x64 off, when `f` sees 64-bit jax arrays
    made with x64 on: jax cannot mix those with x64 off (lint narrows such arrays only
    when they are arguments). A named error that says so, not jax's."""
    wide = _candidates(f, wanted=_is_wide_jax)
    if wide:
        seen = ", ".join(sorted({f"{v.dtype}{list(v.shape)}" for v in wide}))
        jax_says = str(err).split(" (Tip")[0].rstrip(".")
        raise InvalidInputError(
            f"lint traces {getattr(f, '__name__', f)!r} with x64 off, and it uses jax arrays "
            f"made while x64 was on ({seen}), which jax cannot mix with 32-bit values there "
            f"({jax_says}). Pass them as arguments (lint takes a 64-bit argument as x64 off "
            "makes it) or create them with x64 off."
        ) from err


def _has(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _names(code: types.CodeType) -> list[str]:
    names = list(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names += _names(c)
    return names


def _wide_consts(f: Any, closed: Any, program: Program) -> list[tuple[SourceInfo | None, str]]:
    """Constants of the trace that came from 64-bit numpy values, where first used."""
    if not closed.consts:
        return []
    cands = _candidates(f)
    if not cands:
        return []
    out = []
    for var, c in zip(program.constvars, closed.consts, strict=True):
        arr = np.asarray(c)
        for cand in cands:
            if np.shape(cand) == arr.shape and np.array_equal(np.asarray(cand, arr.dtype), arr):
                where = next(
                    (e.source_info for e in program.equations if any(a is var for a in e.inputs)),
                    None,
                )
                shape = "x".join(map(str, arr.shape)) or "scalar"
                out.append(
                    (
                        where,
                        f"{cand.dtype.name} numpy constant ({shape}) becomes "
                        f"{arr.dtype.name} with x64 off",
                    )
                )
                break
    return out


def _user_frame(err: BaseException) -> SourceInfo | None:
    """The innermost frame of the user's code in an exception's traceback."""
    for fr in reversed(tb_module.extract_tb(err.__traceback__)):
        if source_info_util.is_user_filename(fr.filename) and not fr.filename.startswith(
            _PACKAGE_DIR
        ):
            return SourceInfo(fr.filename, fr.lineno or 0, fr.name)
    return None


def _carry_error(err: TypeError, def_line: SourceInfo | None) -> list[Finding]:
    """jax refused a loop or cond whose carry/branch dtypes differ and the hooks kept no
    record of it (rules.refused finds the body's line from one): one finding at the
    user's line of that loop or cond."""
    where = _user_frame(err) or def_line
    detail = [ln.strip() for ln in str(err).splitlines() if "type" in ln and "has type" in ln]
    msg = (detail[0] if detail else str(err).splitlines()[0]).rstrip(".")
    if where is None:
        return []
    return [
        Finding(
            "carry-change",
            where.file,
            where.line,
            f"jax rejects this loop or cond: {msg}",
            function=where.function,
        )
    ]


def _states(
    args: Sequence[Any],
    argnums: Sequence[int],
    out_shape: Any,
    program: Program,
    kept: Sequence[int],
) -> list[tuple[int, list[tuple[str, AbstractValue]], list[int]]]:
    """Per state argument: its user's argnum (`kept` maps the traced arguments to the
    user's), its input leaves (path, aval) and its output leaf indices."""
    counts = [len(jax.tree_util.tree_leaves(a)) for a in args]
    out_leaves = jax.tree_util.tree_leaves(out_shape)
    top = out_shape if len(argnums) > 1 else None
    result = []
    for k, i in enumerate(argnums):
        start = sum(counts[:i])
        paths = jax.tree_util.tree_flatten_with_path(args[i])[0]
        leaves = [
            (jax.tree_util.keystr(p), v.aval)
            for (p, _), v in zip(paths, program.invars[start : start + counts[i]], strict=True)
        ]
        in_tree = jax.tree_util.tree_structure(args[i])
        if len(argnums) == 1:
            if str(jax.tree_util.tree_structure(out_shape)) == str(in_tree):
                top = None
            elif isinstance(out_shape, tuple | list) and out_shape:
                top = out_shape
        if top is None:
            offset, n = 0, len(out_leaves)
        else:
            offset = sum(len(jax.tree_util.tree_leaves(o)) for o in top[:k])
            n = len(jax.tree_util.tree_leaves(top[k]))
        if n != counts[i]:
            continue  # the state's structure changed: jax retraces anyway
        result.append((kept[i], leaves, list(range(offset, offset + n))))
    return result


__all__ = ["LintReport", "Meta", "aval_of", "lint"]
