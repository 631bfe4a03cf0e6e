"""``weaktrace.scipy.signal``: the ``jax.scipy.signal`` mirror.

Written on weaktrace.numpy / weaktrace.lax / weaktrace.numpy.fft with jax's rules:
operands are promoted inexact as ``promote_dtypes_inexact`` promotes (dtypes only, a
Python scalar stays weak), direct convolutions are one ``conv_general_dilated`` of
the flipped kernel, ``fftconvolve`` multiplies real (or complex) spectra over the
transformed axes (the others must agree, as jax's vmap over them requires), and the
spectral estimates (``stft``, ``csd``, ``welch``) frame the signal, detrend and window
the frames and transform them as scipy does. ``istft`` overlaps and adds the inverse
transforms and divides by the summed squared window. The windowed-FFT helpers are in
``_signal_spectral``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.core.operands import invalid_input
from weaktrace.errors import OperandValueError
from weaktrace.numpy import fft as _fft
from weaktrace.scipy import _signal_spectral as spectral
from weaktrace.scipy._registry import promoted, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax
fft_: Any = _fft

EXPORTS, export = registry()

__all__ = [
    "convolve",
    "convolve2d",
    "correlate",
    "correlate2d",
    "csd",
    "detrend",
    "fftconvolve",
    "istft",
    "stft",
    "welch",
]

_MODES = ("full", "same", "valid")


def _canonical_axis(axis: int, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise OperandValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


# -- FFT convolution -----------------------------------------------------------------


@export
def fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Sequence[int] | None = None) -> Any:
    """``jax.scipy.signal.fftconvolve``: the convolution of `in1` and `in2` by products
    of their spectra, over `axes` (all by default; the other axes are batch axes and
    must be the same size in both)."""
    a, b = promoted("fftconvolve", in1, in2)
    nd = a.aval.ndim
    if nd != b.aval.ndim:
        raise OperandValueError("in1 and in2 should have the same dimensionality")
    if mode not in _MODES:
        raise OperandValueError("mode must be one of ['same', 'full', 'valid']")
    if axes is None:
        over = tuple(range(nd))
    else:
        given = (axes,) if not isinstance(axes, Sequence) else tuple(axes)
        over = tuple(_canonical_axis(ax, nd) for ax in given)
    batch = [i for i in range(nd) if i not in over]
    sa, sb = a.aval.shape, b.aval.shape
    if any(sa[i] != sb[i] for i in batch):
        raise OperandValueError(
            f"mapped axes must have same shape; got in1.shape={sa} in2.shape={sb} axes={over}"
        )
    over = tuple(sorted(set(over)))
    return _fft_product(a, b, mode, over)


def _fft_product(a: Any, b: Any, mode: str, over: tuple[int, ...]) -> Any:
    """One FFT convolution over the axes `over` (sorted, distinct); the others batch."""
    sa, sb = a.aval.shape, b.aval.shape
    if mode == "valid":
        bigger = all(sa[i] >= sb[i] for i in over)
        smaller = all(sa[i] <= sb[i] for i in over)
        if not (bigger or smaller):
            raise OperandValueError(
                "For 'valid' mode, One input must be at least as large as the other in "
                "every dimension."
            )
        if smaller:
            a, b, sa, sb = b, a, sb, sa
    full = {i: sa[i] + sb[i] - 1 for i in over}
    if all(sa[i] == 1 or sb[i] == 1 for i in over):
        conv = a * b  # every transformed axis has a length-1 side: a product
    else:
        complex_ = wnp.iscomplexobj(a)
        forward, inverse = (fft_.fftn, fft_.ifftn) if complex_ else (fft_.rfftn, fft_.irfftn)
        s = [full[i] for i in over]
        spectrum = forward(a, s, over) * forward(b, s, over)
        conv = inverse(spectrum, s, over)
    if mode == "full":
        want = dict(full)
    elif mode == "same":
        want = {i: sa[i] for i in over}
    else:
        want = {i: sa[i] - sb[i] + 1 for i in over}
    shape = conv.aval.shape
    start = [(full[i] - want[i]) // 2 if i in over else 0 for i in range(len(shape))]
    size = [want[i] if i in over else shape[i] for i in range(len(shape))]
    return lax.slice(conv, start, [s0 + n for s0, n in zip(start, size, strict=True)])


# -- direct convolution ----------------------------------------------------------------


def _direct(in1: Any, in2: Any, mode: str, precision: Any) -> Any:
    """scipy's direct n-d convolution: the kernel (the smaller operand) flipped and slid
    over the other by ``conv_general_dilated``, padded for `mode`."""
    if mode not in _MODES:
        raise OperandValueError("mode must be one of ['full', 'same', 'valid']")
    a, b = _array(in1), _array(in2)
    if a.ndim != b.ndim:
        raise OperandValueError("in1 and in2 must have the same number of dimensions")
    if a.size == 0 or b.size == 0:
        raise OperandValueError(
            f"zero-size arrays not supported in convolutions, got shapes {a.shape} and {b.shape}."
        )
    a, b = promoted("convolve", a, b)
    sa, sb = a.aval.shape, b.aval.shape
    bigger = all(x >= y for x, y in zip(sa, sb, strict=True))
    smaller = all(x <= y for x, y in zip(sa, sb, strict=True))
    if not (bigger or smaller):
        raise OperandValueError("One input must be smaller than the other in every dimension.")
    asked = sb  # 'same' centres on the second operand as given
    if smaller:
        a, b = b, a
    kernel = b.aval.shape
    if mode == "valid":
        pads = [(0, 0)] * len(kernel)
    elif mode == "same":
        pads = [
            (k - 1 - (o - 1) // 2, k - o + (o - 1) // 2) for k, o in zip(kernel, asked, strict=True)
        ]
    else:
        pads = [(k - 1, k - 1) for k in kernel]
    lhs = wnp.expand_dims(a, (0, 1))
    rhs = wnp.expand_dims(wnp.flip(b), (0, 1))
    out = lax.conv_general_dilated(lhs, rhs, (1,) * len(kernel), pads, precision=precision)
    return out[0, 0]


def _array(x: Any) -> Any:
    """jax reads ``.ndim`` of the operands before any conversion: sequences fail."""
    if isinstance(x, list | tuple):
        raise invalid_input(x)
    return wnp.asarray(x)


@export
def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto",
             precision: Any = None) -> Any:  # fmt: skip
    """``jax.scipy.signal.convolve``: n-d convolution, direct (``'auto'``,
    ``'direct'``) or by FFTs (``'fft'``)."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return _direct(in1, in2, mode, precision)
    raise OperandValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")


