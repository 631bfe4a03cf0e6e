"""JAX's own dtype test suite (tests/dtypes_test.py in jax-ml/jax, at the installed
version), ported as black-box differential checks of weaktrace against the live jax.

Each upstream test becomes a family of cases (see `FAMILIES`); a case is a jax
configuration (x64 on/off, standard/strict promotion, jax_explicit_x64_dtypes) and
operands. jax computes the expected answer at test time: jnp.promote_types,
jnp.result_type, jax.dtypes.result_type(..., return_weak_type_flag=True),
jax.make_jaxpr of the jax.numpy program, jax.jit of it and jax's eager operators.
weaktrace answers with its ambient configuration, and again with an explicit
`wt.policy("jax", ...)` under the opposite ambient configuration.

Upstream tests of jax internals with no weaktrace counterpart (issubdtype, isdtype,
canonicalize_value, extended dtypes, EArray, itemsize_bits, safe_to_cast) are not
ported. CI runs a deterministic sample of each family; `--run-slow` runs all of it.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import random
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.peers._jax_cases import (
    ALL_DTYPES,
    ALL_MODES,
    BINOPS,
    EXPLICIT_MODES,
    MAIN_MODES,
    PY_TYPES,
    SCALAR_SUBCLASS_VALUES,
    X64_DTYPES,
    Case,
    Form,
    Known,
    Mode,
    Outcome,
    aval_key,
    by_mode,
    compare,
    compare_arrays,
    concrete_forms,
    explicit_x64_values,
    jax_avals,
    jax_config,
    operand_forms,
    py,
    run,
    sample_data,
    sds,
    spec_forms,
    traced,
    wt_avals,
)

Problems = list[str]


def identity(x: Any) -> Any:
    return x


def _double(a: Any) -> Any:
    return a + a


def _half(x: Any) -> Any:
    return x / 2


@functools.cache
def buildable(form: Form, mode: Mode) -> bool:
    """Whether the operand exists in this configuration on this backend (a 64-bit jax
    array under jax_explicit_x64_dtypes='error', float6 arrays on CPU do not)."""
    if form.kind == "jnparray":
        return True  # made by each side; check_binary_promotion compares the errors
    if form.kind == "jax" and not jax_runs(np.dtype(form.name)):
        return False
    with jax_config(mode):
        return run(form.build).error is None


@functools.cache
def jax_runs(dt: np.dtype) -> bool:
    """Whether jax can make and run arrays of dt here: not float6 on CPU, and not int1 /
    uint1, which jax.jit returns as bool (upstream skips the sub-byte types for
    "incomplete XLA support" too)."""
    with jax.enable_x64(True):
        x = run(jnp.asarray, sample_data(dt, (2,)), dt)
        if x.error is not None:
            return False
        y = run(jax.jit(identity), x.value)
        return y.error is None and y.value.dtype == dt


def both_ways(
    mode: Mode, theirs: Any, ours: Callable[..., Any], *args: Any, what: str = ""
) -> Problems:
    """weaktrace with the ambient configuration, then with an explicit policy under the
    opposite one (warnings compared only for the first)."""
    out = compare(theirs, run(ours, *args), f"{what}ambient")
    with jax_config(mode.flipped()):
        flipped = run(ours, *args, policy=mode.policy())
    return out + compare(theirs, flipped, f"{what}policy=", warnings_too=False)


def trace_both_ways(mode: Mode, jax_fn: Any, wt_fn: Any, args: list[Any]) -> Problems:
    return both_ways(mode, run(jax_avals, jax_fn, *args), wt_avals, wt_fn, *args, what="trace ")


def compiled(jax_fn: Any, wt_fn: Any, args: list[Any], what: str = "compiled") -> Problems:
    return compare_arrays(run(jax.jit(jax_fn), *args), run(traced(wt_fn), *args), what)


# -- compiled programs, many per jit -------------------------------------------------


Program = tuple[Callable[..., Any], Callable[..., Any], list[Any]]


def _joined(fns: list[Callable[..., Any]], sizes: list[int]) -> Callable[..., Any]:
    def all_of(*flat: Any) -> tuple[Any, ...]:
        out, i = [], 0
        for fn, n in zip(fns, sizes, strict=True):
            out.append(fn(*flat[i : i + n]))
            i += n
        return tuple(out)

    return all_of


def check_compiled(cases: list[Case], program: Callable[[Case], Program]) -> list[Problems]:
    """jax.jit of the jax.numpy programs against weaktrace's compiled programs, values
    included. Programs jax accepts run 48 to a jit (a compile costs ~40 ms); a batch
    that fails on either side is split in halves until the culprit runs alone."""
    progs = [program(c) for c in cases]
    results: dict[int, Problems] = {}
    good = []
    for i, (jf, wf, args) in enumerate(progs):
        if run(jax_avals, jf, *args).error is not None:
            results[i] = compiled(jf, wf, args)  # jax rejects it while tracing: no compile
        else:
            good.append(i)
    for start in range(0, len(good), 48):
        _compiled_batch(progs, good[start : start + 48], results)
    return [results[i] for i in range(len(cases))]


def _compiled_batch(progs: list[Program], batch: list[int], results: dict[int, Problems]) -> None:
    if len(batch) == 1:
        results[batch[0]] = compiled(*progs[batch[0]])
        return
    sizes = [len(progs[i][2]) for i in batch]
    flat = [a for i in batch for a in progs[i][2]]
    theirs = run(jax.jit(_joined([progs[i][0] for i in batch], sizes)), *flat)
    ours = run(wt.trace(_joined([progs[i][1] for i in batch], sizes)), *flat)
    if theirs.error is not None or ours.error is not None:
        half = len(batch) // 2
        _compiled_batch(progs, batch[:half], results)
        _compiled_batch(progs, batch[half:], results)
        return
    for k, i in enumerate(batch):
        t = dataclasses.replace(theirs, value=theirs.value[k])
        o = dataclasses.replace(ours, value=ours.value[k])
        results[i] = compare_arrays(t, o, "compiled")


# -- the families ------------------------------------------------------------------------


Space = list[tuple[str, list[tuple[Form, ...]]]]  # (operation, its operand tuples), ...


def pairs(forms: list[Form]) -> list[tuple[Form, ...]]:
    return list(itertools.product(forms, repeat=2))


def singles(forms: list[Form]) -> list[tuple[Form, ...]]:
    return [(f,) for f in forms]


@dataclasses.dataclass(frozen=True)
class Family:
    name: str
    modes: list[Mode]
    space: Callable[[Mode], Space]  # the cases of one mode (made lazily: there are many)
    check: Callable[[list[Case]], list[Problems]]  # run under the cases' (one) mode
    ci: int  # cases per mode in a CI run


def one_by_one(check: Callable[[Case], Problems]) -> Callable[[list[Case]], list[Problems]]:
    return lambda cases: [check(c) for c in cases]


def build(case: Case) -> list[Any]:
    """The case's operands, made under its configuration (which must be current)."""
    return [_built(f, case.mode) for f in case.args]


