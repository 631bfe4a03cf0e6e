"""Control flow, as jax.lax has it: cond, switch, while_loop, fori_loop, scan, map.

Bodies and branches are traced once to sub-programs (inside a trace, values they
read from the enclosing trace are captured as inputs). Carries follow jax's rules: a
weakly typed initial carry whose body changes its dtype is converted to
``result_type(init, body output)`` and the body traced again; after that, a carry
whose shape or dtype the body changes is an error (weak flags may differ). Where jax
raises, weaktrace's error also names the source line in the body that produced the
carry's new type; `explain` lists each weak-init promotion with that line.

Under the numpy and torch policies the mechanism is the same, with the policy's own
types: Python scalars enter weakly (NEP 50 and torch's wrapped numbers), so a Python
scalar initial carry becomes ``policy.result(init, body output)`` (the dtype numpy's
or torch's own Python loop settles on, e.g. ``0`` carried through ``c + float32``
becomes float32) and the body is traced again; a strong initial carry whose dtype
the policy's promotion changes (``int32 + float32`` is float64 under numpy) is a
CarryTypeError rather than the silent dtype change the library's Python loop would
make. Branches of cond/switch must give equal dtypes under every policy.
"""

from __future__ import annotations

import linecache
from collections.abc import Callable, Sequence
from typing import Any

import jax

from weaktrace.core import primitives as P
from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context, operand, to_jax
from weaktrace.core.primitives_control import cond_p, scan_p, typematch, while_p
from weaktrace.core.program import Made, make_program
from weaktrace.core.promotion import bind, convert, lit
from weaktrace.core.source import user_source
from weaktrace.core.trace import Context, Promotion, Tracer
from weaktrace.dtypes.registry import by_name
from weaktrace.errors import CarryTypeError, OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue, Program, Var

_tree = jax.tree_util
_INT32 = by_name("int32")
EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.lax")


def _trace(ctx: Context, fun: Callable[..., Any], avals: Sequence[AbstractValue]) -> Made:
    """A body or branch as a sub-program of `ctx` (eagerly: a program of its own)."""
    return make_program(fun, avals, ctx.policy, nested=not ctx.eager)


def _origin(program: Program, index: int) -> str:
    """Where output `index` of a program got its type: the equation that produced it."""
    out = program.outvars[index]
    if not isinstance(out, Var):
        return "it is a constant"
    for eqn in reversed(program.equations):
        if out in eqn.outputs and eqn.source_info is not None:
            src = eqn.source_info
            text = linecache.getline(src.file, src.line).strip()
            return f"it is computed at {src.file}:{src.line}: {text}"
    return "it is the body's input, passed through"


def _paths(tree_value: Any) -> list[str]:
    flat, _ = _tree.tree_flatten_with_path(tree_value)
    return [_tree.keystr(p) or "" for p, _ in flat]


def _carry_error(what: str, name: str, paths: list[str], ins: Sequence[AbstractValue],
                 program: Program, offset: int = 0) -> None:  # fmt: skip
    """jax's TypeError for a carry whose shape or dtype the body changes, plus the line."""
    outs = [a.aval for a in program.outvars][offset : offset + len(ins)]
    diffs = []
    for i, (path, a, b) in enumerate(zip(paths, ins, outs, strict=True)):
        if not typematch(a, b):
            why = "dtypes" if a[0] == b[0] else "shapes"
            diffs.append(
                f"The input carry {name}{path} has type {a} but the corresponding output carry "
                f"component has type {b}, so the {why} do not match; "
                f"{_origin(program, offset + i)}."
            )
    if diffs:
        raise CarryTypeError(
            f"{what} function carry input and carry output must have equal types, but they "
            "differ:\n\n" + "\n".join(diffs) + "\n\nRevise the function so that all output "
            "types match the corresponding input types (e.g. with .astype), or give the "
            "initial carry the dtype the body computes."
        )