def _fill_only(name: str, boundary: str, fillvalue: Any, in1: Any, in2: Any) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise OperandValueError(f"{name}() only supports 2-dimensional inputs.")


@export
def convolve2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
               fillvalue: Any = 0, precision: Any = None) -> Any:  # fmt: skip
    """``jax.scipy.signal.convolve2d``: 2-d direct convolution (zero fill only)."""
    _fill_only("convolve2d", boundary, fillvalue, _shape_of(in1), _shape_of(in2))
    return _direct(in1, in2, mode, precision)


def _shape_of(x: Any) -> Any:
    """Something np.ndim reads without converting a tracer."""
    shape = getattr(x, "shape", None)
    return np.empty(shape, np.int8) if shape is not None else x


@export
def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto",
              precision: Any = None) -> Any:  # fmt: skip
    """``jax.scipy.signal.correlate``: the convolution with the conjugated, flipped
    `in2`."""
    return convolve(in1, wnp.flip(wnp.conj(in2)), mode, precision=precision, method=method)


@export
def correlate2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
                fillvalue: Any = 0, precision: Any = None) -> Any:  # fmt: skip
    """``jax.scipy.signal.correlate2d``: 2-d cross-correlation as scipy orders it: the
    flipped operand is the one scipy keeps as the signal, so which is conjugated and
    whether the result is flipped back depends on `mode` and on which is larger."""
    _fill_only("correlate2d", boundary, fillvalue, _shape_of(in1), _shape_of(in2))
    s1, s2 = in1.shape, in2.shape
    swap = all(x <= y for x, y in zip(s1, s2, strict=False))
    same = all(x == y for x, y in zip(s1, s2, strict=False))
    flip_first = not swap if mode == "full" else (mode == "same" or not swap or same)
    if flip_first:
        return wnp.flip(_direct(wnp.flip(in1), wnp.conj(in2), mode, precision))
    out = _direct(wnp.flip(in2), wnp.conj(in1), mode, precision)
    return wnp.conj(out) if mode == "full" else out


