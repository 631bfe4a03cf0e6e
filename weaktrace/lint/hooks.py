"""What jax's trace loses, recorded while it runs: requested 64-bit dtypes (jax's own
"Explicitly requested dtype" warnings), 64-bit numpy constants given to jax.numpy's
ufuncs and operators, to ``jnp.array``/``jnp.asarray``, as ``jnp.full``'s fill value or
straight to a primitive (``lax.mul(x, np.float64(2))``), Python int literals that
wrap when jax converts them to a narrower dtype, the verdict on each conversion of
jax.numpy's promotion helpers (operands of two dtypes met, or the function made its
one dtype inexact), and the jaxprs of a loop or cond jax refuses (the body's line).

The hooks wrap a few jax functions for the duration of one trace (restored after, also
on error) and record each event with the user's file and line. One lint at a time
installs them (a process-wide lock), and they record only what the linting thread
does: jax code running at the same time in other threads is neither seen nor changed.
Python's warnings state (filters, registries, showwarning) is never touched: jax's
requested-dtype warning is caught where jax's dtypes module issues it.
"""

from __future__ import annotations

import contextlib
import dis
import functools
import inspect
import itertools
import os
import sys
import threading
import types
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import api_util, core, source_info_util
from jax._src import dtypes as jdtypes
from jax._src.interpreters import partial_eval as pe
from jax._src.lax import lax as jlax
from jax._src.lax.control_flow import conditionals as jconditionals
from jax._src.lax.control_flow import loops as jloops
from jax._src.numpy import ufunc_api
from jax._src.numpy import util as jnp_util

from weaktrace.ir.values import SourceInfo
from weaktrace.lint import callsite
from weaktrace.lint.callsite import user_file
from weaktrace.lint.importer import PROMOTION_SCOPE, promotion_mark, user_source


@dataclass
class Event:
    where: SourceInfo | None
    message: str


@dataclass(frozen=True)
class Promotion:
    """One conversion by jax.numpy's promotion helpers: the dtypes of the strong operands
    the function received, their join (before any "make it inexact" step) and the dtype
    the converted operand gets. ``mixed``: operands of different dtypes met (or a weak
    scalar changed a strong one's dtype), not the function's own conversion
    (``jnp.sin(i32)``: one integer dtype made floating by its documented semantics)."""

    strong: tuple[str, ...]
    weak: tuple[str, ...]  # the dtypes of the weak operands that took part in the join
    joined: str
    to: str
    mixed: bool
    operand: str  # the converted operand's dtype
    # the user's line, when mixed: jax may fold the conversion of a constant (a numpy
    # scalar) into a literal, leaving no equation to carry the mark
    where: SourceInfo | None = None


_TOKENS = itertools.count()


@dataclass
class Refusal:
    """A loop or cond jax refused because a carry or branch output changed type: the
    jaxprs jax had traced (the body; or the two branches it compared, the second last)
    and the mismatching output positions, for the rules to find the body's line."""

    api: str  # the jax function the user called: while_loop, fori_loop, scan, cond, switch
    where: SourceInfo | None  # the user's line of that call
    jaxprs: tuple[Any, ...]
    mismatched: tuple[int, ...]
    before: tuple[str, ...]  # per mismatched output: the carry in (the first branch's)
    after: tuple[str, ...]  # and the body's (the other branch's)


@dataclass(frozen=True)
class WeakInit:
    """A weak initial value of a loop carry that jax converted to the dtype the body
    returns (``lax.scan(f, 0, xs)`` whose body adds floats: the int 0 becomes float32),
    after which jax traced the body again: its jaxpr no longer shows the change."""

    where: SourceInfo | None  # the user's line of the loop call
    index: int  # the carry's position among the loop's flat carries
    before: Any  # the initial value's aval, and the converted one (jax avals)
    after: Any