@functools.cache
def _built(form: Form, mode: Mode) -> Any:
    return form.build()  # values are not mutated: one per form and configuration


# testDefaultTypes, testScalarWeakTypes: a Python scalar through jnp.array, jit(jnp.array),
# jit(identity), and x / 2; plus the same constant made inside the traced function.


def default_types_space(mode: Mode) -> Space:
    return [("-", singles([py(t) for t in PY_TYPES]))]


def check_default_types(case: Case) -> Problems:
    (v,) = build(case)
    out = compare_arrays(run(jnp.array, v), run(wnp.array, v), "eager array")
    out += compiled(identity, identity, [v], "jit(identity)")
    out += compiled(jnp.array, wnp.array, [v], "jit(array)")
    out += compiled(_half, _half, [v], "jit(x / 2)")
    theirs = run(jax.jit(functools.partial(jnp.array, v)))
    out += compare_arrays(theirs, run(wt.trace(functools.partial(wnp.array, v))), "constant")
    return out + trace_both_ways(case.mode, identity, identity, [v])


# test_canonicalize_type, testDtypeFromScalarType/ScalarValue/Value/Dtype/String/None,
# testResultTypeNone, testResultTypeWeakFlag, testJaxTypeFromType/Val: result_type of
# one argument of every kind, with and without the weak-type flag.


def single_arg_space(mode: Mode) -> Space:
    return [("result_type", singles(spec_forms()))]


def _flag(*args: Any, policy: Any = None) -> Any:
    return wt.result_type(*args, return_weak_type_flag=True, policy=policy)


def _jax_flag(*args: Any) -> Any:
    return jax.dtypes.result_type(*args, return_weak_type_flag=True)


def check_result_type(case: Case) -> Problems:
    args = build(case)
    out = both_ways(case.mode, run(jnp.result_type, *args), wt.result_type, *args)
    return out + both_ways(case.mode, run(_jax_flag, *args), _flag, *args, what="flag ")


# testBinaryPromotion: jnp.array operands with and without dtype=, swapped, eager and
# jitted; also built inside the traced function with weaktrace.numpy.array(dtype=).

