"""``weaktrace.numpy.linalg``: the ``jax.numpy.linalg`` mirror.

Every public function of ``jax.numpy.linalg`` that works under ``jax.jit``, with its
name, signature, shapes, dtypes and weak flags. Decompositions bind
``jax.lax.linalg``'s primitives; the rest is composed from them as jax composes it.
"""

from __future__ import annotations

from weaktrace.numpy.linalg import _decompositions, _norms  # noqa: F401  (fill EXPORTS)
from weaktrace.numpy.linalg._exports import EXPORTS

globals().update(EXPORTS)
__all__ = sorted(EXPORTS)
