"""``weaktrace.scipy.interpolate``: the ``jax.scipy.interpolate`` mirror
(``RegularGridInterpolator``).

Interpolation on a rectilinear grid, linear or nearest, written on weaktrace.numpy:
each query coordinate finds its cell by ``searchsorted`` (clamped to the grid's
cells, so points outside extrapolate), the linear value sums the cell's corners
weighted by the products of the normalised distances, and points outside the grid
take ``fill_value`` (NaN by default; ``None`` extrapolates). The interpolator is a
pytree (grid, values and fill value its children), as jax's, so it passes through
``weaktrace.trace`` and ``jax.jit``.
"""

from __future__ import annotations

import itertools
from typing import Any

import jax
import numpy as np

import weaktrace.numpy as _wnp
from weaktrace.core.operands import invalid_input, to_jax
from weaktrace.errors import OperandValueError
from weaktrace.scipy._registry import promoted

wnp: Any = _wnp

__all__ = ["RegularGridInterpolator"]

_METHODS = ("linear", "nearest")


def _arraylike(*xs: Any) -> None:
    """``check_arraylike``: Python sequences are refused."""
    for x in xs:
        if isinstance(x, list | tuple):
            raise invalid_input(x)


def _points(points: Any, ndim: int) -> Any:
    """Query points as an (..., ndim) array: a tuple of coordinate arrays is stacked
    (in the default float, as jax fills an ``empty(..., float)``), a 1-d array is one
    point per ndim values."""
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        parts = wnp.broadcast_arrays(*points)
        out = wnp.empty((*parts[0].shape, len(points)), dtype=float)
        for j, part in enumerate(parts):
            out = out.at[..., j].set(part)
        return out
    _arraylike(points)
    points = wnp.asarray(points)
    return points.reshape(-1, ndim) if points.ndim == 1 else points


class RegularGridInterpolator:
    """``jax.scipy.interpolate.RegularGridInterpolator``: interpolate `values` given
    on the grid `points` (one increasing 1-d array per leading axis of `values`)."""

    def __init__(self, points: Any, values: Any, method: str = "linear",
                 bounds_error: bool = False, fill_value: Any = np.nan) -> None:  # fmt: skip
        if method not in _METHODS:
            raise OperandValueError(f"method {method!r} is not defined")
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        _arraylike(values)
        nd = values.ndim if hasattr(values, "ndim") else np.ndim(values)
        if len(points) > nd:
            raise OperandValueError(
                f"there are {len(points)} point arrays, but values has {nd} dimensions"
            )
        (values,) = promoted("RegularGridInterpolator", values)
        if values.ctx.eager:  # an eager interpolator holds jax arrays, as jax's does
            values = to_jax(values)
        if fill_value is not None:
            _arraylike(fill_value)
            fill_value = wnp.asarray(fill_value)
            if np.dtype(fill_value.dtype).kind == "c" and np.dtype(values.dtype).kind != "c":
                raise OperandValueError(
                    "fill_value must be either 'None' or of a type compatible with values"
                )
        self.fill_value = fill_value
        _arraylike(*points)
        self.grid = tuple(wnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi: Any, method: str | None = None) -> Any:
        method = self.method if method is None else method
        if method not in _METHODS:
            raise OperandValueError(f"method {method!r} is not defined")
        ndim = len(self.grid)
        xi = _points(xi, ndim)
        if xi.shape[-1] != ndim:
            raise OperandValueError(
                f"the requested sample points xi have dimension {xi.shape[1]}, but this "
                f"RegularGridInterpolator has dimension {ndim}"
            )
        shape = xi.shape
        cells, fractions, outside = self._cells(xi.reshape(-1, shape[-1]).T)
        if method == "linear":
            result = self._linear(cells, fractions)
        else:
            pairs = zip(cells, fractions, strict=True)
            result = self.values[tuple(wnp.where(f <= 0.5, i, i + 1) for i, f in pairs)]
        if self.fill_value is not None:
            mask = outside.reshape(result.shape[:1] + (1,) * (result.ndim - 1))
            result = wnp.where(mask, self.fill_value, result)
        return result.reshape(shape[:-1] + self.values.shape[ndim:])

    def _cells(self, xi: Any) -> tuple[list[Any], list[Any], Any]:
        """Per axis: each point's cell (its lower grid index, clamped to a real cell),
        its fractional position in that cell; and whether it lies outside the grid."""
        cells, fractions = [], []
        outside = wnp.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid, strict=False):
            i = wnp.searchsorted(g, x) - 1
            i = wnp.where(i < 0, 0, i)
            i = wnp.where(i > g.size - 2, g.size - 2, i)
            cells.append(i)
            fractions.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside + (x < g[0])
            outside = outside + (x > g[-1])
        return cells, fractions, outside

    def _linear(self, cells: list[Any], fractions: list[Any]) -> Any:
        """The sum over the cell's corners of value x product of 1-d weights."""
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(cells))
        total = wnp.asarray(0.0)
        for corner in itertools.product(*[[i, i + 1] for i in cells]):
            weight = wnp.asarray(1.0)
            for c, i, f in zip(corner, cells, fractions, strict=True):
                weight = weight * wnp.where(c is i, 1 - f, f)
            total = total + self.values[corner] * weight[trailing]
        return total


jax.tree_util.register_pytree_node(
    RegularGridInterpolator,
    lambda obj: ((obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]),
)
