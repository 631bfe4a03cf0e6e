"""AOT stages over jax's own: Lowered (StableHLO) and Compiled (callable).

Mirrors ``jax.jit(f).trace(...).lower().compile()``; the jax objects are kept
(``.jax_lowered``, ``.jax_compiled``) for everything jax offers on them.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import jax

from weaktrace.dtypes.policies import Policy
from weaktrace.errors import InvalidInputError
from weaktrace.ir.values import AbstractValue, Program
from weaktrace.lowering.evaluate import avals, eval_program


@contextlib.contextmanager
def x64_mode(x64: bool | None) -> Iterator[None]:
    """Run jax under the policy's x64 choice (None: leave jax's config alone)."""
    if x64 is None or x64 == bool(jax.config.read("jax_enable_x64")):
        yield
    else:
        with jax.enable_x64(x64):
            yield


def spec(aval: AbstractValue, policy: Policy) -> Any:
    """The jax.ShapeDtypeStruct a program input lowers with."""
    return jax.ShapeDtypeStruct(
        aval.shape, policy.lowering_dtype(aval[1]).numpy, weak_type=aval.weak_type
    )


def warn_lowered_dtypes(policy: Policy, program: Program) -> None:
    """Say once per lowering when the policy computes a dtype XLA lacks as another."""
    changed = {a[1]: policy.lowering_dtype(a[1]) for a in avals(program)}
    changed = {k: v for k, v in changed.items() if k is not v}
    if changed:
        warnings.warn(
            "XLA has no "
            + ", ".join(f"{dt} (computed as {to})" for dt, to in changed.items())
            + f"; policy {policy.name!r} lowers them so.",
            LoweringDtypeWarning,
            stacklevel=4,
        )


class LoweringDtypeWarning(UserWarning):
    """A policy's dtype that XLA lacks was lowered as another (MAX's index as uint64)."""


class Lowered:
    """A traced program lowered to StableHLO through ``jax.jit``."""

    def __init__(self, jax_lowered: Any, program: Program, in_tree: Any, out_tree: Any,
                 x64: bool | None) -> None:  # fmt: skip
        self.jax_lowered = jax_lowered
        self.program = program
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.x64 = x64

    def as_text(self, dialect: str | None = None) -> str:
        """The StableHLO module as text (as ``jax.stages.Lowered.as_text``)."""
        return str(self.jax_lowered.as_text(dialect) if dialect else self.jax_lowered.as_text())

    def compile(self) -> Compiled:
        with x64_mode(self.x64):
            return Compiled(self.jax_lowered.compile(), self.in_tree, self.out_tree, self.x64)

    def cost_analysis(self) -> Any:
        return self.jax_lowered.cost_analysis()


class Compiled:
    """An executable: call it with arguments of the traced types."""

    def __init__(self, jax_compiled: Any, in_tree: Any, out_tree: Any, x64: bool | None) -> None:
        self.jax_compiled = jax_compiled
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.x64 = x64

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        if tree != self.in_tree:
            raise InvalidInputError(
                f"this Compiled was traced for arguments structured as {self.in_tree}, but "
                f"was called with {tree}. Trace again for the new structure."
            )
        with x64_mode(self.x64):
            outs = self.jax_compiled(*leaves)
        return jax.tree_util.tree_unflatten(self.out_tree, outs)

    def as_text(self) -> str:
        return str(self.jax_compiled.as_text())

    def cost_analysis(self) -> Any:
        return self.jax_compiled.cost_analysis()


def lower(program: Program, in_avals: list[AbstractValue], in_tree: Any, out_tree: Any,
          policy: Policy, pin_x64: bool | None, jit_options: dict[str, Any],
          name: str = "run") -> Lowered:  # fmt: skip
    """Lower a program for its input types through ``jax.jit``."""
    warn_lowered_dtypes(policy, program)

    def run(*leaves: Any) -> list[Any]:
        return eval_program(program, leaves, policy)

    run.__name__ = run.__qualname__ = name  # the StableHLO module is named after it
    with x64_mode(pin_x64):
        jax_lowered = jax.jit(run, **jit_options).lower(*[spec(a, policy) for a in in_avals])
    return Lowered(jax_lowered, program, in_tree, out_tree, pin_x64)