def _promote_weak_carries(ctx: Context, what: str, carry: list[Tracer], program: Program,
                          mark: int) -> tuple[list[Tracer], bool]:  # fmt: skip
    """jax's _promote_weak_typed_inputs: a weak initial carry the body changes becomes
    result_type(init, output) (strong); each is recorded as an implicit promotion, and
    the promotions of the body trace that is thrown away are forgotten."""
    outs = [a.aval for a in program.outvars][: len(carry)]
    if any(c.aval[2] and not typematch(c.aval, o) for c, o in zip(carry, outs, strict=True)):
        ctx.forget(mark)  # the body is traced again
    changed = False
    new = []
    for i, (c, o) in enumerate(zip(carry, outs, strict=True)):
        if c.aval[2] and not typematch(c.aval, o):
            dt, _ = ctx.policy.result([c.aval, o])
            d = convert(ctx, c, dt, False)
            src = _source_of(program, i)
            ctx.promoted(Promotion(what, (c.aval, o), c.aval, d.aval, src, None))
            new.append(d)
            changed = True
        else:
            new.append(c)
    return new, changed


def _source_of(program: Program, index: int) -> Any:
    out = program.outvars[index]
    for eqn in reversed(program.equations):
        if out in eqn.outputs:
            return eqn.source_info
    return user_source()


def _eager(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Outside a trace, control flow is jax.lax's own: the body runs on jax's tracers,
    and every weaktrace mirror it calls evaluates eagerly on them with weaktrace's rules
    (the carry rules are jax's; the traced path computes them itself, tested equal)."""
    return fn(*to_jax(list(args)), **kwargs)


def _leaves(ctx: Context, values: Any) -> tuple[list[Tracer], Any]:
    leaves, tree = _tree.tree_flatten(values)
    return [operand(v, ctx) for v in leaves], tree


def _result(ctx: Context, tree: Any, outs: list[Tracer]) -> Any:
    value = _tree.tree_unflatten(tree, outs)
    return to_jax(value) if ctx.eager else value


def _check_tree(what: str, got: Any, want: Any) -> None:
    if got != want:
        raise CarryTypeError(
            f"{what} must have the same pytree structure as its input, got {got} and {want}."
        )


@export
def while_loop(cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any],
               init_val: Any) -> Any:  # fmt: skip
    """``jax.lax.while_loop``: repeat body_fun while cond_fun holds."""
    ctx = context(*_tree.tree_leaves(init_val))
    if ctx.eager:
        return _eager(jax.lax.while_loop, cond_fun, body_fun, init_val)
    carry, tree = _leaves(ctx, init_val)
    paths = _paths(init_val)

    def body(*c: Tracer) -> Any:
        return body_fun(_tree.tree_unflatten(tree, c))

    mark = ctx.mark()
    made = _trace(ctx, body, [c.aval for c in carry])
    _check_tree("while_loop body_fun output", made.out_tree, tree)
    carry, changed = _promote_weak_carries(ctx, "while_loop carry", carry, made.program, mark)
    if changed:
        made = _trace(ctx, body, [c.aval for c in carry])
    _carry_error("while_loop body", "init_val", paths, [c.aval for c in carry], made.program)
    cond = _trace(ctx, lambda *c: cond_fun(_tree.tree_unflatten(tree, c)), [c.aval for c in carry])
    if len(cond.out_avals) != 1 or cond.out_avals[0][0] or cond.out_avals[0][1].name != "bool":
        raise OperandTypeError(
            "cond_fun must return a boolean scalar, but got output type(s) "
            f"{[str(a) for a in cond.out_avals]}."
        )
    params = {"cond_program": cond.program, "body_program": made.program,
              "cond_nconsts": len(cond.captures), "body_nconsts": len(made.captures)}  # fmt: skip
    outs = ctx.emit_n(while_p, (*cond.captures, *made.captures, *carry), params)
    return _result(ctx, tree, outs)


@export
def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any,
              *, unroll: int | bool | None = None) -> Any:  # fmt: skip
    """``jax.lax.fori_loop``: body_fun(i, val) for i in [lower, upper); traced once."""
    ctx = context(lower, upper, *_tree.tree_leaves(init_val))
    if ctx.eager:
        return _eager(jax.lax.fori_loop, lower, upper, body_fun, init_val, unroll=unroll)
    lo, hi = operand(lower, ctx), operand(upper, ctx)
    if lo.aval[1].kind not in "iu" or hi.aval[1].kind not in "iu" or lo.aval[0] or hi.aval[0]:
        raise OperandTypeError(
            f"fori_loop bounds must be integer scalars, got {lo.aval} and {hi.aval}"
        )
    lt, ht = lo.aval[1], hi.aval[1]
    dt = lt
    if lt is not ht:  # jax: equal dtypes, or a weak signed bound takes the other's
        weak_lo, weak_hi = lo.aval[2], hi.aval[2]
        signed = lt.kind == "i" and ht.kind == "i"
        if not signed or weak_lo == weak_hi:
            raise OperandTypeError(
                "lower and upper arguments to fori_loop must have equal types, got "
                f"{lt.name} and {ht.name}"
            )
        dt = ht if weak_lo else lt
    if not isinstance(lower, Tracer | jax.core.Tracer) and not isinstance(
        upper, Tracer | jax.core.Tracer
    ):
        # Static bounds: jax scans (reverse-differentiable), the counter a Python int.
        start, stop = int(lower), int(upper)

        def step(carry: Any, _: Any) -> Any:
            i, x = carry
            return (i + 1, body_fun(i, x)), None

        return scan(step, (start, init_val), None, length=max(stop - start, 0))[0][1]
    if lt is not dt:
        lo = convert(ctx, lo, dt, False)
    if ht is not dt:
        hi = convert(ctx, hi, dt, False)

    def cond(state: Any) -> Any:
        i, stop, _ = state
        return i < stop

    def body(state: Any) -> Any:
        i, stop, x = state
        return (i + 1, stop, body_fun(i, x))

    del unroll  # lax.while_loop lowers it; unrolling is an XLA concern
    return while_loop(cond, body, (lo, hi, init_val))[2]


