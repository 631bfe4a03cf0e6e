"""``weaktrace.scipy.ndimage``: the ``jax.scipy.ndimage`` mirror (``map_coordinates``).

Interpolation of order 0 (the nearest sample, rounding half away from zero) or 1
(multilinear): along each axis a coordinate gives one or two sample indices and their
weights; each index is folded back into range by the boundary `mode` (``constant``
leaves it and masks the sample to `cval`); the result sums, over every combination
of one index per axis, the product of the weights times that sample. An integer image
gives its dtype back, rounded. jax runs this under ``jax.jit`` with order, mode and
cval static; weaktrace's eager calls are compiled the same way.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.errors import OperandValueError
from weaktrace.scipy._registry import registry

wnp: Any = _wnp
lax: Any = _lax

EXPORTS, export = registry()

__all__ = ["map_coordinates"]


def _mirror(index: Any, size: int) -> Any:
    """A triangular wave of half-period size - 1: ... 2 1 0 1 2 ... (no repeated edge)."""
    half = size - 1
    return wnp.abs((index + half) % (2 * half) - half)


def _reflect(index: Any, size: int) -> Any:
    """Reflection about the half-sample edges (the edge sample repeats): the mirror
    of the doubled grid, halved back."""
    return wnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_FOLD: dict[str, Callable[[Any, int], Any]] = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: wnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round(a: Any) -> Any:
    """Half away from zero (``lax.round``'s default); integers as they are."""
    return a if wnp.issubdtype(a.dtype, np.integer) else lax.round(a)


def _nearest(c: Any) -> list[tuple[Any, Any]]:
    return [(_round(c).astype(np.int32), np.dtype(c.dtype).type(1))]


def _linear(c: Any) -> list[tuple[Any, Any]]:
    below = wnp.floor(c)
    up = c - below
    index = below.astype(np.int32)
    return [(index, 1 - up), (index + 1, up)]


@export
def map_coordinates(input: Any, coordinates: Sequence[Any], order: int,
                    mode: str = "constant", cval: Any = 0.0) -> Any:  # fmt: skip
    """``jax.scipy.ndimage.map_coordinates``: `input` sampled at `coordinates` (one
    array of positions per axis) by order-0 or order-1 interpolation."""
    image = wnp.asarray(input)
    coords = [wnp.asarray(c) for c in coordinates]
    fill = wnp.asarray(cval, image.dtype)
    if len(coordinates) != image.ndim:
        raise OperandValueError(
            "coordinates must be a sequence of length input.ndim, but "
            f"{len(coordinates)} != {image.ndim}"
        )
    fold = _FOLD.get(mode)
    if fold is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_FOLD)}."
        )
    if order not in (0, 1):
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires order<=1")
    nodes = _nearest if order == 0 else _linear
    per_axis = [
        [(fold(i, size), (i >= 0) & (i < size) if mode == "constant" else None, w)
         for i, w in nodes(c)]
        for c, size in zip(coords, image.shape, strict=True)
    ]  # fmt: skip
    terms = []
    for combo in itertools.product(*per_axis):
        indices = tuple(i for i, _, _ in combo)
        sample = image[indices]
        masks = [m for _, m, _ in combo if m is not None]
        if masks:
            sample = wnp.where(functools.reduce(operator.and_, masks), sample, fill)
        weight = functools.reduce(operator.mul, [w for _, _, w in combo])
        terms.append(weight * sample)
    total = functools.reduce(operator.add, terms)
    if wnp.issubdtype(image.dtype, np.integer):
        total = _round(total)
    return total.astype(image.dtype)
