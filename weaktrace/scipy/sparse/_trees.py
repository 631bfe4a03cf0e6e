"""Pytree vector arithmetic for the iterative solvers of
``weaktrace.scipy.sparse.linalg`` (inner products at HIGHEST precision, summed over
the leaves, as jax's solvers compute them)."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.core import promotion
from weaktrace.core.operands import to_jax
from weaktrace.core.trace import Tracer
from weaktrace.errors import OperandTypeError, OperandValueError
from weaktrace.scipy._registry import promoted

wnp: Any = _wnp
lax: Any = _lax

HIGHEST = lax.Precision.HIGHEST
leaves = jax.tree_util.tree_leaves
tmap = jax.tree_util.tree_map


# -- pytree vector arithmetic -----------------------------------------------------------


def real_dot(x: Any, y: Any) -> Any:
    """Re <x, y> for one leaf pair."""
    out = wnp.vdot(wnp.real(x), wnp.real(y), precision=HIGHEST)
    if wnp.iscomplexobj(x) or wnp.iscomplexobj(y):
        out = out + wnp.vdot(wnp.imag(x), wnp.imag(y), precision=HIGHEST)
    return out


def real_dot_tree(x: Any, y: Any) -> Any:
    return sum(leaves(tmap(real_dot, x, y)))


def dot_tree(x: Any, y: Any) -> Any:
    """<x, y> (x conjugated), summed over the leaves."""
    return sum(leaves(tmap(lambda a, b: wnp.vdot(a, b, precision=HIGHEST), x, y)))


def norm(x: Any) -> Any:
    xs = leaves(x)
    return wnp.sqrt(sum(real_dot(a, a) for a in xs))


def scale(s: Any, tree: Any) -> Any:
    return tmap(lambda v: s * v, tree)


def add(x: Any, y: Any) -> Any:
    return tmap(operator.add, x, y)


def sub(x: Any, y: Any) -> Any:
    return tmap(operator.sub, x, y)


def identity(x: Any) -> Any:
    return x


def joined(tree: Any) -> Tracer:
    """The leaves' joined dtype and weak flag (``dtypes.lattice_result_type``), as a
    tracer whose aval carries them."""
    return promoted("sparse.linalg", *leaves(tree), target=None)[0]


def as_operator(f: Any) -> Callable[[Any], Any]:
    """A function, or a square matrix applied at HIGHEST precision (jax's
    ``_normalize_matvec``)."""
    if callable(f):
        return f
    if isinstance(f, np.ndarray | jax.Array | Tracer):
        if f.ndim != 2 or f.shape[0] != f.shape[1]:
            raise OperandValueError(
                f"linear operator must be a square matrix, but has shape: {f.shape}"
            )
        return functools.partial(wnp.dot, f, precision=HIGHEST)
    if hasattr(f, "__matmul__"):
        if (hasattr(f, "shape") and len(f.shape) != 2) or f.shape[0] != f.shape[1]:
            raise OperandValueError(
                f"linear operator must be a square matrix, but has shape: {f.shape}"
            )
        return functools.partial(operator.matmul, f)
    raise OperandTypeError(f"linear operator must be either a function or ndarray: {f}")


def cast_like(x: Any, tree: Any) -> Any:
    """``lax._convert_element_type(x, *lattice_result_type(*leaves(tree)))``: x in the
    leaves' joined dtype, weak if that join is weak."""
    ref = joined(tree)
    (t,) = promotion.operands(ref.ctx, [x])
    out = promotion.convert(ref.ctx, t, ref.aval[1], bool(ref.aval[2]))
    # eagerly (inside jax's own loops) the other values are jax's: so is this one
    return to_jax(out) if ref.ctx.eager else out