@export
def cond(pred: Any, true_fun: Callable[..., Any], false_fun: Callable[..., Any],
         *operands: Any) -> Any:  # fmt: skip
    """``jax.lax.cond``: ``true_fun(*operands)`` if pred else ``false_fun(*operands)``."""
    ctx = context(pred, *_tree.tree_leaves(operands))
    if ctx.eager:
        return _eager(jax.lax.cond, pred, true_fun, false_fun, *operands)
    p = operand(pred, ctx)
    if p.aval[0] != ():
        raise OperandTypeError(f"Pred must be a scalar, got {p.aval}.")
    if p.aval[1].kind != "b":
        if p.aval[1].kind not in "iuf":
            raise OperandTypeError("Pred type must be either boolean or number.")
        p = bind(P.ne_p, p, lit(ctx, 0, p.aval[1], p.aval[2]))
    return _switch(ctx, p, [false_fun, true_fun], operands)


@export
def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """``jax.lax.switch``: ``branches[clamp(index)](*operands)``."""
    ctx = context(index, *_tree.tree_leaves(operands))
    if ctx.eager:
        return _eager(jax.lax.switch, index, branches, *operands)
    i = operand(index, ctx)
    if i.aval[0] != () or i.aval[1].kind not in "iub":
        raise OperandTypeError(f"Branch index must be an integer scalar, got {i.aval}.")
    if len(branches) == 0:
        raise ShapeError("Empty branch sequence")
    return _switch(ctx, i, list(branches), operands)


