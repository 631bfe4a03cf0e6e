"""``weaktrace.nn``: the jax.nn mirror (activations, softmax, logsumexp, one_hot,
standardize ...) and ``weaktrace.nn.initializers`` (jax's, also with a traced key).

Each function has jax.nn's name, signature, shape, dtype and weak-type rules, computed
with weaktrace's promotion under the active policy; gradients through ``jax.grad`` of a
compiled weaktrace function equal jax's, custom JVPs included."""

from __future__ import annotations

from weaktrace.nn import attention as _attention  # noqa: F401  (registers its export)
from weaktrace.nn import initializers as initializers
from weaktrace.nn.functions import EXPORTS

globals().update(EXPORTS)
__all__ = sorted([*EXPORTS, "initializers"])
