"""Index-expression objects (mgrid, ogrid, r_, c_, s_, index_exp) and numpy's
printing helpers, as jax.numpy re-exports them."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from weaktrace.core.literals import literal_value
from weaktrace.errors import ConcretizationError, ShapeError
from weaktrace.numpy._core import EXPORTS, Tracer, context, convert, operand
from weaktrace.numpy.shapes import concatenate, expand_dims, transpose


def _static(v: Any, what: str) -> Any:
    if v.__class__ is Tracer:
        if not v.ctx.eager:
            raise ConcretizationError(f"{what} must be concrete, got a tracer {v.aval}")
        return v.concrete().item()
    if isinstance(v, jax.core.Tracer):  # a bound traced by jax (jax.jit around the call)
        raise ConcretizationError(f"{what} must be concrete, got jax's tracer {v}")
    return v


def _grid_1d(s: slice, op: str) -> Any:
    from weaktrace.numpy.creation import arange
    from weaktrace.numpy.creation_more import linspace

    start = _static(s.start, f"slice start of jnp.{op}") or 0
    stop = _static(s.stop, f"slice stop of jnp.{op}")
    step = _static(s.step, f"slice step of jnp.{op}") or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


def _as_tracers(b: Any, items: list[Any]) -> list[Tracer]:
    return [operand(x, b) for x in items]


class _Grid:
    """``jnp.mgrid`` (dense) / ``jnp.ogrid`` (sparse)."""

    def __init__(self, sparse: bool, op: str) -> None:
        self.sparse, self.op = sparse, op

    def __getitem__(self, key: slice | tuple[slice, ...]) -> Any:
        from weaktrace.core.operands import to_jax
        from weaktrace.numpy.creation import arange
        from weaktrace.numpy.creation_more import meshgrid
        from weaktrace.numpy.shapes import stack

        if isinstance(key, slice):
            return _grid_1d(key, self.op)
        b = context()
        grids = _as_tracers(b, [_grid_1d(k, self.op) for k in key])
        if grids:  # jax promotes them with 'standard' promotion, even under 'strict'
            dt, weak = b.policy.standard().join([g.aval for g in grids])
            grids = [convert(b, g, dt, weak) for g in grids]
        out = meshgrid(*grids, indexing="ij", sparse=self.sparse)
        if self.sparse:
            return to_jax(out) if b.eager else out
        res = arange(0) if not out else stack(out, 0)
        return to_jax(res) if b.eager and res.__class__ is Tracer else res

    def __repr__(self) -> str:
        return f"weaktrace.numpy.{self.op}"


class _AxisConcat:
    """``jnp.r_`` / ``jnp.c_``: slices, scalars and arrays joined along an axis."""

    def __init__(self, axis: int, ndmin: int, trans1d: int, op: str) -> None:
        self.axis, self.ndmin, self.trans1d, self.op = axis, ndmin, trans1d, op

    def __getitem__(self, key: Any) -> Any:
        from weaktrace.core.operands import to_jax
        from weaktrace.numpy.creation import array

        items = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        directive = items[0] if items else None
        if isinstance(directive, str):
            items = items[1:]
            if directive == "r":
                params[-1] = 0
            elif directive == "c":
                params[-1] = 1
            else:
                vec: list[Any] = directive.split(",")
                vec = vec + params[len(vec) :] if len(vec) < 4 else [*vec[:3], params[-1]]
                try:
                    params = [int(v) for v in vec]
                except ValueError as err:
                    raise ShapeError(f"could not understand directive {directive!r}") from err
        axis, ndmin, trans1d, matrix = params
        b = context(*items)
        out = []
        for item in items:
            if isinstance(item, slice):
                obj, item_ndim = operand(_grid_1d(item, self.op), b), 0
            elif isinstance(item, str):
                raise ShapeError("string directive must be placed at the beginning")
            else:  # a Python scalar stays weak: NumPy joins it as a scalar, then casts it
                obj = operand(array(item) if isinstance(item, list | tuple) else item, b)
                item_ndim = obj.aval.ndim
            while obj.aval.ndim < ndmin:
                obj = expand_dims(obj, 0)
            if trans1d != -1 and ndmin - item_ndim > 0:
                perm = tuple(range(ndmin))
                shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
                obj = transpose(obj, perm[shift:] + perm[:shift])
            out.append(obj)
        ints = [v for v in items if v.__class__ is int]
        if ints and b.policy.literal_overflow == "raise":
            # NumPy casts scalar items to the dtype of the whole (np.r_[int8_array, 255]
            # raises OverflowError: concatenation does not promote for them).
            dt = b.policy.join([o.aval for o in out])[0]
            for v in ints:
                literal_value(v, dt, "raise")
        res = concatenate(tuple(out), axis=axis)
        if matrix != -1 and res.aval.ndim == 1:
            res = expand_dims(res, matrix)
        return to_jax(res) if b.eager else res

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"weaktrace.numpy.{self.op}"


class _IndexExpression:
    """``jnp.s_`` / ``jnp.index_exp`` (numpy's): ``s_[key]`` is the key itself;
    ``index_exp[key]`` is it as a tuple."""

    def __init__(self, maketuple: bool) -> None:
        self.maketuple = maketuple

    def __getitem__(self, item: Any) -> Any:
        return (item,) if self.maketuple and not isinstance(item, tuple) else item

    def __repr__(self) -> str:
        return f"weaktrace.numpy.{'index_exp' if self.maketuple else 's_'}"


def _concrete_array(a: Any) -> Any:
    if a.__class__ is Tracer:
        if not a.ctx.eager:
            raise ConcretizationError(f"printing needs a concrete array, got a tracer {a.aval}")
        return np.asarray(a.concrete())
    return a


def array_repr(arr: Any, max_line_width: Any = None, precision: Any = None,
               suppress_small: Any = None) -> str:  # fmt: skip
    """``jax.numpy.array_repr`` (numpy's, on concrete values)."""
    return np.array_repr(_concrete_array(arr), max_line_width, precision, suppress_small)


def array_str(a: Any, max_line_width: Any = None, precision: Any = None,
              suppress_small: Any = None) -> str:  # fmt: skip
    """``jax.numpy.array_str`` (numpy's, on concrete values)."""
    return np.array_str(_concrete_array(a), max_line_width, precision, suppress_small)


mgrid = _Grid(False, "mgrid")
ogrid = _Grid(True, "ogrid")
r_ = _AxisConcat(0, 1, -1, "r_")
c_ = _AxisConcat(-1, 2, 0, "c_")

_OBJECTS: dict[str, Any] = dict(
    mgrid=mgrid,
    ogrid=ogrid,
    r_=r_,
    c_=c_,
    s_=_IndexExpression(False),
    index_exp=_IndexExpression(True),
    array_repr=array_repr,
    array_str=array_str,
    get_printoptions=np.get_printoptions,
    set_printoptions=np.set_printoptions,
    printoptions=np.printoptions,
)
EXPORTS.update(_OBJECTS)