_UPSTREAM_BINARY = [
    (("-", ()), ("py", ())),
    (("-", ()), ("-", ())),
    *[(("-", ()), (d, ())) for d in ("float16", "float32", "float64")],
    *[((d, ()), ("py", ())) for d in ("float16", "float32", "float64")],
    *[
        ((a, ()), (b, ()))
        for a, b in itertools.combinations_with_replacement(("float16", "float32", "float64"), 2)
    ],
    (("-", (1,)), ("py", ())),
    (("-", (1,)), ("-", ())),
    *[(("-", (1,)), (d, ())) for d in ("float16", "float32", "float64")],
    (("float32", (1,)), ("float16", ())),
    (("float16", (1,)), ("float32", ())),
    (("float16", (1,)), ("py", ())),
]
BINARY_PROMOTION_MODES = [Mode(False, False, e) for e in ("warn", "allow", "error")]
BINARY_PROMOTION_MODES += [Mode(True, False)]


def _jnparray(spec: tuple[str, tuple[int, ...]]) -> Form:
    name, shape = spec
    return py(float) if name == "py" else Form("jnparray", name, shape=shape)


def binary_promotion_space(mode: Mode) -> Space:
    xy = [(_jnparray(x), _jnparray(y)) for x, y in _UPSTREAM_BINARY]
    return [("add", xy + [(y, x) for x, y in xy])]  # and swapped


def _make_all(forms: tuple[Form, ...], module: Any) -> list[Any]:
    return [f.construct(module) if f.kind == "jnparray" else f.build() for f in forms]


def _add_made_by(forms: tuple[Form, ...], module: Any) -> Any:
    a, b = _make_all(forms, module)
    return a + b


def check_binary_promotion(case: Case) -> Problems:
    theirs = run(jax.jit(functools.partial(_add_made_by, case.args, jnp)))
    ours = run(wt.trace(functools.partial(_add_made_by, case.args, wnp)))
    out = compare_arrays(theirs, ours, "made inside")
    if theirs.warned != ours.warned:
        out.append(f"made inside: jax warned={theirs.warned}, weaktrace warned={ours.warned}")
    made = run(build, case)
    if made.error is not None:
        return out  # jax cannot make the operands here (explicit x64 dtypes are errors)
    args = made.value
    ours = run(traced(operator.add), *args)
    out += compare_arrays(run(operator.add, *args), ours, "eager vs compiled")
    out += compare_arrays(run(jax.jit(operator.add), *args), ours, "compiled")
    return out + trace_both_ways(case.mode, operator.add, operator.add, args)


# testPromoteDtypesStandard / testPromoteDtypesStrict: every pair of dtypes and weak
# Python types (the weak-type lattice_result_type checks are in result_type_pairs).

PROMOTE_SPECS = [Form("dtype", d.name) for d in ALL_DTYPES]
PROMOTE_SPECS += [Form("pytype", t.__name__) for t in PY_TYPES]


def promote_types_space(mode: Mode) -> Space:
    return [("promote_types", pairs(PROMOTE_SPECS))]


def check_promote_types(case: Case) -> Problems:
    args = build(case)
    return both_ways(case.mode, run(jnp.promote_types, *args), wt.promote_types, *args)


# result_type of pairs, with the weak-type flag: dtypes, weak values, Python scalars
# and their types, None.

PAIR_FORMS = [Form("dtype", d.name) for d in ALL_DTYPES]
PAIR_FORMS += [Form("jax", d.name, True) for d in ALL_DTYPES]  # weak (a weak SDS is strong here)
PAIR_FORMS += [py(t) for t in PY_TYPES] + [Form("pytype", t.__name__) for t in PY_TYPES]
PAIR_FORMS += [Form("none", "None")]


def result_type_pairs_space(mode: Mode) -> Space:
    return [("result_type", pairs(PAIR_FORMS))]


# testObservedPromotionTable: the 18x18 table of `a + b` over bool, the 8 integer, 4 float
# and 2 complex dtypes and the weak int/float/complex, from values (jnp.<dtype>(0) and
# Python scalars, eager jax as oracle) and from ShapeDtypeStructs (jax.make_jaxpr), in
# every variant jax has: x64 on, off, off with jax_explicit_x64_dtypes='allow', strict.

TABLE_DTYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32"]
TABLE_DTYPES += ["int64", "bfloat16", "float16", "float32", "float64", "complex64", "complex128"]
TABLE_MODES = [Mode(True, False), Mode(False, False), Mode(False, False, "allow")]
TABLE_MODES += [Mode(False, True), Mode(True, True), Mode(False, True, "allow")]


def _table_forms(kind: str) -> list[Form]:
    return [Form(kind, n) for n in TABLE_DTYPES] + [py(t) for t in (int, float, complex)]


def observed_table_space(mode: Mode) -> Space:
    return [(kind, pairs(_table_forms(kind))) for kind in ("jax", "sds")]


