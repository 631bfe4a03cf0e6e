"""``weaktrace.ops``: the jax.ops mirror, segment reductions (``segment_sum``,
``segment_prod``, ``segment_max``, ``segment_min``) with jax.ops' signatures and
dtype rules, lowered onto weaktrace's scatter primitives."""

from __future__ import annotations

from weaktrace.ops import segments

globals().update(segments.EXPORTS)
__all__ = sorted(segments.EXPORTS)
