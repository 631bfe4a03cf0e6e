"""jaxpr -> weaktrace IR: jax's own trace of unmodified JAX code, as a weaktrace Program.

Every variable keeps its weak flag, every equation the user's file and line (from
``eqn.source_info``: the innermost frame outside jax and weaktrace), and the jaxprs held
in an equation's params (loop bodies, branches, nested jits, custom_jvp/vjp, remat)
become sub-programs. Primitives weaktrace knows are reused by name; others get a
Primitive record of their own so that the program still prints.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from jax._src import core as jax_core
from jax._src import source_info_util
from jax._src.lax import lax as jlax

from weaktrace.dtypes import registry
from weaktrace.ir.values import (
    AbstractValue,
    Atom,
    Equation,
    Literal,
    Primitive,
    Program,
    SourceInfo,
    Var,
    abstract_eval_rules,
)

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LAX_DIR = os.path.dirname(os.path.abspath(jlax.__file__)) + os.sep
# jax.Array's operators (`0.9 ** x`) forward through a closure named `op` in this file
# to the jnp function they call (`power`): that function names the operation.
_ARRAY_METHODS = os.path.join(os.path.dirname(_LAX_DIR.rstrip(os.sep)), "numpy", "array_methods.py")
_PRIMITIVES: dict[str, Primitive] = {}
_JAX_VAR = jax_core.Var  # an equation's operand that is no Literal
_SCALARS = frozenset({bool, int, float, complex, str, type(None)})
# the name-stack scope the lint hooks give a conversion of jnp's promotion helpers,
# followed by "<run>_<index>": the lint run (its Recorder's token) and the index of its
# record (weaktrace.lint.hooks.Promotion) in that run
PROMOTION_SCOPE = "weaktrace_lint_promotion_"
_PROMOTION_RE = re.compile(re.escape(PROMOTION_SCOPE) + r"(\d+)_(\d+)")
# jit params about placement and compilation, which jax's own jaxpr printing hides too
_NOISE = frozenset(
    {
        "compiler_options_kvs",
        "ctx_mesh",
        "donated_invars",
        "in_layouts",
        "out_layouts",
        "in_shardings",
        "out_shardings",
        "keep_unused",
        "inline",
        "resource_env",
        "out_sharding",
    }
)


def primitive(name: str, multiple_results: bool = False) -> Primitive:
    """weaktrace's Primitive of that name, or a record made (once) for a jax-only one."""
    if not _PRIMITIVES:
        _PRIMITIVES.update((p.name, p) for p in abstract_eval_rules)
    p = _PRIMITIVES.get(name)
    if p is None:
        p = _PRIMITIVES[name] = Primitive(name, multiple_results)
    return p


def promotion_mark(name_stack: Any) -> tuple[int, int] | None:
    """The hooks' promotion mark in an equation's name stack: (run, record index)."""
    found = _PROMOTION_RE.search(str(name_stack))
    return (int(found.group(1)), int(found.group(2))) if found else None


def aval_of(aval: Any) -> AbstractValue:
    """A jax aval as an AbstractValue (tokens and extended dtypes: their physical view)."""
    shape = tuple(getattr(aval, "shape", ()))
    dtype = getattr(aval, "dtype", None)
    weak = bool(getattr(aval, "weak_type", False))
    try:
        return AbstractValue.make(shape, registry.of(dtype), weak)
    except Exception:  # key<fry>, tokens, refs: weaktrace has no dtype for them
        return AbstractValue.make(shape, registry.of("uint32"), weak)


@dataclass
class Meta:
    """What the rules need beyond the Program: per equation (by id), the jax call it was
    recorded in (equations of one inlined jax.numpy call share it) and its frame names."""

    call: dict[int, Any] = field(default_factory=dict)
    frames: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # the jax function the user called ("lax.dot" for jax.lax's, "dot" for jnp.dot)
    caller: dict[int, str] = field(default_factory=dict)
    parent: dict[int, Program] = field(default_factory=dict)  # sub-program id -> its owner
    # equations of a gradient's backward pass (jax's transpose of the user's operations:
    # they repeat the forward pass's promotions)
    transposed: set[int] = field(default_factory=set)
    # equation id -> the hooks' mark of the promotion that converted it (run, index)
    promotion: dict[int, tuple[int, int]] = field(default_factory=dict)


def user_source(tb: Any) -> SourceInfo | None:
    """The user's frame of a jax traceback: the innermost outside jax, Python and
    weaktrace (whose lint hooks may be on the stack)."""
    if tb is None:
        return None
    # jax's user_frames, read from the code objects: only the frame found pays for
    # its line number (jax's computes one for every user frame before it: the hooks')
    codes, lastis = tb.raw_frames()
    for code, lasti in zip(codes, lastis, strict=True):
        file = code.co_filename
        if source_info_util.is_user_filename(file) and not file.startswith(_PACKAGE_DIR):
            fr = source_info_util.raw_frame_to_frame(code, lasti)
            return SourceInfo(fr.file_name, fr.start_line, fr.function_name)
    return None


def _user_source(tb: Any, cache: dict[int, SourceInfo | None]) -> SourceInfo | None:
    if tb is None:
        return None
    key = id(tb)
    if key in cache:
        return cache[key]
    src = cache[key] = user_source(tb)
    return src