def _eager_key(fn: Callable[..., Any], *args: Any) -> Any:
    """The abstract value of an eager result; a Python scalar (Python computed it) is
    read as upstream's val_to_typecode does, with jax.dtypes.result_type."""
    out = fn(*args)
    if not isinstance(out, jax.Array):
        weak = type(out) in (int, float, complex)  # upstream: dtypes.is_weakly_typed
        return ((np.shape(out), jax.dtypes.result_type(out), weak),)
    return ((tuple(out.shape), np.dtype(out.dtype), bool(out.weak_type)),)


def check_observed_table(case: Case) -> Problems:
    made = run(build, case)
    if made.error is not None:
        return [f"cannot build operands: {made.error.__name__}"]
    args = made.value
    if case.op == "jax":  # the upstream table: eager jax values
        theirs = run(_eager_key, operator.add, *args)
        return both_ways(case.mode, theirs, wt_avals, operator.add, *args, what="trace ")
    return trace_both_ways(case.mode, operator.add, operator.add, args)


def table_values_space(mode: Mode) -> Space:
    return [("add", pairs(_table_forms("jax")))]


def _binop_program(case: Case) -> Program:
    op = BINOPS[case.op]
    return op.jax_fn, op.wt_fn, build(case)


# testBinaryPromotionJitInvariance: xfun(x) + yfun(y) for x, y of int, float, jnp.int16,
# jnp.int32, jnp.float16, jnp.float32 and xfun, yfun in identity, abs, array; eager jax,
# jax.jit, weaktrace traced and compiled, weaktrace.numpy eagerly.

INVARIANCE_ARGS = [py(int), py(float)]
INVARIANCE_ARGS += [Form("jax", n) for n in ("int16", "int32", "float16", "float32")]
INVARIANCE_FUNS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "identity": (identity, identity),
    "abs": (jnp.abs, wnp.abs),
    "array": (jnp.array, wnp.array),
}


def jit_invariance_space(mode: Mode) -> Space:
    funs = itertools.product(INVARIANCE_FUNS, repeat=2)
    return [(f"{fx}+{fy}", pairs(INVARIANCE_ARGS)) for fx, fy in funs]


def _fun_sum(fx: Callable[..., Any], fy: Callable[..., Any], x: Any, y: Any) -> Any:
    return fx(x) + fy(y)


def _invariance_fns(case: Case) -> tuple[Callable[..., Any], Callable[..., Any]]:
    fx, fy = (INVARIANCE_FUNS[n] for n in case.op.split("+"))
    return functools.partial(_fun_sum, fx[0], fy[0]), functools.partial(_fun_sum, fx[1], fy[1])


def check_jit_invariance(case: Case) -> Problems:
    jf, wf = _invariance_fns(case)
    args = build(case)
    theirs = run(_eager_key, jf, *args)
    out = both_ways(case.mode, theirs, wt_avals, wf, *args, what="trace vs eager ")
    out += trace_both_ways(case.mode, jf, wf, args)
    theirs, ours = run(jf, *args), run(wf, *args)
    if theirs.error is not None and theirs.error is ours.error:
        return out  # weaktrace.numpy runs jax.numpy outside a trace: jax's own error
    return out + compare_arrays(theirs, ours, "weaktrace.numpy eager")


def _invariance_program(case: Case) -> Program:
    jf, wf = _invariance_fns(case)
    return jf, wf, build(case)


# testUnaryPromotion, testArrayRepr: a (weak or strong) value of every dtype, made as
# upstream does: result_type of it, its abstract value through a trace, its repr after jit.


def unary_space(mode: Mode) -> Space:
    forms = [Form("jax", d.name, weak) for d in ALL_DTYPES for weak in (False, True)]
    return [("identity", singles(forms))]


def check_unary(case: Case) -> Problems:
    args = build(case)
    out = check_result_type(case)
    out += trace_both_ways(case.mode, identity, identity, args)
    theirs, ours = run(jax.jit(identity), *args), run(traced(identity), *args)
    out += compare_arrays(theirs, ours, "jit(identity)")
    if theirs.error is None and ours.error is None and repr(theirs.value) != repr(ours.value):
        out.append(f"repr: jax {theirs.value!r}, weaktrace {ours.value!r}")
    return out


# testFloat8PromotionError, testFloat4PromotionError, testIntNPromotionError (and the
# float6 types): small floats and sub-byte ints do not promote implicitly.

SMALL_DTYPES = [
    d for d in ALL_DTYPES if d.itemsize == 1 and d.name not in ("bool", "int8", "uint8")
]


def small_types_space(mode: Mode) -> Space:
    out = []
    for d, partner, kind in itertools.product(SMALL_DTYPES, ("float32", "int32"), ("sds", "jax")):
        pair = (Form(kind, d.name, shape=(2,)), Form(kind, partner, shape=(2,)))
        out += [pair, pair[::-1]]
    return [("add", out)]


