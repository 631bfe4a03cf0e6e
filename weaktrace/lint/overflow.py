"""The literal-overflow rule: Python ints (and counts) that wrap in the dtype jax gives them."""

from __future__ import annotations

import jax.numpy as jnp

from weaktrace.ir.values import Literal, Program, Var
from weaktrace.lint.hooks import Recorder, out_of_range
from weaktrace.lint.report import Finding
from weaktrace.lint.rules import _CALLS, _finding, _subs


def literal_overflow(program: Program, rec: Recorder) -> list[Finding]:
    """Python int literals that wrap: seen by the hooks as jax folds them, or (inside a
    nested jit such as jnp.where's) a weak int literal passed in and converted there."""
    out = []
    for ev in rec.overflow:
        f = _finding("literal-overflow", ev.where, ev.message + _what_happens(ev.message))
        if f is not None:
            out.append(f)
    _overflow_in_calls(program, {}, out, rec.own_ints)
    return out


def _what_happens(message: str) -> str:
    # an integer dtype wraps; a floating one (float16 + 70000) rounds to inf
    return " (it becomes inf)" if "float" in message.split()[-1] else " (it wraps silently)"


def _overflow_in_calls(
    prog: Program, known: dict[Var, Literal], out: list[Finding], own: set[tuple[str, int, int]]
) -> None:
    """Weak int literals converted out of range inside nested calls, except the ints
    jax.numpy computed itself and passed to its jitted helpers (`own`)."""
    for k, eqn in enumerate(prog.equations):
        if eqn.primitive.name == "iota":
            _iota_overflow(prog, k, out)
        if eqn.primitive.name == "convert_element_type":
            x = eqn.inputs[0]
            lit = x if isinstance(x, Literal) else known.get(x)
            if lit is not None and lit.aval.weak_type and lit.aval.dt.kind in "iu":
                new = eqn.outputs[0].aval.dt
                if new.numpy is not None and out_of_range(lit.value, new.numpy):
                    where = eqn.source_info
                    if where is not None and (where.file, where.line, int(lit.value)) in own:
                        continue  # jax's own int, computed from the user's shape
                    f = _finding(
                        "literal-overflow",
                        eqn.source_info,
                        f"Python int {int(lit.value)} does not fit {new.name}"
                        + _what_happens(new.name),
                        operands=(lit.aval,),
                        results=(eqn.outputs[0].aval,),
                    )
                    if f is not None:
                        out.append(f)
        for sub in _subs(eqn):
            inner: dict[Var, Literal] = {}
            if eqn.primitive.name in _CALLS and len(sub.invars) == len(eqn.inputs):
                for v, a in zip(sub.invars, eqn.inputs, strict=True):
                    lit = a if isinstance(a, Literal) else known.get(a)
                    if lit is not None:
                        inner[v] = lit
            _overflow_in_calls(sub, inner, out, own)


def _iota_overflow(prog: Program, k: int, out: list[Finding]) -> None:
    """`jnp.arange(300, dtype=jnp.uint8)`, `jnp.arange(250, 260, dtype=jnp.uint8)` and the
    like: an integer iota whose values, once jax's arange has scaled it by its step and
    shifted it by its start (a mul and an add by scalar literals on the same line), pass
    the dtype's range wrap silently (jax raises nothing)."""
    eqn = prog.equations[k]
    result = eqn.outputs[0].aval
    dim = eqn.params.get("dimension")
    if result.dt.kind not in "iu" or result.dt.numpy is None or not isinstance(dim, int):
        return
    n = result.shape[dim]
    if not isinstance(n, int) or n == 0:
        return
    info = jnp.iinfo(result.dt.numpy)  # int4/uint4 too (numpy's kind is "V")
    low, top, span = int(info.min), int(info.max), int(info.max) - int(info.min) + 1
    # the value ranges the sequence can mean: an unsigned step is a negative one wrapped
    # (arange(10, 0, -1, dtype=uint8) multiplies by 255), so both readings are kept
    ranges = [(0, n - 1)]
    var, steps = eqn.outputs[0], []
    for later in prog.equations[k + 1 :]:  # arange's mul and add follow its iota at once
        name = later.primitive.name
        if var not in later.inputs:
            break
        others = [x for x in later.inputs if x is not var]
        if (name not in ("mul", "add") or len(others) != 1 or later.source_info != eqn.source_info
                or not isinstance(others[0], Literal) or others[0].aval.shape != ()):  # fmt: skip
            break
        c = int(others[0].value)
        readings = [c, c - span] if name == "mul" and low == 0 and c > top // 2 else [c]
        if name == "mul":
            ranges = [(min(a * r, b * r), max(a * r, b * r)) for a, b in ranges for r in readings]
        else:
            ranges = [(a + c, b + c) for a, b in ranges]
        steps.append(f"{'x' if name == 'mul' else '+'} {c}")
        var = later.outputs[0]
    if any(lo >= low and hi <= top for lo, hi in ranges):
        return
    lo, hi = ranges[0]
    what = f"a count of {n} values (arange / iota)" if not steps else (
        f"arange's {n} values (iota {' '.join(steps)}) run from {lo} to {hi}, which"
    )  # fmt: skip
    f = _finding(
        "literal-overflow",
        eqn.source_info,
        f"{what} does not fit {result.dt.name} [{low}, {top}]: past it they wrap "
        "silently; count in a wider dtype and convert",
        results=(var.aval,),
    )
    if f is not None:
        out.append(f)
