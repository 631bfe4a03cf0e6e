"""Every error weaktrace raises on purpose.

Each class says what kind of mistake it is; each message says what was received,
why it fails and what to do. Where JAX raises a ``TypeError`` for the same input,
ours also derives from ``TypeError`` so code written against JAX keeps working.
"""

from __future__ import annotations


class WeaktraceError(Exception):
    """Base class of weaktrace's own errors."""


class TypePromotionError(WeaktraceError, ValueError):
    """Two or more dtypes have no implicit promotion under the active policy.

    Mirrors ``jax.dtypes.TypePromotionError`` (a ``ValueError``).
    """


class InvalidDTypeError(TypePromotionError, TypeError):
    """A value or dtype specifier that is not a valid array dtype for the policy.

    JAX raises ``TypeError`` for these inputs, so this is both a ``TypeError`` and
    a :class:`TypePromotionError`.
    """


class LatticeError(WeaktraceError, ValueError):
    """A promotion lattice (or table) is malformed or breaks a lattice law."""


class PolicyError(WeaktraceError, ValueError):
    """An unknown policy name or an invalid policy option."""


def listing(items: object) -> str:
    """``a, b and c``: the received inputs, in the order they were given."""
    names = [str(i) for i in items]  # type: ignore[attr-defined]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
