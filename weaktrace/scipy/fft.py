"""``weaktrace.scipy.fft``: the ``jax.scipy.fft`` mirror (the type-2 discrete cosine
transform ``dct``/``dctn`` and its inverse ``idct``/``idctn``).

Makhoul's method, as jax computes it: the even samples, then the odd ones reversed,
go through one complex FFT; the spectrum turned by the quarter-wave twiddle
exp(-i pi k / 2N) has the DCT as twice its real part. Two axes at once take one 2-d
FFT (with the mirrored spectrum for the second twiddle), more take pairs of axes in
turn. The inverse undoes each step (twiddle, inverse FFT, de-interleave). Integer
operands go through the FFT's own promotion (jax does not promote them first); a
complex operand has its real and imaginary parts transformed apart.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.core.operands import invalid_input
from weaktrace.errors import OperandValueError
from weaktrace.numpy import fft as _fft
from weaktrace.scipy._registry import promoted, registry

wnp: Any = _wnp
lax: Any = _lax
fft_: Any = _fft

EXPORTS, export = registry()

__all__ = ["dct", "dctn", "idct", "idctn"]


def _array(name: str, x: Any, type: int, norm: Any) -> Any:
    """``ensure_arraylike`` and the options jax implements (type 2; no norm, backward
    or ortho)."""
    if isinstance(x, list | tuple):
        raise invalid_input(x)
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("backward", "ortho"):
        raise OperandValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")
    return wnp.asarray(x)


def _axis(axis: Any, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise OperandValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _along(values: Any, axis: int, ndim: int) -> Any:
    """A 1-d `values` shaped to broadcast along `axis` of an ndim-d array."""
    return lax.expand_dims(values, [a for a in range(ndim) if a != axis])


def _twiddle(n: int, k: Any) -> Any:
    """exp(-i pi k / 2n), in the complex dtype of k (n a weak Python int)."""
    nn, kk = promoted("dct", n, k, target="complex")
    return wnp.exp(-0.5j * np.pi * kk / nn)


def _resize(x: Any, sizes: dict[int, int]) -> Any:
    """`x` zero-padded (or cropped) at the end of each axis in `sizes`."""
    config = [(0, sizes[a] - x.shape[a] if a in sizes else 0, 0) for a in range(x.ndim)]
    return lax.pad(x, wnp.array(0, x.dtype), config)


def _interleave(x: Any, axis: int) -> Any:
    """Even samples, then odd samples reversed, along `axis`."""
    evens = lax.slice_in_dim(x, None, None, 2, axis)
    odds = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return lax.concatenate([evens, odds], axis)


def _deinterleave(x: Any, axis: int) -> Any:
    """The inverse of `_interleave`: the first half back on the even samples, the
    second half (reversed) on the odd ones."""
    half = math.ceil(x.shape[axis] / 2)
    first = lax.slice_in_dim(x, 0, half, 1, axis)
    second = lax.rev(lax.slice_in_dim(x, half, None, 1, axis), (axis,))
    pick = [slice(None)] * x.ndim
    out = wnp.zeros(x.shape, dtype=x.dtype)
    pick[axis] = slice(None, None, 2)
    out = out.at[tuple(pick)].set(first)
    pick[axis] = slice(1, None, 2)
    return out.at[tuple(pick)].set(second)


def _ortho(out: Any, axis: int) -> Any:
    """Scale to the orthonormal DCT: 1/sqrt(4N) for the first term, 1/sqrt(2N) after."""
    n = out.shape[axis]
    factor = lax.concatenate([lax.full((1,), 4, out.dtype), lax.full((n - 1,), 2, out.dtype)], 0)
    return out / lax.sqrt(_along(factor, axis, out.ndim) * n)


def _split_complex(fn: Any, x: Any, **options: Any) -> Any | None:
    if wnp.iscomplexobj(x):
        return lax.complex(fn(wnp.real(x), **options), fn(wnp.imag(x), **options))
    return None


@export
def dct(x: Any, type: int = 2, n: int | None = None, axis: int = -1,
        norm: str | None = None) -> Any:  # fmt: skip
    """``jax.scipy.fft.dct``: the type-2 DCT along `axis` (zero-padded or cropped to
    `n`)."""
    x = _array("dct", x, type, norm)
    parts = _split_complex(dct, x, type=type, n=n, norm=norm, axis=axis)
    if parts is not None:
        return parts
    axis = _axis(axis, x.ndim)
    if n is not None:
        x = _resize(x, {axis: n})
    size = x.shape[axis]
    spectrum = fft_.fft(_interleave(x, axis), axis=axis)
    k = _along(wnp.arange(size, dtype=wnp.real(spectrum).dtype), axis, x.ndim)
    out = 2 * wnp.real(spectrum * _twiddle(size, k))
    return _ortho(out, axis) if norm == "ortho" else out


def _dct_pair(x: Any, axes: Sequence[int], norm: Any) -> Any:
    """The 2-d DCT over two axes from one 2-d FFT."""
    a1, a2 = (_axis(a, x.ndim) for a in axes)
    n1, n2 = x.shape[a1], x.shape[a2]
    spectrum = fft_.fftn(_interleave(_interleave(x, a1), a2), axes=axes)
    k1 = _along(wnp.arange(n1, dtype=spectrum.dtype), a1, x.ndim)
    k2 = _along(wnp.arange(n2, dtype=spectrum.dtype), a2, x.ndim)
    mirrored = wnp.roll(wnp.flip(spectrum, axis=a2), shift=1, axis=a2)
    inner = _twiddle(n2, k2) * spectrum + _twiddle(n2, -k2) * mirrored
    out = 2 * wnp.real(_twiddle(n1, k1) * inner)
    return _ortho(_ortho(out, a1), a2) if norm == "ortho" else out


def _sizes_axes(x: Any, s: Any, axes: Any) -> tuple[list[int] | None, tuple[int, ...]]:
    """jax's reading of (s, axes): s an int or a sequence of at most ndim sizes; axes
    by default the last len(s) axes (or all)."""
    if s is not None:
        s = [operator.index(s)] if not isinstance(s, Sequence | np.ndarray) else list(s)
        if len(s) > x.ndim:
            raise OperandValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        first = x.ndim - len(s) if s is not None else 0
        return s, tuple(range(first, x.ndim))
    axes = (axes,) if not isinstance(axes, Sequence | np.ndarray) else axes
    canon = tuple(_axis(a, x.ndim) for a in axes)
    if len(set(canon)) != len(canon):
        raise OperandValueError(f"repeated axis in axes: {tuple(axes)}")
    return s, canon


@export
def dctn(x: Any, type: int = 2, s: Sequence[int] | None = None,
         axes: Sequence[int] | None = None, norm: str | None = None) -> Any:  # fmt: skip
    """``jax.scipy.fft.dctn``: the type-2 DCT over `axes` (sizes `s`)."""
    x = _array("dctn", x, type, norm)
    parts = _split_complex(dctn, x, type=type, s=s, norm=norm, axes=axes)
    if parts is not None:
        return parts
    sizes, over = _sizes_axes(x, s, axes)
    if len(over) == 1:
        return dct(x, n=sizes[0] if sizes is not None else None, axis=over[0], norm=norm)
    if sizes is not None:
        x = _resize(x, dict(zip(over, sizes, strict=False)))
    if len(over) == 2:
        return _dct_pair(x, over, norm)
    for i in range(0, len(over), 2):
        x = dctn(x, axes=over[i : i + 2], norm=norm)
    return x


@export
def idct(x: Any, type: int = 2, n: int | None = None, axis: int = -1,
         norm: str | None = None) -> Any:  # fmt: skip
    """``jax.scipy.fft.idct``: the inverse of the type-2 DCT (a type-3 DCT)."""
    x = _array("idct", x, type, norm)
    parts = _split_complex(idct, x, type=type, n=n, norm=norm, axis=axis)
    if parts is not None:
        return parts
    axis = _axis(axis, x.ndim)
    if n is not None:
        x = _resize(x, {axis: n})
    size = x.shape[axis]
    (x,) = promoted("idct", x)
    if norm is None or norm == "backward":
        x = _ortho(x, axis)
    x = _ortho(x, axis)
    k = _along(wnp.arange(size, dtype=x.dtype), axis, x.ndim)
    turn = _twiddle(size, k)
    x = x.astype(turn.dtype) / turn * 2 * size
    return _deinterleave(wnp.real(fft_.ifft(x, axis=axis)), axis)


@export
def idctn(x: Any, type: int = 2, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: str | None = None) -> Any:  # fmt: skip
    """``jax.scipy.fft.idctn``: the inverse type-2 DCT over `axes`, one axis at a time."""
    x = _array("idctn", x, type, norm)
    parts = _split_complex(idctn, x, type=type, s=s, norm=norm, axes=axes)
    if parts is not None:
        return parts
    sizes, over = _sizes_axes(x, s, axes)
    if len(over) == 1:
        return idct(x, n=sizes[0] if sizes is not None else None, axis=over[0], norm=norm)
    if sizes is not None:
        x = _resize(x, dict(zip(over, sizes, strict=False)))
    for axis in over:
        x = idct(x, axis=axis, norm=norm)
    return x