@dataclass
class Recorder:
    x64: list[Event] = field(default_factory=list)
    overflow: list[Event] = field(default_factory=list)
    # (file, line) of a lax.cond / lax.switch call -> its branch functions' lines, in the
    # order of the cond equation's branches (cond: false first)
    branches: dict[tuple[str, int], list[SourceInfo | None]] = field(default_factory=dict)
    # the conversions of jnp's promotion helpers; the k-th one's equation carries the
    # name-stack scope f"{PROMOTION_SCOPE}{token}_{k}" (token: this run's, so that a
    # jaxpr a cache kept from another run is never read with this run's records)
    promotions: list[Promotion] = field(default_factory=list)
    token: int = field(default_factory=lambda: next(_TOKENS))
    folded: set[int] = field(default_factory=set)  # the promotions jax folded away
    refused: list[Refusal] = field(default_factory=list)
    # (file, line, value): Python ints jax.numpy passed to one of its jitted helpers
    # that are none of the user's call's (jnp.unravel_index(u8, (0,)) computes 0 - 1)
    own_ints: set[tuple[str, int, int]] = field(default_factory=set)
    weak_inits: list[WeakInit] = field(default_factory=list)


def user_here(tb: Any = None) -> SourceInfo | None:
    """The user's frame of a jax traceback (default: the current one, else Python's
    stack: inside jax's own jitted helpers, such as jnp.sum's, jax keeps none)."""
    found = user_source(tb if tb is not None else source_info_util.current().traceback)
    if found is None and tb is None:
        frame: types.FrameType | None = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if user_file(code.co_filename):
                return SourceInfo(code.co_filename, frame.f_lineno, code.co_name)
            frame = frame.f_back
    return found


def out_of_range(value: Any, dtype: Any) -> bool:
    """Whether an integer value does not fit `dtype` (an integer or floating dtype)."""
    try:
        dt = np.dtype(dtype)
        v = int(value)
    except (TypeError, ValueError, OverflowError):
        return False
    if dt.kind in "iu" or (dt.kind == "V" and jnp.issubdtype(dt, jnp.integer)):
        info = jnp.iinfo(dt)  # int4, uint4, int2, uint2 too (numpy's kind is "V")
        return not int(info.min) <= v <= int(info.max)
    if dt.kind == "f":
        return abs(v) > float(np.finfo(dt).max)
    return False


def _is_int_value(x: Any) -> bool:
    return isinstance(x, int | np.integer) and not isinstance(x, bool | np.bool_)


_WIDE = frozenset(np.dtype(t) for t in ("float64", "int64", "uint64", "complex128"))
# one lint at a time patches jax (re-entrant: a linted function may call lint)
LOCK = threading.RLock()


@contextlib.contextmanager
def recording(x64: bool) -> Iterator[Recorder]:
    with LOCK, _recording(x64) as rec:
        yield rec


