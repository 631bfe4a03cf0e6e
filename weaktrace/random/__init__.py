"""``weaktrace.random``: the jax.random mirror (DESIGN §5).

Keys made by ``jax.random.key`` (typed, dtype ``key<fry>``) or ``jax.random.PRNGKey``
(raw ``uint32[2]``) enter traced functions as arguments and leave them as outputs.
Every sampler is a weaktrace primitive: its dtype and shape follow jax.random's
rules under the trace's policy, and its lowering calls the jax.random function
itself, so the same key gives bit-identical samples, traced, compiled or eager.
"""

from __future__ import annotations

from jax import random as _jax_random

from weaktrace.random import keys, samplers, structured  # noqa: F401  (they export)
from weaktrace.random._common import EXPORTS

globals().update(EXPORTS)
# jax's gamma primitive object, as jax's own (as weaktrace.lax re-exports jax.lax's ``*_p``)
random_gamma_p = _jax_random.random_gamma_p
__all__ = sorted(EXPORTS)