def _switch(ctx: Context, index: Tracer, branches: list[Callable[..., Any]],
            operands: Sequence[Any]) -> Any:  # fmt: skip
    int32 = _INT32
    idx = convert(ctx, index, int32, False)
    if len(branches) > 2 or index.aval[1].kind != "b":
        hi = lit(ctx, len(branches) - 1, int32)
        idx = bind(P.clamp_p, lit(ctx, 0, int32), idx, hi)
    ops, tree = _leaves(ctx, tuple(operands))
    made = [
        _trace(ctx, lambda *a, f=f: f(*_tree.tree_unflatten(tree, a)), [o.aval for o in ops])
        for f in branches
    ]
    for m in made[1:]:
        if m.out_tree != made[0].out_tree:
            raise CarryTypeError(
                "branches must have the same type structure, got "
                f"{made[0].out_tree} and {m.out_tree}."
            )
        bad = [(a, b) for a, b in zip(made[0].out_avals, m.out_avals, strict=True)
               if not typematch(a, b)]  # fmt: skip
        if bad:
            a, b = bad[0]
            why = "dtypes" if a[0] == b[0] else "shapes"
            raise CarryTypeError(
                f"branches must have equal output types but they differ: one branch gives "
                f"{a} and another {b}, so the {why} do not match. Revise the branches so "
                "that their outputs have the same types (e.g. with .astype)."
            )
    captures, programs = _common_captures(made)
    outs = ctx.emit_n(cond_p, (idx, *captures, *ops), {"branches": tuple(programs)})
    return _result(ctx, made[0].out_tree, outs)


def _common_captures(made: list[Made]) -> tuple[list[Tracer], list[Program]]:
    """Every branch takes the union of all branches' captured values (jax's
    _initial_style_jaxprs_with_common_consts)."""
    union: dict[int, Tracer] = {}
    for m in made:
        for t in m.captures:
            union.setdefault(id(t), t)
    programs = []
    for m in made:
        own = dict(zip([id(t) for t in m.captures], m.program.invars, strict=False))
        ncap = len(m.captures)
        invars = tuple(own.get(k) or Var(t.aval) for k, t in union.items())
        programs.append(m.program._replace(invars=invars + m.program.invars[ncap:]))
    return list(union.values()), programs


@export
def scan(f: Callable[[Any, Any], Any], init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int | bool = 1,
         _split_transpose: bool = False) -> Any:  # fmt: skip
    """``jax.lax.scan``: carry through f over the leading axis of xs, stacking ys."""
    ctx = context(*_tree.tree_leaves(init), *_tree.tree_leaves(xs))
    if ctx.eager:
        return _eager(jax.lax.scan, f, init, xs, length=length, reverse=reverse, unroll=unroll)
    carry, carry_tree = _leaves(ctx, init)
    xs_ops, xs_tree = _leaves(ctx, xs)
    lengths = {x.aval[0][0] for x in xs_ops if x.aval[0]}
    if any(not x.aval[0] for x in xs_ops):
        raise ShapeError("scan got a scalar among xs; every x needs a leading axis to scan")
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        got = f"leading axes of different lengths {sorted(lengths)}" if lengths else "no xs"
        raise ShapeError(f"scan got {got}; give xs whose leading axes agree, or length=")
    n = lengths.pop()
    x_avals = [AbstractValue.make(x.aval[0][1:], x.aval[1], x.aval[2]) for x in xs_ops]
    nc = len(carry)

    def body(*a: Tracer) -> Any:
        c = _tree.tree_unflatten(carry_tree, a[:nc])
        x = _tree.tree_unflatten(xs_tree, a[nc:])
        out = f(c, x)
        if not isinstance(out, tuple) or len(out) != 2:
            raise CarryTypeError(
                f"scan body output must be a pair (carry, y), got {type(out).__name__}"
            )
        return out

    mark = ctx.mark()
    made = _trace(ctx, body, [c.aval for c in carry] + x_avals)
    out_tree = made.out_tree
    children = out_tree.children()
    _check_tree("scan body carry output", children[0], carry_tree)
    carry, changed = _promote_weak_carries(ctx, "scan carry", carry, made.program, mark)
    if changed:
        made = _trace(ctx, body, [c.aval for c in carry] + x_avals)
    _carry_error("scan body", "init", _paths(init), [c.aval for c in carry], made.program)
    params = {"program": made.program, "length": n, "reverse": bool(reverse),
              "unroll": int(unroll), "num_consts": len(made.captures), "num_carry": nc}  # fmt: skip
    outs = ctx.emit_n(scan_p, (*made.captures, *carry, *xs_ops), params)
    return _result(ctx, out_tree, outs)


__all__ = ["cond", "fori_loop", "scan", "switch", "while_loop"]