# -- detrending ------------------------------------------------------------------------


@export
def detrend(data: Any, axis: int = -1, type: str = "linear", bp: Any = 0,
            overwrite_data: None = None) -> Any:  # fmt: skip
    """``jax.scipy.signal.detrend``: `data` less its mean (``'constant'``) or less its
    least-squares line on each piece between the breakpoints `bp` (``'linear'``)."""
    return spectral.detrend(data, axis, type, bp, overwrite_data)


# -- spectral estimates ------------------------------------------------------------------


@export
def stft(x: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int = 256,
         noverlap: int | None = None, nfft: int | None = None, detrend: Any = False,
         return_onesided: bool = True, boundary: str | None = "zeros", padded: bool = True,
         axis: int = -1) -> tuple[Any, Any, Any]:  # fmt: skip
    """``jax.scipy.signal.stft``: the short-time Fourier transform, (freqs, times, Zxx)."""
    return spectral.helper(
        x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
        scaling="spectrum", axis=axis, mode="stft", boundary=boundary, padded=padded,
    )  # fmt: skip


@export
def csd(x: Any, y: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int | None = None,
        noverlap: int | None = None, nfft: int | None = None, detrend: Any = "constant",
        return_onesided: bool = True, scaling: str = "density", axis: int = -1,
        average: str = "mean") -> tuple[Any, Any]:  # fmt: skip
    """``jax.scipy.signal.csd``: the cross power spectral density by Welch's method,
    (freqs, Pxy); the segments' estimates averaged by mean or (bias-corrected) median."""
    freqs, _, pxy = spectral.helper(
        x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling,
        axis, mode="psd",
    )  # fmt: skip
    if y is not None:
        pxy = pxy + 0j  # complex even where x is y
    if pxy.ndim < 2 or pxy.size == 0:
        return freqs, pxy
    if pxy.shape[-1] <= 1:
        return freqs, pxy.reshape(pxy.shape[:-1])
    if average == "mean":
        return freqs, pxy.mean(axis=-1)
    if average != "median":
        raise OperandValueError(f'average must be "median" or "mean", got {average}')
    bias = spectral.median_bias(pxy.shape[-1]).astype(pxy.dtype)
    if wnp.iscomplexobj(pxy):
        mid = wnp.median(wnp.real(pxy), axis=-1) + 1j * wnp.median(wnp.imag(pxy), axis=-1)
    else:
        mid = wnp.median(pxy, axis=-1)
    return freqs, mid / bias


@export
def welch(x: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int | None = None,
          noverlap: int | None = None, nfft: int | None = None, detrend: Any = "constant",
          return_onesided: bool = True, scaling: str = "density", axis: int = -1,
          average: str = "mean") -> tuple[Any, Any]:  # fmt: skip
    """``jax.scipy.signal.welch``: the power spectral density, (freqs, Pxx)."""
    freqs, pxx = csd(
        x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
        detrend=detrend, return_onesided=return_onesided, scaling=scaling, axis=axis,
        average=average,
    )  # fmt: skip
    return freqs, wnp.real(pxx)


@export
def istft(Zxx: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int | None = None,
          noverlap: int | None = None, nfft: int | None = None,
          input_onesided: bool = True, boundary: bool = True, time_axis: int = -1,
          freq_axis: int = -2) -> tuple[Any, Any]:  # fmt: skip
    """``jax.scipy.signal.istft``: the inverse short-time Fourier transform, (times, x)."""
    return spectral.inverse(
        Zxx, fs, window, nperseg, noverlap, nfft, input_onesided, boundary, time_axis,
        freq_axis,
    )  # fmt: skip
