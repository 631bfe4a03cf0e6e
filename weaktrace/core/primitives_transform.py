"""A jax transformation (``jax.grad``, ``jax.vmap``, ...) of a traced sub-program.

User code inside a weaktrace trace may call ``jax.value_and_grad(loss)(params, batch)``
or ``jax.vmap(f)(xs)`` as it does under ``jax.jit``. The function is traced once to a
sub-program with weaktrace's promotion; the equation applies jax's own transformation to
that sub-program when the program lowers (see ``weaktrace.transforms``). The output types
are jax's: computed by ``jax.eval_shape`` of the transformed sub-program when the
equation is recorded, and held by the equation's `transform` param.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax

from weaktrace.ir.values import AbstractValue, Primitive, Program, abstract_eval_rules


class Static:
    """A positional argument passed to jax as it is (a custom_jvp's non-differentiable
    Python value): a pytree node with no leaves."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


jax.tree_util.register_pytree_node(Static, lambda s: ((), s.value), lambda v, _: Static(v))


class Transform:
    """What a ``jax_transform`` equation applies: `apply(fn, *args, **kwargs)` is jax's
    transformation of `fn` called on the operands (rebuilt with `in_tree`); `fn` is the
    sub-program as a function of `inner_tree`'s pytree (leaves marked `raw` are Python
    values the program was traced with, not inputs), returning `inner_out_tree`'s.
    Prints as the jax call it stands for, e.g. ``value_and_grad(argnums=0)``."""

    __slots__ = ("apply", "float0", "in_tree", "inner_out_tree", "inner_tree", "name",
                 "options", "out_avals", "out_tree", "raw")  # fmt: skip

    def __init__(
        self,
        name: str,
        options: dict[str, Any],
        apply: Callable[..., Any],
        in_tree: Any,
        inner_tree: Any,
        inner_out_tree: Any,
        out_tree: Any,
        out_avals: Sequence[AbstractValue],
        raw: Sequence[bool] = (),
    ) -> None:
        self.name, self.options, self.apply = name, options, apply
        self.in_tree, self.inner_tree, self.inner_out_tree = in_tree, inner_tree, inner_out_tree
        self.out_tree, self.out_avals = out_tree, tuple(out_avals)
        self.raw = tuple(raw)  # per argument leaf: passed to the function as is (a constant)
        # Per output leaf: a float0 cotangent (of an integer input: no data), which is a
        # constant of the trace, not an output of the equation; () when there is none.
        self.float0: tuple[bool, ...] = ()

    def call(self, fn: Callable[..., Any], leaves: Sequence[Any]) -> Any:
        """``apply(fn, *args, **kwargs)`` with the arguments rebuilt from their leaves
        (a Static argument as its value)."""
        args, kwargs = jax.tree_util.tree_unflatten(self.in_tree, leaves)
        return self.apply(fn, *[x.value if x.__class__ is Static else x for x in args], **kwargs)

    def __str__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{self.name}({opts})"

    __repr__ = __str__


def _rule(*ops: AbstractValue, program: Program, transform: Transform,
          n_captures: int) -> list[AbstractValue]:  # fmt: skip
    return list(transform.out_avals)


transform_p = Primitive("jax_transform", multiple_results=True)
abstract_eval_rules[transform_p] = _rule


class DebugCall:
    """A ``jax.debug.print`` (``callback``) call: jax's function, its first argument
    (the format string or the callback), the other arguments' pytree and options."""

    __slots__ = ("first", "function", "name", "options", "tree")

    def __init__(self, name: str, function: Callable[..., Any], first: Any, tree: Any,
                 options: dict[str, Any]) -> None:  # fmt: skip
        self.name, self.function, self.first = name, function, first
        self.tree, self.options = tree, options

    def __call__(self, *leaves: Any) -> list[Any]:
        args, kwargs = jax.tree_util.tree_unflatten(self.tree, leaves)
        self.function(self.first, *args, **kwargs, **self.options)
        return []

    def __str__(self) -> str:
        return f"jax.debug.{self.name}({self.first!r})"


debug_p = Primitive("debug", multiple_results=True)
abstract_eval_rules[debug_p] = lambda *avals, call: []
