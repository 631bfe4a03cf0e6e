"""``weaktrace.lax``: the jax.lax mirror (DESIGN §5): its operations with jax.lax's
names, signatures and no-promotion rules (``ops``), and control flow (cond, switch,
while_loop, fori_loop, scan, map), whose bodies and branches are traced once to
sub-programs and lower onto jax.lax's own control flow (``control``)."""

from __future__ import annotations

from weaktrace.lax import control, ops

globals().update(ops.EXPORTS)
globals().update(control.EXPORTS)
__all__ = sorted({*ops.EXPORTS, *control.EXPORTS})
