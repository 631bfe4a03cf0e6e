"""``weaktrace.lax``: the jax.lax mirror (DESIGN §5): its operations with jax.lax's
names, signatures and no-promotion rules (``ops``, ``ops_more``), convolutions and
reductions with a computation (``windows``), and control flow (cond, switch,
while_loop, fori_loop, scan, map, associative_scan), whose bodies and branches are
traced once to sub-programs and lower onto jax.lax's own control flow (``control``),
and the ``linalg`` submodule (jax.lax.linalg).
jax's dimension-number records, enums and static shape helpers are re-exported."""

from __future__ import annotations

from jax import lax as _jax_lax

from weaktrace.lax import collectives, control, control_more, extra, ops, ops_more, solves, windows
from weaktrace.lax import linalg as linalg  # the jax.lax.linalg submodule

globals().update(ops.EXPORTS)
globals().update(ops_more.EXPORTS)
globals().update(ops_more.DATA)
globals().update(windows.EXPORTS)
globals().update(windows.DATA)
globals().update(control.EXPORTS)
globals().update(control_more.EXPORTS)
globals().update(extra.EXPORTS)
globals().update(solves.EXPORTS)
globals().update(collectives.EXPORTS)
# jax's primitive objects (``add_p``, ``while_p``, ...), as jax's own, like the records
# above: they name the equations jax records when it traces an eager weaktrace call
# (``jax.make_jaxpr`` of a function written with weaktrace.lax shows jax's primitives),
# which is what code comparing jaxpr equations looks for. weaktrace's own primitives,
# the ones its programs hold, are in weaktrace.core.
globals().update({_n: getattr(_jax_lax, _n) for _n in dir(_jax_lax) if _n.endswith("_p")})
__all__ = sorted(
    {
        *ops.EXPORTS,
        *ops_more.EXPORTS,
        *ops_more.DATA,
        *windows.EXPORTS,
        *windows.DATA,
        *control.EXPORTS,
        *control_more.EXPORTS,
        *extra.EXPORTS,
        *solves.EXPORTS,
        *collectives.EXPORTS,
    }
)