def check_small_types(case: Case) -> Problems:
    return trace_both_ways(case.mode, operator.add, operator.add, build(case))


# testBinaryNonPromotion: x + x for a weak or strong x of every dtype, standard and strict.


def non_promotion_space(mode: Mode) -> Space:
    kinds = itertools.product(("jax", "sds"), ALL_DTYPES, (False, True))
    return [("x+x", singles([Form(kind, d.name, weak) for kind, d, weak in kinds]))]


def check_non_promotion(case: Case) -> Problems:
    args = build(case)
    out = []
    if case.args[0].kind == "jax":
        eager = run(_eager_key, _double, *args)
        out += both_ways(case.mode, eager, wt_avals, _double, *args, what="trace vs eager ")
        out += compiled(_double, _double, args, "jit(x + x)")
    return out + trace_both_ways(case.mode, _double, _double, args)


# testArrayCasts, testScalarCastInsideJitWorks: astype (function and method) and
# array(x, dtype=) to every dtype and Python type, from upstream's [1, 2.5, -3.7].

CAST_TARGETS = [Form("sctype", d.name) for d in ALL_DTYPES]
CAST_TARGETS += [Form("pytype", t.__name__) for t in PY_TYPES]
CASTS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "astype": (jnp.astype, wnp.astype),
    "method": (lambda x, t: x.astype(t), lambda x, t: x.astype(t)),
    "array": (lambda x, t: jnp.array(x, dtype=t), lambda x, t: wnp.array(x, dtype=t)),
}


def casts_space(mode: Mode) -> Space:
    sources = [Form("np", "float64", shape=(3,), data="casts"), Form("jax", "float32")]
    return [(how, list(itertools.product(sources, CAST_TARGETS))) for how in CASTS]


def _cast_program(case: Case) -> Program:
    x, t = build(case)
    jf, wf = CASTS[case.op]
    return functools.partial(_cast_to, jf, t), functools.partial(_cast_to, wf, t), [x]


def _cast_to(fn: Callable[..., Any], t: Any, x: Any) -> Any:
    return fn(x, t)


def check_casts(case: Case) -> Problems:
    made = run(build, case)
    if made.error is not None:
        return [f"cannot build operands: {made.error.__name__}"]
    jf, wf, args = _cast_program(case)
    return trace_both_ways(case.mode, jf, wf, args)


# testEnumPromotion: an IntEnum member is a weak int to jax, and so is any instance of
# a subclass of int, float or complex (IntFlag, a float Enum, a float subclass): as an
# argument, made into an array, and as an operand met inside the traced function.

ENUM_OPS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "identity": (identity, identity),
    "array": (jnp.array, wnp.array),
    "add-int8": (lambda e: np.int8(1) + jnp.asarray(e), lambda e: np.int8(1) + wnp.asarray(e)),
}
# op -> (the traced argument, fn(module, argument, subclass instance)): the instance is
# a closure constant; operators on both sides, and the module's add.
ENUM_CLOSURE_OPS: dict[str, tuple[Any, Callable[[Any, Any, Any], Any]]] = {
    "closure-add-f16": (np.float16(1), lambda m, x, e: x + e),
    "closure-radd-i8": (np.int8(3), lambda m, x, e: e + x),
    "closure-mul-u8": (np.arange(3, dtype=np.uint8), lambda m, x, e: x * e),
    "closure-lt-bf16": (np.ones(2, dtype=jnp.bfloat16), lambda m, x, e: x < e),
    "closure-module-add-i16": (np.int16(2), lambda m, x, e: m.add(x, e)),
}


def enum_space(mode: Mode) -> Space:
    members = singles([Form("enum", name) for name in SCALAR_SUBCLASS_VALUES])
    ops = [*ENUM_OPS, *ENUM_CLOSURE_OPS, "constant", "result_type"]
    return [(op, members) for op in ops]


def check_enum(case: Case) -> Problems:
    (e,) = build(case)
    if case.op == "result_type":
        return check_result_type(case)
    if case.op == "constant":  # made inside the traced function, as a closure
        theirs = run(jax.jit(functools.partial(jnp.array, e)))
        return compare_arrays(theirs, run(wt.trace(functools.partial(wnp.array, e))), "constant")
    if case.op in ENUM_CLOSURE_OPS:
        x, fn = ENUM_CLOSURE_OPS[case.op]
        jf = functools.partial(fn, jnp, e=e)
        wf = functools.partial(fn, wnp, e=e)
        return compiled(jf, wf, [x]) + trace_both_ways(case.mode, jf, wf, [x])
    jf, wf = ENUM_OPS[case.op]
    return compiled(jf, wf, [e]) + trace_both_ways(case.mode, jf, wf, [e])