@contextlib.contextmanager
def _recording(x64: bool) -> Iterator[Recorder]:
    rec = Recorder()
    owner = threading.get_ident()
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

    def mine() -> bool:
        return threading.get_ident() == owner

    def ufunc_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not x64 and mine():
            wide(args)
        return orig_ufunc(self, *args, **kwargs)

    def make_array(orig: Any) -> Any:
        def array(obj: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> Any:
            # the user's own call (jax.random.key calls jnp.asarray(np.int64(seed)))
            if not x64 and dtype is None and mine() and _called_by_user(1):
                wide((obj,))
            return orig(obj, dtype, *args, **kwargs)

        return array

    def convert(operand: Any, new_dtype: Any = None, *args: Any, **kwargs: Any) -> Any:
        if mine():
            if type(operand) is int:
                literal(operand, new_dtype)
            found = _promotion(operand, new_dtype, sys._getframe(1))
            found = found or _join_cast(operand, new_dtype, sys._getframe(1))
            if found is not None:
                # the scope marks the equation: the rules read the verdict from it
                rec.promotions.append(found)
                scope = f"{PROMOTION_SCOPE}{rec.token}_{len(rec.promotions) - 1}"
                with source_info_util.extend_name_stack(scope):
                    return orig_convert(operand, new_dtype, *args, **kwargs)
        return orig_convert(operand, new_dtype, *args, **kwargs)

    def bind(self: Any, *args: Any, **params: Any) -> Any:
        # a 64-bit numpy value reaching a primitive (lax.mul(x, np.float64(2)), jnp.full
        # or jnp.where with a numpy fill, jnp.concatenate of a numpy array): bind
        # canonicalizes it to 32 bits
        if not x64 and mine():
            for a in args:
                numpy_value = type(a) is np.ndarray or isinstance(a, np.generic)
                if numpy_value and a.dtype in _WIDE and _from_user(a, sys._getframe(1)):
                    wide((a,))
        if mine() and "jaxpr" in params and any(type(a) is int for a in args):
            own_ints([a for a in args if type(a) is int], sys._getframe(1))
        return orig_bind(self, *args, **params)

    def own_ints(values: list[int], frame: Any) -> None:
        where = user_here()
        if where is not None:
            for v in values:
                if not callsite.users_int(frame, v):
                    rec.own_ints.add((where.file, where.line, v))

    def fold(consts: Any, params: Any, out_avals: Any) -> Any:
        c = consts[0] if consts else None
        # a Python int that jax canonicalized (a TypedInt, weakly typed)
        if c is not None and isinstance(c, int) and _weak_const(c) and mine():
            literal(int(c), params.get("new_dtype"))
        if mine():
            # a marked convert folded as it is bound (its scope is the current one), or
            # as jax inlines the jit that holds it
            mark = promotion_mark(source_info_util.current().name_stack)
            mark = _folded_promotion(sys._getframe(1)) if mark is None else mark
            if mark is not None and mark[0] == rec.token:
                rec.folded.add(mark[1])
        assert orig_fold is not None
        return orig_fold(consts, params, out_avals)

    requested: set[tuple[SourceInfo | None, str]] = set()

    def requested_dtype(text: str) -> None:
        first = text.split(" is not available")[0].replace("Explicitly requested dtype ", "")
        where = user_here()
        # one finding per requested dtype and line (jnp.sum(x, dtype=int64) warns
        # again in the convert_element_type it makes)
        if (where, first.split()[0]) not in requested:
            requested.add((where, first.split()[0]))
            rec.x64.append(Event(where, f"requested dtype {first} becomes 32-bit with x64 off"))

    def joining(orig: Any) -> Any:
        # jax.numpy functions that join with dtypes.result_type (jnp.linspace) or
        # lattice_result_type (jnp.array of a list) and cast to the join themselves
        def join(*args: Any, **kwargs: Any) -> Any:
            joined = orig(*args, **kwargs)
            if mine():
                callsite.note_join(sys._getframe(1), args, joined)
            return joined

        return join

    def branch_lines(fns: Any) -> None:
        where = user_here()
        if where is not None and mine():
            rec.branches[(where.file, where.line)] = [_code_line(f) for f in fns]

    def cond(pred: Any, true_fun: Any, false_fun: Any, *args: Any, **kwargs: Any) -> Any:
        branch_lines((false_fun, true_fun))
        return orig_cond(pred, true_fun, false_fun, *args, **kwargs)

    def switch(index: Any, branches: Any, *args: Any, **kwargs: Any) -> Any:
        branch_lines(list(branches))
        return orig_switch(index, branches, *args, **kwargs)

    def check_carry(name: str, body: Any, in_carry: Any, out_carry: Any) -> Any:
        try:
            return orig_check_carry(name, body, in_carry, out_carry)
        except TypeError:
            if mine():
                outs = list(out_carry)
                bodies = _jaxprs_in(sys._getframe(1), lambda avals: avals[: len(outs)] == outs)
                refused(bodies[:1], list(in_carry), outs)
            raise

    counted: dict[Any, tuple[Any, int]] = {}

    def promote_weak(in_val: Any, in_aval: Any, out_aval: Any) -> Any:
        # jax calls this once per flat carry, in order, from one generator per loop
        caller = sys._getframe(1)
        kept = counted.get(id(caller))
        k = kept[1] + 1 if kept is not None and kept[0] is caller else 0
        counted[id(caller)] = (caller, k)
        new, changed = orig_promote(in_val, in_aval, out_aval)
        if changed and mine():
            after = core.typeof(new)
            if after.dtype != in_aval.dtype:
                rec.weak_inits.append(WeakInit(user_here(), k, in_aval, after))
        return new, changed

    def check_branches(
        api_name: str, name1: str, name2: str, f1: Any, f2: Any, out_avals1: Any, out_avals2: Any
    ) -> None:
        try:
            return orig_check_branches(api_name, name1, name2, f1, f2, out_avals1, out_avals2)
        except TypeError:
            if mine():
                frame, first, second = sys._getframe(1), list(out_avals1), list(out_avals2)
                one = _branch_jaxpr(frame, f1, first)
                two = _branch_jaxpr(frame, f2, second)
                refused([one, two] if one is not None and two is not None else [], first, second)
            raise

    def refused(jaxprs: list[Any], ins: list[Any], outs: list[Any]) -> None:
        pairs = zip(ins, outs, strict=False)
        bad = tuple(i for i, (a, b) in enumerate(pairs) if not core.typematch(a, b))
        if jaxprs and bad:
            before = tuple(ins[i].str_short() for i in bad)
            after = tuple(outs[i].str_short() for i in bad)
            where = user_here()
            rec.refused.append(Refusal(_api_called(), where, tuple(jaxprs), bad, before, after))

    orig_check_carry = jloops._check_carry_type
    orig_promote = jloops._promote_weak_typed_input
    orig_check_branches = jconditionals._check_branch_outputs
    orig_cond, orig_switch = jax.lax.cond, jax.lax.switch
    orig_ufunc = ufunc_api.ufunc.__call__
    orig_bind = core.Primitive.bind
    orig_arrays = (jnp.array, jnp.asarray)
    orig_warnings = jdtypes.warnings
    orig_joins = (jdtypes.result_type, jdtypes.lattice_result_type)
    # jax's dtypes module sees a stand-in for `warnings` (Python's filters, registries
    # and showwarning stay the user's: no process-wide state changes)
    jdtypes.warnings = _DtypeWarnings(requested_dtype, mine)  # type: ignore[assignment]
    try:
        jlax._convert_element_type = convert
        jdtypes.result_type, jdtypes.lattice_result_type = (joining(f) for f in orig_joins)
        ufunc_api.ufunc.__call__ = ufunc_call  # type: ignore[method-assign]
        jnp.array, jnp.asarray = (make_array(f) for f in orig_arrays)
        core.Primitive.bind = bind  # type: ignore[method-assign]
        jax.lax.cond, jax.lax.switch = cond, switch
        jloops._check_carry_type = check_carry
        jloops._promote_weak_typed_input = promote_weak
        jconditionals._check_branch_outputs = check_branches
        if orig_fold is not None:
            pe.const_fold_rules[cet] = fold
        yield rec
    finally:
        callsite.forget()  # the frames of the user's calls
        jdtypes.warnings = orig_warnings
        jlax._convert_element_type = orig_convert
        jdtypes.result_type, jdtypes.lattice_result_type = orig_joins
        ufunc_api.ufunc.__call__ = orig_ufunc  # type: ignore[method-assign]
        jnp.array, jnp.asarray = orig_arrays
        core.Primitive.bind = orig_bind  # type: ignore[method-assign]
        jax.lax.cond, jax.lax.switch = orig_cond, orig_switch
        jloops._check_carry_type = orig_check_carry
        jloops._promote_weak_typed_input = orig_promote
        counted.clear()
        jconditionals._check_branch_outputs = orig_check_branches
        if orig_fold is not None:
            pe.const_fold_rules[cet] = orig_fold


class _DtypeWarnings:
    """Stands in for the `warnings` module in jax's dtypes module during one trace: the
    linting thread's "Explicitly requested dtype" warnings are recorded (whatever the
    user's filters say); every other warning goes on to Python's warnings, unchanged."""

    def __init__(self, requested: Any, mine: Any) -> None:
        self.requested, self.mine = requested, mine

    def __getattr__(self, name: str) -> Any:
        return getattr(warnings, name)

    def warn(self, message: Any, category: Any = None, stacklevel: int = 1, **kw: Any) -> None:
        text = str(message)
        if "Explicitly requested dtype" in text and self.mine():
            self.requested(text)
        else:  # one frame deeper than jax's own call
            warnings.warn(message, category, stacklevel + 1, **kw)


# jax.numpy's promotion helpers: they join their operands' dtypes (then make the join
# inexact, numeric or complex) and convert each operand with lax._convert_element_type
_PROMOTERS = frozenset(
    f.__code__
    for f in (
        jnp_util.promote_dtypes,
        jnp_util.promote_dtypes_inexact,
        jnp_util.promote_dtypes_numeric,
        jnp_util.promote_dtypes_complex,
    )
)


def _promotion(operand: Any, new_dtype: Any, frame: Any) -> Promotion | None:
    """The verdict on a conversion made by one of jnp's promotion helpers (their frame is
    `frame` or its caller: a list comprehension has a frame of its own before 3.12).
    Mixed when the helper joins two dtypes (or a weak scalar changes a strong operand's)
    and so do the operands of the user's call: jax's own constants (jnp.unwrap's default
    period=2*pi, the False jnp.select stacks with the conditions) joined inside a call
    whose operands are of one dtype are the function's documented semantics."""
    for _ in range(2):
        if frame is None or frame.f_code in _PROMOTERS:
            break
        frame = frame.f_back
    if frame is None or frame.f_code not in _PROMOTERS or jdtypes.is_weakly_typed(operand):
        return None
    try:
        to, before = np.dtype(new_dtype), np.dtype(jdtypes.dtype(operand))
        joined = np.dtype(frame.f_locals["to_dtype"])
        operands = list(frame.f_locals["args"])
        strong = [np.dtype(jdtypes.dtype(a)) for a in operands if not jdtypes.is_weakly_typed(a)]
        weak = tuple(_dtype_name(a) for a in operands if jdtypes.is_weakly_typed(a))
    except (KeyError, TypeError):  # a jax whose helpers changed: the rules' own reading
        return None
    if to == before:
        return None
    mixed = any(d != joined for d in strong) and callsite.user_operands_join(frame, operands)
    where = user_here() if mixed else None
    names = tuple(d.name for d in strong)
    return Promotion(names, weak, joined.name, to.name, mixed, before.name, where)


def _join_cast(operand: Any, new_dtype: Any, frame: Any) -> Promotion | None:
    """The verdict on a jax.numpy function's own cast of an operand to the join it
    computed with dtypes.result_type (jnp.linspace(i8, f32) casts its start)."""
    found = callsite.cast_to_join(operand, new_dtype, frame)
    if found is None:
        return None
    join_frame, values = found
    strong = tuple(_dtype_name(v) for v in values if not jdtypes.is_weakly_typed(v))
    weak = tuple(_dtype_name(v) for v in values if jdtypes.is_weakly_typed(v))
    joined = np.dtype(jdtypes.result_type(*values)).name
    mixed = callsite.user_operands_join(join_frame, values)
    where = user_here() if mixed else None
    to = np.dtype(new_dtype).name
    return Promotion(strong, weak, joined, to, mixed, _dtype_name(operand), where)


def _dtype_name(x: Any) -> str:
    return np.dtype(jdtypes.dtype(x)).name


def _folded_promotion(frame: Any) -> tuple[int, int] | None:
    """The promotion mark of the equation jax is folding (inlining a jit whose argument
    is a constant, jax folds the equations of its body: the caller holds `eqn`)."""
    for _ in range(3):
        if frame is None:
            return None
        eqn = frame.f_locals.get("eqn")
        if eqn is not None and hasattr(eqn, "source_info"):
            return promotion_mark(eqn.source_info.name_stack)
        frame = frame.f_back
    return None


def _jaxprs_in(frame: Any, outputs: Any) -> list[Any]:
    """The jaxprs (closed or open) held by a frame's locals, directly or in a list or
    tuple, whose output avals satisfy `outputs` (in the order the locals hold them)."""
    found: list[Any] = []
    for value in frame.f_locals.values():
        items = value if isinstance(value, list | tuple) else (value,)
        for item in items:
            avals = _out_avals(item)
            if avals is not None and outputs(avals) and all(item is not f for f in found):
                found.append(item)
    return found


def _branch_jaxpr(frame: Any, fn: Any, out_avals: list[Any]) -> Any:
    """The jaxpr jax traced from branch function `fn` (its debug info names the same
    source), among those in `frame` with these output avals."""
    found = _jaxprs_in(frame, lambda avals: avals == out_avals)
    src = api_util.fun_sourceinfo(fn)
    named = [j for j in found if getattr(_debug_info(j), "func_src_info", None) == src]
    return (named or found or [None])[0]


def _debug_info(jaxpr: Any) -> Any:
    return getattr(getattr(jaxpr, "jaxpr", jaxpr), "debug_info", None)


def _out_avals(jaxpr: Any) -> list[Any] | None:
    if isinstance(jaxpr, core.ClosedJaxpr):
        return list(jaxpr.out_avals)
    if isinstance(jaxpr, core.Jaxpr):
        return [v.aval for v in jaxpr.outvars]
    return None


def _api_called() -> str:
    """The jax.lax control-flow function the user's code called: the outermost public
    function of jax's control_flow package below the user's frame (fori_loop, not the
    scan it runs)."""
    frame: types.FrameType | None = sys._getframe(1)
    api = "loop or cond"
    while frame is not None and not user_file(frame.f_code.co_filename):
        code = frame.f_code
        if code.co_filename.startswith(_CONTROL_FLOW_DIR) and not code.co_name.startswith("_"):
            api = code.co_name
        frame = frame.f_back
    return api


_CONTROL_FLOW_DIR = os.path.dirname(os.path.abspath(jloops.__file__)) + os.sep


_FULL_CODE = jlax.full.__code__
# jax functions whose 64-bit numpy operand is cast on the user's explicit request, or
# that make one of their own (jax.random.key's seed)
_EXPLICIT_CALLS = frozenset(
    {"convert_element_type", "astype", "full_like", "random_seed", "bitcast_convert_type"}
)


def _called_by_user(depth: int) -> bool:
    """Whether the function `depth` frames above this one was called by the user."""
    return user_file(sys._getframe(depth + 1).f_code.co_filename)


def _from_user(value: Any, frame: Any) -> bool:
    """Whether a numpy value bound at `frame` (inside jax) is the user's, converted
    without an explicit dtype: an argument of the jax function the user called (not a
    value jax made itself, as jnp.bincount does), with no cast function in between."""
    api = None
    for _ in range(60):
        if frame is None:
            return False
        code = frame.f_code
        if user_file(code.co_filename):
            return api is not None and _passed(value, api)
        if code.co_name in _EXPLICIT_CALLS:
            return False
        if code is _FULL_CODE and frame.f_locals.get("dtype") is not None:
            return False
        api, frame = frame, frame.f_back
    return False


def _passed(value: Any, api: Any) -> bool:
    """Whether `value` is (or is an item of) an argument the user passed to the jax
    function running in frame `api`: a parameter the function has not reassigned yet
    (jnp.bincount first sets its own ``weights = np.array(1, int_)``)."""
    names = api.f_locals
    # jax.lax's wrappers reassign their operands only to pass them on
    # (x, y = core.auto_insert_reshard(x, y))
    lax_wrapper = api.f_code.co_filename.startswith(_LAX_DIR)
    for name, first_store in _param_stores(api.f_code).items():
        if first_store < api.f_lasti and not lax_wrapper:
            continue
        v = names.get(name)
        if v is value:
            return True
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list | tuple) else ()
        if any(item is value for item in items):
            return True
    return False


