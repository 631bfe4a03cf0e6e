"""``weaktrace.lax``: the jax.lax mirror (DESIGN §5). Control flow (cond, switch,
while_loop, fori_loop, scan, map) traces bodies and branches once to sub-programs
and lowers onto jax.lax's own control flow."""

from __future__ import annotations

from weaktrace.lax import control
from weaktrace.lax.control import cond, fori_loop, map, scan, switch, while_loop

__all__ = sorted(control.EXPORTS)

assert {cond, fori_loop, map, scan, switch, while_loop}  # re-exported names