# The sweep: ten binary operations (one per promotion rule and decomposition) over every
# pair of operands (every dtype strong, weak, as a numpy scalar; Python scalars).

SWEEP_FORMS = operand_forms()


def binary_space(mode: Mode) -> Space:
    every_pair = pairs(SWEEP_FORMS)
    return [(op, every_pair) for op in BINOPS]


def check_binary(case: Case) -> Problems:
    op = BINOPS[case.op]
    return trace_both_ways(case.mode, op.jax_fn, op.wt_fn, build(case))


def check_binaries(cases: list[Case]) -> list[Problems]:
    """`check_binary` of many cases, jax's abstract values for them made in one jax
    trace (see `many_jax_avals`)."""
    built = [build(c) for c in cases]
    out = []
    for start in range(0, len(cases), ORACLE_BATCH):
        part = range(start, min(start + ORACLE_BATCH, len(cases)))
        theirs = many_jax_avals([(BINOPS[cases[i].op].jax_fn, built[i]) for i in part])
        for i, t in zip(part, theirs, strict=True):
            c = cases[i]
            out.append(both_ways(c.mode, t, wt_avals, BINOPS[c.op].wt_fn, *built[i], what="trace "))
    return out


ORACLE_BATCH = 400  # programs per jax trace


def _avals_of(fn: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    return tuple(aval_key(jax.typeof(o)) for o in jax.tree_util.tree_leaves(fn(*args)))


def many_jax_avals(progs: list[tuple[Callable[..., Any], list[Any]]]) -> list[Outcome]:
    """``run(jax_avals, fn, *args)`` for each (fn, args), in one jax.eval_shape whose
    arguments are every program's (abstracted as jax_avals's are: jax makes each a
    tracer of its own) and in which each program runs on its own, its error and
    warnings caught as run catches them. One trace instead of one per program (jax's
    per-call overhead was most of the sweep's oracle time). If the joint trace itself
    fails or warns outside a program, each runs alone."""
    results: list[Outcome] = []
    flat = [a for _, args in progs for a in args]

    def all_of(*leaves: Any) -> tuple[()]:
        results.clear()
        i = 0
        for fn, args in progs:
            results.append(run(_avals_of, fn, *leaves[i : i + len(args)]))
            i += len(args)
        return ()

    joint = run(jax.eval_shape, all_of, *flat)
    if joint.error is not None or joint.warned or len(results) != len(progs):
        return [run(jax_avals, fn, *args) for fn, args in progs]
    return list(results)


# The same with jax_explicit_x64_dtypes 'allow' and 'error' (x64 off), where 64-bit jax
# arrays exist (or cannot be made), for three operations.

EXPLICIT_FORMS = [Form("jax", d.name, False, (2,)) for d in ALL_DTYPES]
EXPLICIT_FORMS += [Form("jax", d.name, True) for d in ALL_DTYPES]
EXPLICIT_FORMS += [sds(d) for d in ALL_DTYPES if d in X64_DTYPES]
EXPLICIT_FORMS += [Form("np", d.name) for d in ALL_DTYPES if d in X64_DTYPES]
EXPLICIT_FORMS += [py(t) for t in PY_TYPES]


def explicit_binary_space(mode: Mode) -> Space:
    every_pair = pairs(EXPLICIT_FORMS)
    return [(op, every_pair) for op in ("add", "truediv", "floordiv")]


# Compiled values of the sweep's operations on concrete operands.

VALUE_WEAK = ["bool", "uint8", "int32", "bfloat16", "float16", "float32", "float64"]


def values_space(mode: Mode) -> Space:
    """add, and the two operations jax.numpy decomposes by dtype (floor_divide, power)."""
    every_pair = pairs(concrete_forms(VALUE_WEAK))
    return [(op, every_pair) for op in ("add", "floordiv", "pow")]


_COMPILED_BINOP = functools.partial(check_compiled, program=_binop_program)
UNARY_MODES = [*MAIN_MODES, Mode(False, False, "allow")]

FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family("default_types", ALL_MODES, default_types_space, one_by_one(check_default_types), 1),
        Family("single_arg", ALL_MODES, single_arg_space, one_by_one(check_result_type), 30),
        Family(
            "binary_promotion",
            BINARY_PROMOTION_MODES,
            binary_promotion_space,
            one_by_one(check_binary_promotion),
            3,
        ),
        Family(
            "promote_types", ALL_MODES, promote_types_space, one_by_one(check_promote_types), 200
        ),
        Family(
            "result_type_pairs",
            ALL_MODES,
            result_type_pairs_space,
            one_by_one(check_result_type),
            40,
        ),
        Family(
            "observed_table",
            TABLE_MODES,
            observed_table_space,
            one_by_one(check_observed_table),
            12,
        ),
        Family("table_values", TABLE_MODES, table_values_space, _COMPILED_BINOP, 8),
        Family(
            "jit_invariance", MAIN_MODES, jit_invariance_space, one_by_one(check_jit_invariance), 5
        ),
        Family(
            "jit_invariance_values",
            MAIN_MODES,
            jit_invariance_space,
            functools.partial(check_compiled, program=_invariance_program),
            8,
        ),
        Family("unary", UNARY_MODES, unary_space, one_by_one(check_unary), 4),
        Family("small_types", MAIN_MODES, small_types_space, one_by_one(check_small_types), 12),
        Family(
            "non_promotion", MAIN_MODES, non_promotion_space, one_by_one(check_non_promotion), 4
        ),
        Family("casts", ALL_MODES, casts_space, one_by_one(check_casts), 12),
        Family(
            "cast_values",
            ALL_MODES,
            casts_space,
            functools.partial(check_compiled, program=_cast_program),
            4,
        ),
        Family("enum", MAIN_MODES, enum_space, one_by_one(check_enum), 30),
        Family("binary", MAIN_MODES, binary_space, check_binaries, 100),
        Family("explicit_binary", EXPLICIT_MODES, explicit_binary_space, check_binaries, 40),
        Family("values", MAIN_MODES, values_space, _COMPILED_BINOP, 12),
    ]
}


