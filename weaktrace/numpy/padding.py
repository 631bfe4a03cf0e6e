"""``pad`` in every mode jax supports: constant, edge, wrap, reflect and symmetric
(even or odd), linear_ramp, the statistic modes and empty, plus a callable mode.

Each mode is built per axis from slices, flips, repeats and ``lax.pad``, like jax's
own implementation, so that dtypes and weak flags follow the array."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from weaktrace.core import primitives_lax as L
from weaktrace.errors import InvalidInputError, ShapeError
from weaktrace.numpy._core import Context, Tracer, context, convert, dtype_of, emit, export, operand
from weaktrace.numpy.math_arrays import slice_in_dim
from weaktrace.numpy.shapes import broadcast_to, concatenate, squeeze

_MODES = (
    "constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
    "reflect", "symmetric", "wrap", "empty",
)  # fmt: skip

Pairs = tuple[tuple[Any, Any], ...]


def _pairs(values: Any, nd: int, name: str, as_int: bool = True) -> Pairs:
    """jax's ``_broadcast_to_pairs``: (nd, 2), (1, 2), (2,), (1,) or () to nd pairs."""
    arr = np.asarray(values, dtype=object if not as_int else None)
    if as_int:
        if arr.dtype.kind not in "iub" and arr.size:
            if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
                arr = arr.astype(np.int64)
            else:
                raise InvalidInputError(f"{name} must be integers, got {values!r}")
        arr = arr.astype(np.int64)
    if arr.shape == (nd, 2):
        out = tuple((arr[i, 0], arr[i, 1]) for i in range(nd))
    elif arr.shape == (1, 2):
        out = tuple((arr[0, 0], arr[0, 1]) for _ in range(nd))
    elif arr.shape == (2,):
        out = tuple((arr[0], arr[1]) for _ in range(nd))
    elif arr.shape == (1,):
        out = tuple((arr[0], arr[0]) for _ in range(nd))
    elif arr.shape == ():
        out = tuple((arr.flat[0], arr.flat[0]) for _ in range(nd))
    else:
        raise ShapeError(
            f"jnp.pad: {name} with {nd=} has unsupported shape {arr.shape}. "
            f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ()."
        )
    if as_int:
        return tuple((int(a), int(b)) for a, b in out)
    return out


def _no_padding(width: tuple[int, int], mode: str) -> None:
    if width[0] > 0 or width[1] > 0:
        raise ShapeError(f"Cannot apply '{mode}' padding to empty axis")


def _lax_pad(x: Tracer, value: Tracer, axis: int, lo: int, hi: int) -> Tracer:
    cfg = [(0, 0, 0)] * x.aval.ndim
    cfg[axis] = (lo, hi, 0)
    return emit(L.pad_p, x, value, padding_config=tuple(cfg))


def _like(b: Context, v: Any, x: Tracer) -> Tracer:
    from weaktrace.numpy.creation import asarray

    v = asarray(v) if isinstance(v, list | tuple) else v
    return convert(b, operand(v, b), dtype_of(x), x.aval.weak_type)


def _constant(b: Context, x: Tracer, widths: Pairs, values: Any) -> Tracer:
    cv = _like(b, values, x)
    nd = x.aval.ndim
    if cv.aval.ndim == 0 or (cv.aval.ndim == 1 and cv.aval.shape[0] == 1):
        cv = squeeze(cv) if cv.aval.ndim else cv
        cfg = tuple((lo, hi, 0) for lo, hi in widths)
        return emit(L.pad_p, x, cv, padding_config=cfg)
    if cv.aval.ndim == 1 and cv.aval.shape[0] != 2:
        raise ShapeError(
            f"jnp.pad: constant_values has unsupported shape {cv.aval.shape}. If the shape "
            "is 1D or 2D, the last dimension must be of size 1 or 2."
        )
    cv = broadcast_to(cv, (nd, 2))
    for i in range(nd):
        for side in (0, 1):
            if widths[i][side]:
                v = squeeze(slice_in_dim(slice_in_dim(cv, i, i + 1, 0), side, side + 1, 1))
                lo, hi = (widths[i][0], 0) if side == 0 else (0, widths[i][1])
                x = _lax_pad(x, v, i, lo, hi)
    return x


