"""Primitives whose derivative is a jax custom JVP the composition would not reproduce:
``logaddexp`` and ``logaddexp2`` (jax.numpy's, from ``jax._src.lax.other``).

Composed from max / log1p / exp, their gradient at ``x1 == x2`` would be jax.lax.max's
(1 for one operand, 0 for the other), while jax's custom JVP gives ``exp(x - out)`` (0.5
each): softplus, log_sigmoid and mish at 0 depend on it. weaktrace promotes the operands
(inexact, one dtype) before binding; the lowering (weaktrace/lowering/rules_nn.py) calls
jax's function on them, so values and derivatives are jax's own.
"""

from __future__ import annotations

from weaktrace.core.primitives import INEXACT, _nary

logaddexp_p = _nary("logaddexp", INEXACT)
logaddexp2_p = _nary("logaddexp2", INEXACT)