# -- known mismatches --------------------------------------------------------------------

_SUB_BYTE_INTS = {"int1", "int2", "int4", "uint1", "uint2", "uint4"}


def _weak_sub_byte_result(case: Case) -> bool:
    """result_type of weak values of one sub-byte integer type (and weak bools)."""
    names = {f.name for f in case.args}
    return (
        all(f.weak and f.kind == "jax" for f in case.args)
        and len(names & _SUB_BYTE_INTS) == 1
        and names <= _SUB_BYTE_INTS | {"bool"}
        and (len(case.args) == 1 or not case.mode.strict)
    )


_X32 = Mode(False, False)


def _jax(name: str, weak: bool = False, shape: tuple[int, ...] = ()) -> Form:
    return Form("jax", name, weak, shape)


KNOWN_MISMATCHES: tuple[Known, ...] = (
    Known(
        "jax-crashes-weak-sub-byte-result-type",
        "jax's bug, not weaktrace's: jax.dtypes.result_type of a weak int2/int4/uint2/uint4 "
        "value raises KeyError('V') (default_types[dtype.kind]); weaktrace answers the "
        "default int, weakly typed",
        ("single_arg", "result_type_pairs", "unary"),
        _weak_sub_byte_result,
        (
            Case("single_arg", _X32, "result_type", (_jax("int4", True),)),
            Case(
                "result_type_pairs", _X32, "result_type", (_jax("bool", True), _jax("int2", True))
            ),
            Case("unary", _X32, "identity", (_jax("int2", True),)),
        ),
    ),
)


def known(case: Case) -> Known | None:
    return next((k for k in KNOWN_MISMATCHES if k.applies(case)), None)


# -- running -----------------------------------------------------------------------------


@functools.cache
def space_of(family: str, mode: Mode) -> tuple[tuple[str, tuple[tuple[Form, ...], ...]], ...]:
    return tuple((op, tuple(args)) for op, args in FAMILIES[family].space(mode))


def size(family: str, mode: Mode) -> int:
    return sum(len(args) for _, args in space_of(family, mode))


def case_at(family: str, mode: Mode, i: int) -> Case:
    for op, args in space_of(family, mode):
        if i < len(args):
            return Case(family, mode, op, args[i])
        i -= len(args)
    raise IndexError(i)


def some_cases(family: str, mode: Mode, n: int, full: bool, seed: str) -> list[Case]:
    """Every case of the family in this mode with --run-slow, else a deterministic
    sample of n (made one by one: the sweep has 100,000 cases a mode)."""
    total = size(family, mode)
    if full or total <= n:
        return [case_at(family, mode, i) for i in range(total)]
    return [case_at(family, mode, i) for i in sorted(random.Random(seed).sample(range(total), n))]


def usable(case: Case) -> bool:
    """Operands that exist in the case's configuration (see `buildable`)."""
    return all(buildable(f, case.mode) for f in case.args)


def outcomes(family: str, cases: list[Case]) -> list[tuple[Case, Problems]]:
    out = []
    for mode, group in by_mode(cases):
        with jax_config(mode):
            out += zip(group, FAMILIES[family].check(group), strict=True)
    return out


