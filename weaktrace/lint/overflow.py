"""The literal-overflow rule: Python ints (and counts) that wrap in the dtype jax gives them."""

from __future__ import annotations

import jax.numpy as jnp

from weaktrace.ir.values import Equation, Literal, Program, Var
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
    for eqn in prog.equations:
        if eqn.primitive.name == "iota":
            _iota_overflow(eqn, out)
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


def _iota_overflow(eqn: Equation, out: list[Finding]) -> None:
    """`jnp.arange(300, dtype=jnp.uint8)` and the like: an iota counting past its
    integer dtype's maximum wraps (jax raises nothing)."""
    result = eqn.outputs[0].aval
    dim = eqn.params.get("dimension")
    if result.dt.kind not in "iu" or result.dt.numpy is None or not isinstance(dim, int):
        return
    n = result.shape[dim]
    top = int(jnp.iinfo(result.dt.numpy).max)  # int4/uint4 too (numpy's kind is "V")
    if not isinstance(n, int) or n - 1 <= top:
        return
    f = _finding(
        "literal-overflow",
        eqn.source_info,
        f"a count of {n} values (arange / iota) does not fit {result.dt.name}: "
        f"after {top} it wraps silently; count in a wider dtype and convert",
        results=(result,),
    )
    if f is not None:
        out.append(f)