def _wrap(x: Tracer, widths: Pairs) -> Tracer:
    for i in range(x.aval.ndim):
        n = x.aval.shape[i]
        if n == 0:
            _no_padding(widths[i], "wrap")
            continue
        lrep, lrem = divmod(widths[i][0], n)
        rrep, rrem = divmod(widths[i][1], n)
        parts = [slice_in_dim(x, n - lrem, n, i)] if lrem else []
        parts += [x] * (lrep + rrep + 1)
        parts += [slice_in_dim(x, 0, rrem, i)] if rrem else []
        x = concatenate(parts, i)
    return x


def _reflect(b: Context, x: Tracer, widths: Pairs, mode: str, odd: bool) -> Tracer:
    from weaktrace.numpy.manipulation import flip
    from weaktrace.numpy.ufuncs import multiply, subtract

    for i in range(x.aval.ndim):
        n = x.aval.shape[i]
        if n == 0:
            _no_padding(widths[i], mode)
            continue
        offset = 1 if (mode == "reflect" and n > 1) else 0
        for before, padding in ((True, widths[i][0]), (False, widths[i][1])):
            m = x.aval.shape[i]
            edge = slice_in_dim(x, 0, 1, i) if before else slice_in_dim(x, m - 1, m, i)
            while padding > 0:
                cur = min(padding, n - offset)
                padding -= cur
                m = x.aval.shape[i]
                if before:
                    start, stop = offset, offset + cur
                else:
                    start = m - (cur + offset)
                    stop = m if (mode == "symmetric" or n == 1) else m - 1
                part = flip(slice_in_dim(x, start, stop, i), i)
                if odd:
                    part = subtract(multiply(2, edge), part)
                    if n > 1:
                        k = part.aval.shape[i]
                        edge = (
                            slice_in_dim(part, 0, 1, i)
                            if before
                            else slice_in_dim(part, k - 1, k, i)
                        )
                x = concatenate([part, x] if before else [x, part], i)
    return x


def _repeat(x: Tracer, count: int, axis: int) -> Tracer:
    shape = list(x.aval.shape)
    shape[axis] = count
    return broadcast_to(x, tuple(shape))


def _edge(x: Tracer, widths: Pairs) -> Tracer:
    for i in range(x.aval.ndim):
        n = x.aval.shape[i]
        if n == 0:
            _no_padding(widths[i], "edge")
            continue
        before = _repeat(slice_in_dim(x, 0, 1, i), widths[i][0], i)
        after = _repeat(slice_in_dim(x, n - 1, n, i), widths[i][1], i)
        x = concatenate([before, x, after], i)
    return x


def _linear_ramp(b: Context, x: Tracer, widths: Pairs, end_values: Pairs) -> Tracer:
    from weaktrace.numpy.creation_more import linspace
    from weaktrace.numpy.manipulation import flip

    dt = dtype_of(x)
    for i in range(x.aval.ndim):
        n = x.aval.shape[i]
        eb = squeeze(slice_in_dim(x, 0, 1, i), i)
        ea = squeeze(slice_in_dim(x, n - 1, n, i), i)
        rb = linspace(end_values[i][0], eb, widths[i][0], endpoint=False, dtype=dt, axis=i)
        ra = linspace(end_values[i][1], ea, widths[i][1], endpoint=False, dtype=dt, axis=i)
        rb = convert(b, operand(rb, b), dt, x.aval.weak_type)
        ra = convert(b, operand(ra, b), dt, x.aval.weak_type)
        x = concatenate([rb, x, flip(ra, i)], i)
    return x


def _stat(name: str) -> Callable[..., Any]:
    from weaktrace.numpy.quantiles import median
    from weaktrace.numpy.reductions import amax, amin, mean

    fns: dict[str, Callable[..., Any]] = {
        "maximum": amax, "minimum": amin, "mean": mean, "median": median,
    }  # fmt: skip
    return fns[name]