def check_family(family: str, mode: Mode, full: bool) -> None:
    drawn = some_cases(family, mode, FAMILIES[family].ci, full, f"{family}{mode}")
    chosen = [c for c in drawn if known(c) is None and usable(c)]
    assert chosen, f"{family}[{mode}]: no cases"
    bad = [f"{c}\n    " + "\n    ".join(p) for c, p in outcomes(family, chosen) if p]
    print(
        f"\nPEER-SUMMARY jax {family}[{mode}] full={full}: cases={len(chosen)} "
        f"(of {len(drawn)} drawn) mismatches={len(bad)}"
    )
    assert not bad, f"{len(bad)} of {len(chosen)} cases differ from jax:\n" + "\n".join(bad[:25])


def family_params(*names: str) -> list[Any]:
    return [
        pytest.param(name, mode, id=f"{name}-{mode}")
        for name in names
        for mode in FAMILIES[name].modes
    ]


@pytest.mark.parametrize(("family", "mode"), family_params("default_types", "binary_promotion"))
def test_default_types_and_binary_promotion(family: str, mode: Mode, full: bool) -> None:
    check_family(family, mode, full)


@pytest.mark.parametrize(
    ("family", "mode"), family_params("single_arg", "promote_types", "result_type_pairs")
)
def test_promote_types_and_result_type(family: str, mode: Mode, full: bool) -> None:
    check_family(family, mode, full)


@pytest.mark.parametrize(("family", "mode"), family_params("observed_table", "table_values"))
def test_observed_promotion_table(family: str, mode: Mode, full: bool) -> None:
    check_family(family, mode, full)


@pytest.mark.parametrize(
    ("family", "mode"), family_params("jit_invariance", "jit_invariance_values")
)
def test_binary_promotion_jit_invariance(family: str, mode: Mode, full: bool) -> None:
    check_family(family, mode, full)


@pytest.mark.parametrize(("family", "mode"), family_params("unary", "small_types", "non_promotion"))
def test_unary_small_types_and_non_promotion(family: str, mode: Mode, full: bool) -> None:
    check_family(family, mode, full)


@pytest.mark.parametrize(("family", "mode"), family_params("casts", "cast_values", "enum"))
def test_casts_and_enums(family: str, mode: Mode, full: bool) -> None:
    check_family(family, mode, full)


@pytest.mark.parametrize(("family", "mode"), family_params("binary", "explicit_binary"))
def test_binary_ops_every_operand_pair(family: str, mode: Mode, full: bool) -> None:
    check_family(family, mode, full)


@pytest.mark.parametrize(("family", "mode"), family_params("values"))
def test_binary_ops_compiled_values(family: str, mode: Mode, full: bool) -> None:
    check_family(family, mode, full)


# -- the known mismatches still fail -----------------------------------------------------


class StillDiffers(AssertionError):
    """Some case of a known group still differs from jax (the expected failure)."""


@pytest.mark.parametrize(
    ("key", "family"),
    [
        pytest.param(
            k.key,
            fam,
            id=f"{k.key}-{fam}",
            marks=pytest.mark.xfail(strict=True, raises=StillDiffers, reason=k.reason),
        )
        for k in KNOWN_MISMATCHES
        for fam in k.families
    ],
)
def test_known_mismatches(key: str, family: str, full: bool) -> None:
    """Fails (as expected) while weaktrace still gets some case of the group wrong; once
    every one matches jax it passes, which strict xfail reports as a failure: then
    remove the KNOWN_MISMATCHES entry. Checks the entry's examples and, from each mode,
    cases of the group found among 2,000 drawn (all of them with --run-slow)."""
    entry = next(k for k in KNOWN_MISMATCHES if k.key == key)
    examples = [c for c in entry.examples if c.family == family]
    assert examples, f"{key}: give a minimal example in {family}"
    assert all(known(c) is entry for c in examples), "an example is outside its group"
    chosen = list(examples)
    for mode in FAMILIES[family].modes:
        drawn = some_cases(family, mode, 2000, full, f"known{key}{family}{mode}")
        group = [c for c in drawn if known(c) is entry and usable(c)]
        chosen += group if full else group[:4]
    bad = [f"{c}\n    " + "\n    ".join(p) for c, p in outcomes(family, chosen) if p]
    if bad:
        raise StillDiffers(f"{len(bad)} of {len(chosen)} still differ:\n" + "\n".join(bad[:10]))


# -- the configuration option the explicit-x64 cases rely on -----------------------------


def test_explicit_x64_option_takes_the_values_used_here() -> None:
    assert {m.explicit for m in ALL_MODES} <= set(explicit_x64_values())
    for mode in ALL_MODES:
        with jax_config(mode):
            assert jax.config.jax_explicit_x64_dtypes.name.lower() == mode.explicit
    assert jax.config.jax_explicit_x64_dtypes.name.lower() == "warn"
