"""Promotion policies: a lattice, how scalars enter, and canonicalization (x64).

``policy("jax")`` follows jax's config (``jax_numpy_dtype_promotion``,
``jax_enable_x64``, and their context managers) unless told otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from weaktrace.dtypes import jax_rules
from weaktrace.dtypes.jax_lattices import jax_lattice
from weaktrace.dtypes.lattice import Lattice
from weaktrace.errors import PolicyError


class Policy:
    """Base class: a named set of promotion rules."""

    name: str = "policy"

    def promote_types(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def result_type(self, *args: Any, return_weak_type_flag: bool = False) -> Any:
        raise NotImplementedError

    def trace_rules(self) -> Any:
        """The object a trace consults for joins, scalar dtypes and canonicalization."""
        raise NotImplementedError

    @property
    def lattice(self) -> Lattice[Any] | None:
        """The promotion lattice in force now, or None for systems that are not one."""
        return None

    def table(self, dtypes: Any = None) -> Any:
        """The binary promotion table (a PromotionTable: text, markdown, HTML)."""
        from weaktrace.dtypes.table import table

        return table(self, dtypes)


class JaxPolicy(Policy):
    """JAX's rules. ``strict`` / ``x64`` of None follow jax's config in this thread.

    >>> import numpy as np
    >>> JaxPolicy(x64=True).result_type(np.uint32, np.int32)
    dtype('int64')
    >>> JaxPolicy(x64=False).result_type(np.uint32, np.int32)
    dtype('int32')
    """

    name = "jax"

    def __init__(self, strict: bool | None = None, x64: bool | None = None) -> None:
        for option, value in (("strict", strict), ("x64", x64)):
            if value is not None and not isinstance(value, bool):
                raise PolicyError(
                    f"policy('jax') option {option}={value!r} must be True, False or None "
                    "(None follows jax's config)"
                )
        self.strict = strict
        self.x64 = x64

    def __repr__(self) -> str:
        return f"policy('jax', strict={self.strict}, x64={self.x64})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JaxPolicy) and (self.strict, self.x64) == (
            other.strict,
            other.x64,
        )

    def __hash__(self) -> int:
        return hash(("jax", self.strict, self.x64))

    def mode(self) -> tuple[bool, bool]:
        """The (strict, x64) pair in force now: the options, or jax's config for None."""
        strict, x64 = jax_rules.current_mode()
        return (
            strict if self.strict is None else self.strict,
            x64 if self.x64 is None else self.x64,
        )

    def promote_types(self, a: Any, b: Any) -> np.dtype:
        return jax_rules.promote(a, b, *self.mode())

    def result_type(self, *args: Any, return_weak_type_flag: bool = False) -> Any:
        dt, weak = jax_rules.result(args, *self.mode())
        return (dt, weak) if return_weak_type_flag else dt

    @property
    def lattice(self) -> Lattice[str]:
        strict, x64 = self.mode()
        return jax_lattice(strict, x64)

    def trace_rules(self) -> jax_rules.JaxTraceRules:
        """The rules a trace starting now runs under (one shared object per mode)."""
        return _JAX_TRACE_RULES[self.mode()]


_FACTORIES: dict[str, Callable[..., Policy]] = {"jax": JaxPolicy}


def register_policy(name: str, factory: Callable[..., Policy]) -> None:
    """Make ``policy(name, **options)`` build policies with `factory`."""
    _FACTORIES[name] = factory


def policy(name: str = "jax", **options: Any) -> Policy:
    """Make a promotion policy by name.

    >>> policy("jax", strict=True)
    policy('jax', strict=True, x64=None)
    """
    factory = _FACTORIES.get(name)
    if factory is None:
        raise PolicyError(
            f"unknown promotion policy {name!r}; available policies: {', '.join(_FACTORIES)}"
        )
    try:
        return factory(**options)
    except TypeError as err:
        raise PolicyError(f"bad options for policy({name!r}): {err}") from None


def as_policy(p: Policy | str | Lattice[Any] | None) -> Policy:
    """Accept a Policy, a policy name, a Lattice, or None (the default JAX policy)."""
    if p is None:
        return DEFAULT
    if isinstance(p, Policy):
        return p
    if isinstance(p, str):
        return policy(p)
    if isinstance(p, Lattice):
        from weaktrace.dtypes.policies import LatticePolicy

        return LatticePolicy(p)
    raise PolicyError(
        f"expected a weaktrace Policy, a policy name such as 'jax', or a Lattice; received {p!r}"
    )


DEFAULT = JaxPolicy()
_JAX_TRACE_RULES = {
    (s, x): jax_rules.JaxTraceRules(s, x) for s in (False, True) for x in (False, True)
}
