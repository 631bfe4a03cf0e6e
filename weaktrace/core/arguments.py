"""How arguments reach jax.jit for a traced function: the ones jax would misread are
marked (`Marked`), Python scalar subclasses are refused where a policy takes them as
arrays, numpy's non-native arguments are made native, and outputs leave in the
dtypes the trace gave them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.dtypes.policies import Policy
from weaktrace.errors import InvalidInputError
from weaktrace.ir.values import AbstractValue


@jax.tree_util.register_pytree_node_class
class Marked:
    """An argument jax.jit would misread: a bool under a policy where Python bools are
    weak (torch's wrapped number; jax makes a strong bool array of it), an int beyond
    int64 the policy takes (torch's uint64 numbers; jax refuses them), an array of a
    dtype XLA lacks (torch's complex32; jax refuses it). jax.jit sees `value` (as jax
    can hold it: the policy's lowering dtype) as the leaf of a node of its own, so its
    cache keeps the argument apart from others; the trace gives it the aval of
    `python`, a Python scalar or a ShapeDtypeStruct standing for it."""

    __slots__ = ("python", "value")

    def __init__(self, value: Any, python: Any) -> None:
        self.value, self.python = value, python

    def tree_flatten(self) -> tuple[tuple[Any], Any]:
        return (self.value,), self.python

    @classmethod
    def tree_unflatten(cls, python: Any, children: Sequence[Any]) -> Marked:
        return cls(children[0], python)


def is_marked(x: Any) -> bool:
    return x.__class__ is Marked


NUMBERS = (float, complex)


_SCALAR_OF_KIND = {"i": int, "u": int, "f": float, "c": complex}
_BOOL = np.dtype(bool)


def signature(x: Any) -> Any:
    """What tells traces of one argument structure apart, for the per-call checks a
    trace recorded (a Python int's bounds depend on the dtypes it meets). The same
    whether the leaf is the caller's argument or what jax.jit traces it as: a Python
    scalar (or a weak 0-d value, as jax.jit passes one) gives its class, a bool (jax.jit
    makes it a strong array) and an array their dtype, shape and weak flag. A marked
    leaf (see `Marked`) gives its raw argument's."""
    if x.__class__ is Marked:
        x = x.python
    cls = x.__class__
    if cls is bool:
        return _BOOL, (), False
    if cls in (int, float, complex):
        return cls
    dt = getattr(x, "dtype", None)
    if dt is None:
        return cls
    if not isinstance(dt, np.dtype):
        try:
            dt = np.dtype(dt)
        except TypeError:  # an extended dtype (a typed PRNG key's key<fry>): as it is
            return dt, tuple(getattr(x, "shape", ())), False
    weak = bool(getattr(x, "weak_type", False))
    if weak and x.shape == () and dt.kind in _SCALAR_OF_KIND:
        return _SCALAR_OF_KIND[dt.kind]
    return (dt if dt.isnative else dt.newbyteorder("=")), tuple(x.shape), weak


def stand_in(x: Any, jit_view: bool) -> Any:
    """What a leaf is traced as: a marked argument's stand-in (see `Marked`), except a
    marked Python number in the jit view (the value jax.jit passes), or the leaf."""
    if x.__class__ is not Marked:
        return x
    return x.value if jit_view and x.python.__class__ in NUMBERS else x.python


def in_dtypes(outs: list[Any], avals: list[AbstractValue], policy: Policy) -> list[Any]:
    """The outputs converted to the dtypes (and weak flags) of `avals` where they
    differ."""
    fixed = None
    for i, (aval, o) in enumerate(zip(avals, outs, strict=True)):
        dt = getattr(o, "dtype", None)
        if dt is None:
            continue
        want = policy.lowering_dtype(aval[1]).numpy
        if dt != want:
            if fixed is None:
                fixed = list(outs)
            fixed[i] = jax.lax.convert_element_type_p.bind(
                o, new_dtype=want, weak_type=bool(aval[2]), sharding=None
            )
    return outs if fixed is None else fixed


def refuse_scalar_subclasses(leaves: list[Any], policy: Policy) -> None:
    """An IntEnum (any int/float/complex subclass) argument under a policy that takes it
    as ``np.asarray(x)`` (NumPy): jax.jit would pass it as a weak Python scalar instead."""
    for leaf in leaves:
        if (
            leaf.__class__ not in (bool, int, float, complex)
            and isinstance(leaf, int | float | complex)
            and not isinstance(leaf, np.generic)
        ):
            raise InvalidInputError(
                f"argument {leaf!r} (a {type(leaf).__name__}, a subclass of "
                f"{next(t.__name__ for t in (int, float, complex) if isinstance(leaf, t))}) is "
                f"a strong array to policy "
                f"{policy.name!r} but would reach jax.jit as a weak Python scalar. Pass "
                "numpy.asarray(x) (what the policy means), or int(x) / float(x) for a weak one."
            )


def native_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The arguments as jax.jit takes them, or None if they are so already: numpy
    arrays in non-native byte order ('>u4') and numpy scalars of a type that is not
    their dtype's canonical class (np.ulonglong, np.longlong) are what numpy takes and
    jax.jit refuses. Called only once jax.jit has refused the arguments."""
    leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
    fixed = [_native(x) for x in leaves]
    if all(a is b for a, b in zip(fixed, leaves, strict=True)):
        return None
    return jax.tree_util.tree_unflatten(tree, fixed)


def _native(x: Any) -> Any:
    if isinstance(x, np.ndarray) and not x.dtype.isnative:
        return x.astype(x.dtype.newbyteorder("="))
    if isinstance(x, np.generic) and x.dtype.kind in "biufc":
        canonical = np.dtype(x.dtype.name).type
        return x if x.__class__ is canonical else canonical(x)
    return x
