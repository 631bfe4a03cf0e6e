"""One function per finding kind, over the imported program (and what the hooks saw)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from weaktrace.ir.values import AbstractValue, Equation, Literal, Program, SourceInfo, Var
from weaktrace.lint.callsite import user_file
from weaktrace.lint.hooks import Promotion, Recorder, Refusal
from weaktrace.lint.importer import Meta, aval_of, import_jaxpr
from weaktrace.lint.report import Finding

# Ops that only move or reshape values: a promotion's convert may pass through them
# (jnp broadcasts after promoting) before it meets the other operand.
_SHAPE_OPS = frozenset({"broadcast_in_dim", "reshape", "squeeze", "expand_dims", "transpose"})
# jax.numpy's promotion helpers, seen in a convert's traceback when it is not inlined
_PROMOTERS = ("promote_dtypes", "promote_args", "_promote_dtypes", "promote_shapes")
# a convert of jax.numpy's own inlined call whose traceback shows these is explicit
_EXPLICIT = ("astype", "_astype", "convert_element_type", "asarray", "array")
# sub-program params: loop bodies and branches (checked by carry-change)
_CALLS = (
    "jit",
    "pjit",
    "closed_call",
    "core_call",
    "remat",
    "remat2",
    "checkpoint",
    "custom_jvp_call",
    "custom_vjp_call",
    "custom_vjp_call_jaxpr",
)


def _finding(kind: str, where: SourceInfo | None, message: str, **kw: Any) -> Finding | None:
    if where is None:
        return None
    return Finding(kind, where.file, where.line, message, function=where.function, **kw)


def walk(program: Program) -> Iterator[Program]:
    """The program and every sub-program, depth first."""
    yield program
    for sub in program.sub_programs():
        yield from walk(sub)


def _producers(program: Program) -> dict[Var, Equation]:
    return {v: e for e in program.equations for v in e.outputs}


# ------------------------------------------------------------------ implicit-promotion


def implicit_promotion(program: Program, meta: Meta, rec: Recorder | None = None) -> list[Finding]:
    """A strong operand converted by jax.numpy's promotion, where it meets the other
    operand (weak values and user-written casts are not findings). With the hooks'
    records (`rec`), a conversion jnp's promotion helpers made is judged by what the
    function received: operands of two dtypes (or a weak scalar changing a strong
    one's dtype) are a promotion, one dtype made inexact by the function is not."""
    out: list[Finding] = []
    found: set[int] = set()  # the converts reported where they meet another operand
    marks = _marks(meta, rec)
    for prog in walk(program):
        made = _producers(prog)
        for eqn in prog.equations:
            if len(eqn.inputs) < 2 or eqn.primitive.name in ("convert_element_type", "cond"):
                continue
            if id(eqn) in meta.transposed:  # the backward pass repeats the forward's
                continue
            if eqn.primitive.name in _MIXED_OK:
                f = _mixed_operands(eqn, meta)
                if f is not None:
                    out.append(f)
                continue
            promoted = []
            for atom in eqn.inputs:
                conv = _promotion_convert(atom, eqn, made, meta, marks, rec is not None)
                if conv is not None:
                    promoted.append((atom, conv))
            if _inexact_only(eqn, promoted, meta, marks):
                continue
            for atom, conv in promoted:
                src, dst = conv.inputs[0].aval, conv.outputs[0].aval
                others = [a.aval for a in eqn.inputs if a is not atom and a.aval.dt is dst.dt]
                if not others:
                    continue
                f = _finding(
                    "implicit-promotion",
                    eqn.source_info,
                    f"{src} operand promoted to {dst.dt.name} in {eqn.primitive.name} "
                    f"(with {_show(others[0])}); cast it explicitly with "
                    f".astype({dst.dt.name}) if that is intended",
                    operands=tuple(src if a is atom else a.aval for a in eqn.inputs),
                    results=tuple(v.aval for v in eqn.outputs),
                )
                if f is not None:
                    found.add(id(conv))
                    out.append(f)
    out += _unmet(program, meta, marks, found)
    return out + (_folded(meta, rec) if rec is not None else [])


def _marks(meta: Meta, rec: Recorder | None) -> dict[int, Promotion]:
    """Equation id -> the hooks' record of the promotion that made it (this run's)."""
    if rec is None:
        return {}
    return {
        key: rec.promotions[k]
        for key, (run, k) in meta.promotion.items()
        if run == rec.token and k < len(rec.promotions)
    }


def _folded(meta: Meta, rec: Recorder) -> list[Finding]:
    """Mixed promotions of a constant that jax folded into a literal (no equation
    carries them): ``x_f32 + np.int32(2)``, at the line the hooks saw."""
    marked = {k for run, k in meta.promotion.values() if run == rec.token}
    out = []
    for k in sorted(rec.folded - marked):
        mark = rec.promotions[k]
        if mark.mixed and mark.where is not None:
            others = _others(mark, mark.operand)
            f = _finding(
                "implicit-promotion",
                mark.where,
                f"{mark.operand} constant promoted to {mark.to} (with "
                f"{', '.join(others)}); cast it explicitly with .astype({mark.to}) if that "
                f"is intended",
            )
            if f is not None:
                out.append(f)
    return out


def _others(mark: Promotion, operand: str) -> list[str]:
    """What the converted operand met: the other strong dtypes, the weak scalars."""
    strong = [d for d in mark.strong if d != operand]
    return strong + [f"a weak {d.rstrip('0123456789')} scalar" for d in mark.weak] or [operand]


def _unmet(
    program: Program, meta: Meta, marks: dict[int, Promotion], found: set[int]
) -> list[Finding]:
    """Mixed promotions whose converted operand meets the other only after a unary
    step (``jnp.hypot(i32, f32)`` takes abs first, ``jnp.copysign`` the sign bit):
    found at the conversion, the user's call."""
    out = []
    for prog in walk(program):
        for conv in prog.equations:
            mark = marks.get(id(conv))
            if mark is None or not mark.mixed or id(conv) in found:
                continue
            if id(conv) in meta.transposed:
                continue
            src = conv.inputs[0].aval
            others = _others(mark, src.dt.name)
            # inside a jitted jnp function the traceback ends at that function
            frames = meta.frames.get(id(conv), ())
            call = meta.caller.get(id(conv)) or (frames[-1] if frames else "jax.numpy")
            call = call.lstrip("_")  # jnp.where's jit is _where
            f = _finding(
                "implicit-promotion",
                conv.source_info,
                f"{src} operand promoted to {mark.to} in {call} (with {', '.join(others)}); "
                f"cast it explicitly with .astype({mark.to}) if that is intended",
                operands=(src,),
                results=(conv.outputs[0].aval,),
            )
            if f is not None:
                found.add(id(conv))
                out.append(f)
    return out


_INEXACT = ("promote_args_inexact", "promote_dtypes_inexact")


def _inexact_only(
    eqn: Equation, promoted: list[tuple[Any, Equation]], meta: Meta, marks: dict[int, Promotion]
) -> bool:
    """Whether the only conversion is the operation's own: a true division or an
    inexact function (``jnp.arange(n) / n``, ``i / j``) makes its integer operands
    floating, all of one integer dtype, the others being constants. Operands of
    different dtypes meeting (``i32 / f32``) and a weak Python float making integers
    floating (``count / 100.0``, as ``i8 * 0.5``) are still promotions."""
    if any(id(c) in marks for _, c in promoted):
        return False  # the hooks saw operands of two dtypes meet (own ones are not here)
    if not promoted or any(c.params.get("weak_type") for _, c in promoted):
        return False  # a weak Python float made them floating (count / 100.0)
    # jnp's true_divide is an inlined jit: its equations carry the operator's frames
    own = eqn.primitive.name == "div" and eqn.outputs[0].aval.dt.kind in "fc"
    if not own and not all(
        any(n in _INEXACT for n in meta.frames.get(id(c), ())) for _, c in promoted
    ):
        return False
    sources = {c.inputs[0].aval.dt for _, c in promoted}
    if len(sources) != 1 or next(iter(sources)).kind not in "biu":
        return False
    converted = {id(a) for a, _ in promoted}
    return all(isinstance(a, Literal) for a in eqn.inputs if id(a) not in converted)


# contractions jax lets take mixed operand dtypes (with preferred_element_type): the
# promotion happens inside them, without a convert
_MIXED_OK = frozenset({"dot_general", "conv_general_dilated", "ragged_dot_general"})


def _mixed_operands(eqn: Equation, meta: Meta) -> Finding | None:
    a, b = eqn.inputs[0].aval, eqn.inputs[1].aval
    if a.dt is b.dt or meta.caller.get(id(eqn), "").startswith("lax."):
        return None  # lax.dot(..., preferred_element_type=...) called by the user
    res = eqn.outputs[0].aval
    low, other = (a, b) if b.dt is res.dt else (b, a)
    if low.weak_type and other.dt is res.dt:
        return None  # a weak scalar takes the array's dtype (jnp.dot(x, 2))
    return _finding(
        "implicit-promotion",
        eqn.source_info,
        f"{low} operand promoted to {res.dt.name} in {eqn.primitive.name} (with {other}); "
        f"cast it explicitly with .astype({res.dt.name}) if that is intended",
        operands=(a, b),
        results=(res,),
    )


def _show(aval: AbstractValue) -> str:
    return f"{aval} (a weak scalar)" if aval.weak_type and not aval.shape else str(aval)


def _promotion_convert(
    atom: Any,
    user: Equation,
    made: dict[Var, Equation],
    meta: Meta,
    marks: dict[int, Promotion],
    hooked: bool = False,
) -> Equation | None:
    """The convert_element_type of jnp's promotion that produced `atom`, if any (by the
    hooks' verdict when they saw it, else by where the convert was made)."""
    if not isinstance(atom, Var):
        return None
    eqn = made.get(atom)
    while eqn is not None and eqn.primitive.name in _SHAPE_OPS and _same_call(eqn, user, meta):
        first = eqn.inputs[0]
        eqn = made.get(first) if isinstance(first, Var) else None
    if eqn is None or eqn.primitive.name != "convert_element_type":
        return None
    x = eqn.inputs[0]
    if isinstance(x, Literal) or x.aval.weak_type or x.aval.dt is eqn.outputs[0].aval.dt:
        return None
    if not _widens(x.aval, eqn.outputs[0].aval):
        return None  # a promotion only widens (jnp.sum's f16 result cast back from f32)
    mark = marks.get(id(eqn))
    if mark is not None:
        return eqn if mark.mixed else None
    if hooked:
        # the hooks mark every conversion jnp's promotion helpers make: an unmarked
        # one is jax's own (jnp.sum's float32 accumulator of bfloat16 values meeting
        # the f32 0.0 of its where=)
        return None
    frames = meta.frames.get(id(eqn), ())
    if _same_call(eqn, user, meta):
        return eqn
    if any(name in _PROMOTERS for name in frames) and not _explicit(frames):
        return eqn
    return None


def _widens(src: AbstractValue, dst: AbstractValue) -> bool:
    """Whether `dst` is the join of `src` and itself (what a promotion converts to)."""
    a, b = src.dt.numpy, dst.dt.numpy
    if a is None or b is None:
        return False
    try:
        with jax.enable_x64(False):  # as lint traced (u32 with i32 joins to i32)
            return bool(jnp.promote_types(a, b) == b)
    except TypeError:  # dtypes jax does not join
        return False


def _explicit(frames: Sequence[str]) -> bool:
    # innermost first: a promoter below an explicit cast function is still a promotion
    for name in frames:
        if name in _PROMOTERS:
            return False
        if name in _EXPLICIT:
            return True
    return False


def _same_call(a: Equation, b: Equation, meta: Meta) -> bool:
    ta, tb = meta.call.get(id(a)), meta.call.get(id(b))
    return ta is not None and (ta is tb or ta == tb)


# ---------------------------------------------------------------------- x64-truncation


def x64_truncation(
    rec: Recorder,
    args_64: Sequence[tuple[str, str]],
    def_line: SourceInfo | None,
    consts_64: Sequence[tuple[SourceInfo | None, str]],
) -> list[Finding]:
    """64-bit inputs (at the def line), constants (where first used) and requested dtypes
    (jax's own warning, at the user's line) that x64 off makes 32-bit."""
    out = []
    for path, dtype in args_64:
        f = _finding(
            "x64-truncation",
            def_line,
            f"argument {path} is {dtype} but becomes {_narrow(dtype)} with x64 off",
        )
        if f is not None:
            out.append(f)
    for where, message in consts_64:
        f = _finding("x64-truncation", where, message)
        if f is not None:
            out.append(f)
    for ev in rec.x64:
        f = _finding("x64-truncation", ev.where, ev.message)
        if f is not None:
            out.append(f)
    return out


def _narrow(dtype: str) -> str:
    return {
        "float64": "float32",
        "int64": "int32",
        "uint64": "uint32",
        "complex128": "complex64",
    }.get(dtype, "32-bit")


def _subs(eqn: Equation) -> list[Program]:
    subs = []
    for v in eqn.params.values():
        if isinstance(v, Program):
            subs.append(v)
        elif isinstance(v, tuple):
            subs.extend(p for p in v if isinstance(p, Program))
    return subs


# ------------------------------------------------------------------------ carry-change


def _origin(atom: Any, prog: Program, fallback: SourceInfo | None) -> SourceInfo | None:
    """The user line of the expression computing `atom` in `prog` (diving into nested
    calls), else `fallback`."""
    if not isinstance(atom, Var):
        return fallback
    eqn = _producers(prog).get(atom)
    if eqn is None:
        return fallback
    if eqn.primitive.name in _CALLS:
        for sub in _subs(eqn):
            if len(sub.outvars) == len(eqn.outputs):
                i = eqn.outputs.index(atom)
                return _origin(sub.outvars[i], sub, eqn.source_info or fallback)
    # a loop's final carry: the body's expression computing it; a cond's output: the
    # branch that computes it (not one passing an operand through)
    i = eqn.outputs.index(atom)
    if eqn.primitive.name == "scan" and i < eqn.params["num_carry"]:
        body = eqn.params["jaxpr"]
        return _origin(body.outvars[i], body, eqn.source_info or fallback)
    if eqn.primitive.name == "while":
        body = eqn.params["body_jaxpr"]
        return _origin(body.outvars[i], body, eqn.source_info or fallback)
    if eqn.primitive.name == "cond":
        branches = eqn.params.get("branches", ())
        computed = [b for b in branches if _computed(b.outvars[i], b)]
        same = [b for b in computed if b.outvars[i].aval == atom.aval] or computed
        if same:
            return _origin(same[0].outvars[i], same[0], eqn.source_info or fallback)
    # a weak->strong convert jax inserted: blame what it converts (a cast to another
    # dtype, x.astype(bf16), is itself the expression that changes it)
    if (
        eqn.primitive.name == "convert_element_type"
        and isinstance(eqn.inputs[0], Var)
        and eqn.inputs[0].aval.dt is eqn.outputs[0].aval.dt
    ):
        inner = _origin(eqn.inputs[0], prog, None)
        if inner is not None:
            return inner
    return eqn.source_info or fallback


def _computed(atom: Any, prog: Program) -> bool:
    """Whether an equation of `prog` computes `atom` (not an operand passed through)."""
    return isinstance(atom, Var) and atom in _producers(prog)


def carry_change(
    program: Program, rec: Recorder | None = None, meta: Meta | None = None
) -> list[Finding]:
    """Loop carries (while, scan, fori_loop) that enter with another dtype or weak flag
    than the body returns, and cond/switch branches whose outputs disagree (a branch
    output no equation computes, a literal or an operand, is blamed on the branch
    function's line when the hooks saw it). Only the user's own loops and conds: with
    `meta`, one a jax library function runs for the user (odeint's, minimize's) is not
    the user's to change."""
    out: list[Finding] = []
    lines = rec.branches if rec is not None else {}
    for prog in walk(program):
        for eqn in prog.equations:
            name = eqn.primitive.name
            if name not in ("while", "scan", "cond"):
                continue
            if meta is not None and not _users_control_flow(eqn, meta):
                continue
            if name == "while":
                body = eqn.params["body_jaxpr"]
                n = eqn.params["body_nconsts"]
                ins, outs = body.invars[n:], body.outvars
                _carries(eqn, ins, outs, body, out, "while_loop")
                _weak_inits(eqn, ins, outs, body, out, "while_loop", rec)
            elif name == "scan":
                body = eqn.params["jaxpr"]
                nc, nk = eqn.params["num_consts"], eqn.params["num_carry"]
                ins, outs = body.invars[nc : nc + nk], body.outvars[:nk]
                _carries(eqn, ins, outs, body, out, "scan")
                _weak_inits(eqn, ins, outs, body, out, "scan", rec)
            elif name == "cond":
                _branches(eqn, out, lines)
    return out


# jax's library modules that run loops and conds of their own for the user's call
_JAX_DIR = os.path.dirname(os.path.abspath(jax.__file__)) + os.sep
_LIBRARIES = tuple(
    _JAX_DIR + p.replace("/", os.sep)
    for p in (
        "_src/scipy/", "scipy/", "experimental/", "_src/numpy/", "numpy/", "_src/nn/",
        "nn/", "_src/random.py", "_src/prng.py", "_src/image/", "_src/ops/",
        "example_libraries/", "_src/third_party/", "_src/lax/linalg.py",
        "_src/lax/special.py", "_src/cudnn/", "_src/flatten_util.py",
    )
)  # fmt: skip


def _users_control_flow(eqn: Equation, meta: Meta) -> bool:
    """Whether the user's own code made this loop or cond: no function of jax's
    libraries (jax.experimental.ode.odeint, jax.scipy.optimize.minimize, jnp.polyval)
    runs between the user's line and the loop; those loops are not the user's to fix."""
    tb = meta.call.get(id(eqn))
    if tb is None:
        return True
    for fr in tb.frames:
        if user_file(fr.file_name):
            return True
        if fr.file_name.startswith(_LIBRARIES):
            return False
    return True


def _carry_change(
    eqn: Equation, i: int, before: Any, after: Any, body: Program, what: str, why: str, dt: str
) -> Finding | None:
    """The one finding of a loop carry whose dtype or weak flag the body changes."""
    return _finding(
        "carry-change",
        _origin(after, body, eqn.source_info),
        f"{what} carry {i} enters as {before} and the body returns {after.aval}: {why}; "
        f"give the initial value the carry's dtype (e.g. jnp.asarray(init, {dt}))",
        operands=(before,),
        results=(after.aval,),
    )


def _carries(
    eqn: Equation,
    ins: Sequence[Var],
    outs: Sequence[Any],
    body: Program,
    out: list[Finding],
    what: str,
) -> None:
    for i, (a, b) in enumerate(zip(ins, outs, strict=True)):
        if a.aval == b.aval:
            continue
        if a.aval.dt is b.aval.dt and a.aval.weak_type and not b.aval.weak_type:
            why = "the weak initial value is promoted to the body's strong type"
        else:
            why = "the body changes it"
        f = _carry_change(eqn, i, a.aval, b, body, what, why, b.aval.dt.name)
        if f is not None:
            out.append(f)


def _weak_inits(
    eqn: Equation,
    ins: Sequence[Var],
    outs: Sequence[Any],
    body: Program,
    out: list[Finding],
    what: str,
    rec: Recorder | None,
) -> None:
    """Carries whose weak initial value jax converted to the body's dtype before
    tracing the body again (the hooks' record: the final body shows no change)."""
    if rec is None or eqn.source_info is None:
        return
    here = (eqn.source_info.file, eqn.source_info.line)
    for init in rec.weak_inits:
        i = init.index
        if init.where is None or (init.where.file, init.where.line) != here or i >= len(ins):
            continue
        before, after = aval_of(init.before), aval_of(init.after)
        if ins[i].aval.dt is not after.dt or outs[i].aval.dt is not after.dt:
            continue  # another loop of that line (vmap's batched carries keep the dtype)
        why = f"jax converts the weak initial value to {after.dt.name}"
        f = _carry_change(eqn, i, before, outs[i], body, what, why, after.dt.name)
        if f is not None:
            out.append(f)


def _branches(
    eqn: Equation,
    out: list[Finding],
    lines: dict[tuple[str, int], list[SourceInfo | None]],
) -> None:
    branches = eqn.params.get("branches", ())
    if len(branches) < 2:
        return
    for i, result in enumerate(eqn.outputs):
        avals = [b.outvars[i].aval for b in branches]
        if len(set(avals)) == 1:
            continue
        # blame the branch whose output differs from the first strong one; when that
        # branch passes an operand through unchanged, the branch that computes the
        # strong value changed it
        ref = next((a for a in avals if not a.weak_type), avals[0])
        k = next(j for j, a in enumerate(avals) if a != ref)
        if not _computed(branches[k].outvars[i], branches[k]) and not isinstance(
            branches[k].outvars[i], Literal
        ):
            k = next(
                (
                    j
                    for j, a in enumerate(avals)
                    if a == ref and _computed(branches[j].outvars[i], branches[j])
                ),
                k,
            )
        shown = ", ".join(str(a) for a in avals)
        where = _origin(branches[k].outvars[i], branches[k], None)
        if where is None and eqn.source_info is not None:
            fns = lines.get((eqn.source_info.file, eqn.source_info.line), [])
            where = fns[k] if len(fns) == len(branches) else None
        f = _finding(
            "carry-change",
            where or eqn.source_info,
            f"cond output {i} differs between branches ({shown}); jax makes it "
            f"{result.aval}: give every branch the same dtype",
            operands=tuple(avals),
            results=(result.aval,),
        )
        if f is not None:
            out.append(f)


def refused(ref: Refusal) -> list[Finding]:
    """A loop or cond jax refused (a carry or branch output changed type): one finding
    per mismatched output at the expression of the body (the branch) that computes it,
    the loop's or cond's line kept in the message."""
    programs = [import_jaxpr(j, ref.where)[0] for j in ref.jaxprs]
    branches = len(programs) > 1
    out = []
    for i, before, after in zip(ref.mismatched, ref.before, ref.after, strict=True):
        where = None
        # the branch jax compared last first: when it passes an operand through
        # unchanged, the first branch computed the other type
        for prog in reversed(programs):
            atom = prog.outvars[i]
            if _computed(atom, prog):
                where = _origin(atom, prog, None)
                break
        call = ref.where
        at = "" if call is None else f" at line {call.line}"
        if where is not None and call is not None and where.file != call.file:
            at = f" at {call.file}:{call.line}"
        # fori_loop's carry sits among jax's own (the counter): no index for it
        carry = "the carry" if ref.api == "fori_loop" else f"carry {i}"
        want, got = before.split("[")[0], after.split("[")[0]
        what = (
            f"output {i} is {before} in one branch and {after} in another; give every "
            f"branch the same dtype"
            if branches
            else f"{carry} enters as {before} and the body returns {after}; cast the "
            f"body's result with .astype({want}) or start the carry as {got}"
        )
        f = _finding("carry-change", where or call, f"jax rejects the {ref.api}{at}: {what}")
        if f is not None:
            out.append(f)
    return out


# --------------------------------------------------------------------------- weak-flip


def weak_flip(
    program: Program,
    states: Sequence[tuple[int, list[tuple[str, AbstractValue]], list[int]]],
    def_line: SourceInfo | None,
) -> list[Finding]:
    """State leaves whose output aval differs from the input one. `states` holds, per
    state argument: its argnum, its input leaves (path, aval) and the indices of its
    output leaves among the program's outputs."""
    out = []
    for argnum, leaves, out_idx in states:
        for (path, before), k in zip(leaves, out_idx, strict=True):
            atom = program.outvars[k]
            after = atom.aval
            if after == before:
                continue
            where = _origin(atom, program, def_line)
            f = _finding(
                "weak-flip",
                where,
                f"state argument {argnum} leaf {path or '(root)'} goes in as {before} and "
                f"comes back as {after}: the next call with it recompiles",
                operands=(before,),
                results=(after,),
            )
            if f is not None:
                out.append(f)
    return out