def _codes(tb: Any) -> Sequence[Any]:
    """The code objects of a jax traceback's frames, innermost first. Its ``frames``
    (file, qualified name and line of each) are the same files and names, but cost a
    line-number lookup per frame: the importer reads ~30 frames per equation."""
    return tb.raw_frames()[0]


class _Importer:
    def __init__(self) -> None:
        self.meta = Meta()
        self.cache: dict[int, SourceInfo | None] = {}
        self.frame_cache: dict[int, tuple[str, ...]] = {}
        self.caller_cache: dict[int, str] = {}

    def frames(self, tb: Any) -> tuple[str, ...]:
        key = id(tb)
        names = self.frame_cache.get(key)
        if names is None:
            names = self.frame_cache[key] = tuple(c.co_qualname for c in _codes(tb))
        return names

    def caller(self, tb: Any) -> str:
        key = id(tb)
        name = self.caller_cache.get(key)
        if name is None:
            name = ""
            codes = _codes(tb)
            for i, code in enumerate(codes):
                file = code.co_filename
                if source_info_util.is_user_filename(file) and not file.startswith(_PACKAGE_DIR):
                    # past lint's own wrappers (of jnp.array, of the ufuncs) and an
                    # operator's forwarding (to the jnp function it calls), in any order
                    j = i - 1
                    while j > 0 and (
                        codes[j].co_filename.startswith(_PACKAGE_DIR)
                        or codes[j].co_filename == _ARRAY_METHODS
                    ):
                        j -= 1
                    api = codes[j] if i else None
                    if api is not None:
                        # "lax.dot" for jax.lax's own functions (jnp.dot is "dot")
                        lax = api.co_filename.startswith(_LAX_DIR)
                        name = ("lax." if lax else "") + api.co_qualname
                        if name == "ufunc.__call__":  # a jnp ufunc: the operator's name
                            ops = [c.co_qualname for c in codes[j:i]]
                            op = [n for n in ops if n.startswith("_operator_")]
                            name = op[0].removeprefix("_operator_") if op else "ufunc"
                    break
            self.caller_cache[key] = name
        return name

    def program(
        self,
        jaxpr: Any,
        consts: Sequence[Any] = (),
        where: SourceInfo | None = None,
    ) -> Program:
        env: dict[Any, Var] = {}

        def bind(v: Any) -> Var:
            w = env[v] = Var(aval_of(v.aval))
            return w

        def use(a: Any) -> Atom:
            if a.__class__ is _JAX_VAR:  # most operands: decided without a failing hasattr
                return env[a]
            if hasattr(a, "val"):  # a jax Literal
                arr = np.asarray(a.val)
                value = arr.item() if arr.ndim == 0 else arr
                return Literal(value, aval_of(a.aval))
            return env[a]

        constvars = tuple(bind(v) for v in jaxpr.constvars)
        invars = tuple(bind(v) for v in jaxpr.invars)
        eqns = []
        for e in jaxpr.eqns:
            tb = e.source_info.traceback
            src = _user_source(tb, self.cache) or where
            params = {
                k: self.param(v, src)
                for k, v in e.params.items()
                if k not in _NOISE and (v is not None or k != "sharding")
            }
            inputs = tuple(use(a) for a in e.invars)
            outputs = tuple(bind(v) for v in e.outvars)
            eqn = Equation(
                primitive(e.primitive.name, e.primitive.multiple_results),
                inputs,
                params,
                outputs,
                src,
            )
            if tb is not None:
                self.meta.call[id(eqn)] = tb
                self.meta.frames[id(eqn)] = self.frames(tb)
                self.meta.caller[id(eqn)] = self.caller(tb)
            stack = str(e.source_info.name_stack)
            if "transpose(" in stack:
                self.meta.transposed.add(id(eqn))
            if e.primitive.name == "convert_element_type":
                mark = promotion_mark(stack)
                if mark is not None:
                    self.meta.promotion[id(eqn)] = mark
            eqns.append(eqn)
        return Program(
            invars, tuple(eqns), tuple(use(a) for a in jaxpr.outvars), constvars, tuple(consts)
        )

    def param(self, value: Any, where: SourceInfo | None) -> Any:
        if value.__class__ in _SCALARS:  # most params: no jaxpr in them, no hasattr
            return value
        if hasattr(value, "jaxpr") and hasattr(value, "consts"):  # a ClosedJaxpr
            return self.program(value.jaxpr, value.consts, where)
        if hasattr(value, "eqns") and hasattr(value, "invars"):  # an open Jaxpr
            return self.program(value, (), where)
        if (
            isinstance(value, tuple)
            and value
            and any(hasattr(v, "eqns") or hasattr(v, "jaxpr") for v in value)
        ):
            return tuple(self.param(v, where) for v in value)
        return value


def import_jaxpr(closed_jaxpr: Any, where: SourceInfo | None = None) -> tuple[Program, Meta]:
    """A ClosedJaxpr (or an open Jaxpr) as a weaktrace Program, and the per-equation
    facts the rules use."""
    imp = _Importer()
    if hasattr(closed_jaxpr, "eqns"):  # an open Jaxpr
        return imp.program(closed_jaxpr, (), where), imp.meta
    prog = imp.program(closed_jaxpr.jaxpr, closed_jaxpr.consts, where)
    return prog, imp.meta