_LAX_DIR = os.path.dirname(jlax.__file__) + os.sep
_STORES: dict[types.CodeType, dict[str, int]] = {}
_NEVER = 1 << 62


def _param_stores(code: types.CodeType) -> dict[str, int]:
    """Parameter name -> bytecode offset of its first reassignment (a large number when
    the function never reassigns it)."""
    stores = _STORES.get(code)
    if stores is None:
        n = code.co_argcount + code.co_kwonlyargcount
        n += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
        stores = dict.fromkeys(code.co_varnames[:n], _NEVER)
        for ins in dis.get_instructions(code):
            if ins.opname in _STORE_OPS and ins.argval in stores:
                stores[ins.argval] = min(stores[ins.argval], ins.offset)
        _STORES[code] = stores
    return stores


_STORE_OPS = ("STORE_FAST", "DELETE_FAST", "STORE_DEREF", "DELETE_DEREF")


def _code_line(fn: Any) -> SourceInfo | None:
    """The file and first line of a branch function's code (through partial)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    code = getattr(fn, "__code__", None)
    if code is None or not user_file(code.co_filename):
        return None
    return SourceInfo(code.co_filename, code.co_firstlineno, code.co_name)


def _weak_const(c: Any) -> bool:
    aval = getattr(c, "aval", None)
    return bool(getattr(aval, "weak_type", False))


def _narrow(dtype: np.dtype) -> str:
    return {"float64": "float32", "int64": "int32", "uint64": "uint32", "complex128": "complex64"}[
        dtype.name
    ]