def _stats(b: Context, x: Tracer, widths: Pairs, stat_length: Pairs | None, mode: str) -> Tracer:
    from weaktrace.numpy.ufuncs import round as round_

    fn = _stat(mode)
    for i in range(x.aval.ndim):
        if stat_length is None:
            sb = sa = fn(x, axis=i, keepdims=True)
        else:
            n = x.aval.shape[i]
            lb, la = stat_length[i]
            if lb == 0 or la == 0:
                raise ShapeError("stat_length of 0 yields no value for padding")
            lb, la = min(lb, n), min(la, n)
            sb = fn(slice_in_dim(x, 0, lb, i), axis=i, keepdims=True)
            sa = fn(slice_in_dim(x, n - la, n, i), axis=i, keepdims=True)
        if x.aval.dtype.kind in "iu":
            sb, sa = round_(sb), round_(sa)
        sb = convert(b, operand(sb, b), dtype_of(x), x.aval.weak_type)
        sa = convert(b, operand(sa, b), dtype_of(x), x.aval.weak_type)
        x = concatenate([_repeat(sb, widths[i][0], i), x, _repeat(sa, widths[i][1], i)], i)
    return x


def _empty(b: Context, x: Tracer, widths: Pairs) -> Tracer:
    zero = _like(b, 0, x)
    cfg = tuple((lo, hi, 0) for lo, hi in widths)
    return emit(L.pad_p, x, zero, padding_config=cfg)


def _func(b: Context, x: Tracer, widths: Pairs, func: Callable[..., Any], kwargs: Any) -> Tracer:
    from weaktrace.numpy.rearrange import apply_along_axis

    x = _constant(b, x, widths, 0)
    for axis in range(x.aval.ndim):
        x = operand(apply_along_axis(func, axis, x, widths[axis], axis, kwargs), b)
    return x


@export
def pad(array: Any, pad_width: Any, mode: str | Callable[..., Any] = "constant",
        **kwargs: Any) -> Any:  # fmt: skip
    """``jax.numpy.pad``: `pad_width` is an int, a (before, after) pair or one pair per
    axis; ``mode`` is a name (constant_values, stat_length, end_values, reflect_type
    keywords as in jax) or a callable ``f(row, pad_width, iaxis, kwargs)``."""
    b = context(array)
    x = operand(array, b)
    nd = x.aval.ndim
    if callable(mode):
        if nd == 0:
            return x
        return _func(b, x, _pairs(pad_width, nd, "pad_width"), mode, kwargs)
    allowed = {
        "constant": ("constant_values",), "stat": ("stat_length",),
        "linear_ramp": ("end_values",), "reflect": ("reflect_type",),
    }  # fmt: skip
    if mode not in _MODES:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    key = "stat" if mode in ("maximum", "mean", "median", "minimum") else mode
    key = "reflect" if mode == "symmetric" else key
    unsupported = set(kwargs) - set(allowed.get(key, ()))
    if unsupported:
        raise ShapeError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise ShapeError(f"reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    if nd == 0:
        return x
    widths = _pairs(pad_width, nd, "pad_width")
    if any(w < 0 for pair in widths for w in pair):
        raise ShapeError("index can't contain negative values")
    if mode == "constant":
        return _constant(b, x, widths, kwargs.get("constant_values", 0))
    if mode == "wrap":
        return _wrap(x, widths)
    if mode in ("reflect", "symmetric"):
        return _reflect(b, x, widths, mode, reflect_type == "odd")
    if mode == "edge":
        return _edge(x, widths)
    if mode == "linear_ramp":
        ends = _pairs(kwargs.get("end_values", 0), nd, "end_values", as_int=False)
        return _linear_ramp(b, x, widths, ends)
    if mode == "empty":
        return _empty(b, x, widths)
    stat_length = kwargs.get("stat_length")
    lengths = None if stat_length is None else _pairs(stat_length, nd, "stat_length")
    return _stats(b, x, widths, lengths, mode)
