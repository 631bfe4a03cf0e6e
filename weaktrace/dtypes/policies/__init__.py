"""Promotion policies: one module each, all subclasses of `Policy` (``base.py``).

``policy(name, **options)`` builds one by name; `as_policy` accepts a Policy, a name,
a Lattice or None (the default JAX policy, which follows jax's config).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from weaktrace.dtypes.lattice import Lattice
from weaktrace.dtypes.policies.base import Policy
from weaktrace.dtypes.policies.jax import JaxPolicy
from weaktrace.dtypes.policies.lattice import LatticePolicy, MaxPolicy, max_lattice
from weaktrace.dtypes.policies.numpy import NumpyPolicy
from weaktrace.dtypes.policies.torch import TorchPolicy, promote_names
from weaktrace.errors import PolicyError

__all__ = [
    "DEFAULT",
    "JaxPolicy",
    "LatticePolicy",
    "MaxPolicy",
    "NumpyPolicy",
    "Policy",
    "TorchPolicy",
    "as_policy",
    "max_lattice",
    "policy",
    "promote_names",
    "register_policy",
]

_FACTORIES: dict[str, Callable[..., Policy]] = {
    "jax": JaxPolicy,
    "numpy": NumpyPolicy,
    "torch": TorchPolicy,
    "max": MaxPolicy,
}


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


DEFAULT = JaxPolicy()


def as_policy(p: Policy | str | Lattice[Any] | None) -> Policy:
    """Accept a Policy, a policy name, a Lattice, or None (the default JAX policy)."""
    if p is None:
        return DEFAULT
    if isinstance(p, Policy):
        return p
    if isinstance(p, str):
        return policy(p)
    if isinstance(p, Lattice):
        return LatticePolicy(p)
    raise PolicyError(
        f"expected a weaktrace Policy, a policy name such as 'jax', or a Lattice; received {p!r}"
    )
