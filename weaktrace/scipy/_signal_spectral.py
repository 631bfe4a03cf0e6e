"""The windowed-FFT machinery of ``weaktrace.scipy.signal`` (scipy's
``_spectral_helper`` as jax writes it): detrending, windows, framing, the one- or
two-sided transforms and their scaling, and the overlap-add of ``istft``.

jax's quirks are kept, since results must equal jax's: a callable ``detrend`` is
applied with the frames' axis ``axis`` moved last (jax compares the canonical axis
with -1), ``istft`` transforms with the ``nfft`` it was given (not the default it
computes) and counts its times along the first axis of the result.
"""

from __future__ import annotations

import itertools
import math
import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.core.operands import invalid_input
from weaktrace.errors import OperandValueError
from weaktrace.numpy import fft as _fft
from weaktrace.scipy._registry import promoted

wnp: Any = _wnp
lax: Any = _lax
fft_: Any = _fft

_BOUNDARIES = ["even", "odd", "constant", "zeros", None]


def _axis(axis: Any, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise OperandValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _complex_of(dt: np.dtype) -> Any:
    """``dtypes.to_complex_dtype``: complex128 for 64-bit floats and integers,
    complex64 for narrower ones and bools; then canonical under x64."""
    if dt.kind == "c":
        return dt
    wide = dt.itemsize == 8 and dt.kind in "fiu"
    return complex if wide else np.complex64  # `complex`: the default complex dtype


# -- detrend -----------------------------------------------------------------------------


def detrend(data: Any, axis: int, type: str, bp: Any, overwrite_data: Any) -> Any:
    """``jax.scipy.signal.detrend`` (see weaktrace.scipy.signal.detrend)."""
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise OperandValueError("Trend type must be 'linear' or 'constant'.")
    (x,) = promoted("detrend", wnp.asarray(data))
    if type == "constant":
        return x - x.mean(axis, keepdims=True)
    n = x.shape[axis]
    edges = np.unique(np.r_[0, bp, n])  # sorted, distinct
    if edges[0] < 0 or edges[-1] > n:
        raise OperandValueError(
            "Breakpoints must be non-negative and less than length of data along given axis."
        )
    moved = wnp.moveaxis(x, axis, 0)
    flat = moved.reshape(n, -1)
    dt = flat.dtype
    for lo, hi in itertools.pairwise(edges):
        count = hi - lo
        ramp = wnp.arange(1, count + 1, dtype=dt) / np.asarray(count).astype(dt)
        design = wnp.vstack([wnp.ones(count, dtype=dt), ramp]).T
        coef = wnp.linalg.lstsq(design, flat[lo:hi])[0]
        fit = wnp.matmul(design, coef, precision=lax.Precision.HIGHEST)
        flat = flat.at[lo:hi].add(-fit)
    return wnp.moveaxis(flat.reshape(moved.shape), 0, axis)


def _detrender(kind: Any, axis: int) -> Callable[[Any], Any]:
    if isinstance(kind, str):
        return lambda d: detrend(d, -1, kind, 0, None)
    if callable(kind):
        # jax compares the canonical (non-negative) axis with -1: the user's function
        # always sees the frames with axis `axis` moved last.
        return lambda d: wnp.moveaxis(kind(wnp.moveaxis(d, axis, -1)), -1, axis)
    if not kind:
        return lambda d: d
    raise OperandValueError(f"Unsupported detrend type: {kind}")


# -- windows ------------------------------------------------------------------------------


def _hann(n: int) -> Any:
    """The periodic Hann window as jax computes it (in the default float)."""
    if n == 1:
        return wnp.array([1.0])
    return wnp.sin(wnp.linspace(0, np.pi, n, endpoint=False)) ** 2


def _named_window(window: Any, n: int) -> Any:
    if isinstance(window, str) and window == "hann":
        return _hann(n)
    try:
        from scipy.signal import get_window
    except ImportError as err:  # pragma: no cover - scipy is installed with the tests
        raise ImportError(f"scipy must be available to use window={window!r}") from err
    return get_window(window, n)


def _window(window: Any, nperseg: int | None, length: int, dtype: Any) -> tuple[Any, int]:
    """scipy's ``_triage_segments``: the window array and the segment length."""
    if isinstance(window, str | tuple):
        n = length if nperseg is None else int(nperseg)
        if n > length:
            warnings.warn(
                f"nperseg={n} is greater than input_length={length}, using nperseg={length}",
                stacklevel=4,
            )
            n = length
        return wnp.array(_named_window(window, n), dtype=dtype), n
    win = wnp.asarray(window, dtype=dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise OperandValueError("window must be 1-D")
    if length < win.size:
        raise OperandValueError("window is longer than input signal")
    if n != win.size:
        raise OperandValueError("value specified for nperseg is different from length of window")
    return win, n


def median_bias(n: int) -> Any:
    """The bias of the median of `n` periodograms relative to their mean (scipy's
    ``_median_bias``): 1 + sum over even i < n of 1/(i+1) - 1/i."""
    evens = wnp.arange(2.0, n, 2)
    return 1 + wnp.sum(1.0 / (evens + 1) - 1.0 / evens)


# -- the forward helper ----------------------------------------------------------------------


def _extend(x: Any, n: int, boundary: Any) -> Any:
    """`x` extended by `n` samples at both ends of its last axis."""
    if boundary == "odd":
        if n < 1:
            return x
        if n > x.shape[-1] - 1:
            raise OperandValueError(
                f"The extension length n ({n}) is too big. It must not exceed "
                f"x.shape[axis]-1, which is {x.shape[-1] - 1}."
            )
        first, last = x[..., :1], x[..., -1:]
        left = wnp.flip(x[..., 1 : n + 1], axis=-1)
        right = wnp.flip(x[..., -(n + 1) : -1], axis=-1)
        return wnp.concatenate((2 * first - left, x, 2 * last - right), axis=-1)
    widths = [(0, 0)] * (x.ndim - 1) + [(n, n)]
    if boundary == "zeros":
        return wnp.pad(x, widths, "constant", constant_values=0.0)
    return wnp.pad(x, widths, "reflect" if boundary == "even" else "edge")


def _zeros_to(x: Any, like: Any, count: int) -> Any:
    """`x` with `count` zeros (of `like`'s dtype) appended on its last axis."""
    return wnp.concatenate((x, wnp.zeros_like(like, shape=(*x.shape[:-1], count))), -1)


def _frames(x: Any, win: Any, detrender: Callable[[Any], Any], nperseg: int, noverlap: int,
            nfft: int, sides: str) -> Any:  # fmt: skip
    """jax's ``_fft_helper``: windowed, detrended frames of the last axis, transformed."""
    if nperseg == 1 and noverlap == 0:
        frames = x[..., None]
    else:
        starts = np.arange(0, x.shape[-1] - nperseg + 1, nperseg - noverlap)
        frames = x[..., starts[:, None] + np.arange(nperseg)[None, :]]
    frames = detrender(frames)
    if wnp.iscomplexobj(win):
        (frames,) = promoted("spectral_helper", frames, target="complex")
    frames = win.reshape((1,) * (x.ndim - 1) + (1, nperseg)) * frames
    if sides == "twosided":
        return fft_.fft(frames, n=nfft)
    return fft_.rfft(wnp.real(frames), n=nfft)


def _arrays(name: str, *xs: Any) -> None:
    for x in xs:
        if isinstance(x, list | tuple):
            raise invalid_input(x)


def helper(x: Any, y: Any, fs: Any = 1.0, window: Any = "hann", nperseg: Any = None,
           noverlap: Any = None, nfft: Any = None, detrend_type: Any = "constant",
           return_onesided: bool = True, scaling: str = "density", axis: int = -1,
           mode: str = "psd", boundary: Any = None, padded: bool = False) -> Any:  # fmt: skip
    """scipy's ``_spectral_helper`` as jax computes it: (freqs, times, result)."""
    if mode not in ("psd", "stft"):
        raise OperandValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in _BOUNDARIES:
        raise OperandValueError(
            f"Unknown boundary option '{boundary}', must be one of: {_BOUNDARIES}"
        )
    if y is None:
        _arrays("spectral_helper", x)
        (x,) = promoted("spectral_helper", x)
        axis = _axis(axis, x.ndim)
        outer = x.shape[:axis] + x.shape[axis + 1 :]
    else:
        if mode != "psd":
            raise OperandValueError("two-argument mode is available only when mode=='psd'")
        _arrays("spectral_helper", x, y)
        x, y = promoted("spectral_helper", x, y)
        axis = _axis(axis, x.ndim)
        if x.ndim != y.ndim:
            raise OperandValueError("two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
        try:
            outer = np.broadcast_shapes(
                x.shape[:axis] + x.shape[axis + 1 :], y.shape[:axis] + y.shape[axis + 1 :]
            )
        except ValueError as err:
            raise OperandValueError("x and y cannot be broadcast together.") from err
    out_dt = wnp.dtype(_complex_of(np.dtype(x.dtype)))
    freq_dt = np.finfo(out_dt).dtype
    if nperseg is not None:
        nperseg = int(nperseg)
        if nperseg < 1:
            raise OperandValueError("nperseg must be a positive integer")
    win, nperseg = _window(window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    nfft = nperseg if nfft is None else int(nfft)
    if x.size == 0 or (y is not None and y.size == 0):
        n = x.shape[axis] if y is None else min(x.shape[axis], y.shape[axis])
        shape = x.shape if y is None else (*outer[:axis], n, *outer[axis:])
        zeros = wnp.zeros(shape, freq_dt)
        return zeros, zeros, wnp.zeros(shape, out_dt)
    x = wnp.moveaxis(x, axis, -1)
    if y is not None:
        y = wnp.moveaxis(y, axis, -1) if y.ndim > 1 else y
        if x.shape[-1] < y.shape[-1]:
            x = _zeros_to(x, x, y.shape[-1] - x.shape[-1])
        elif x.shape[-1] > y.shape[-1]:
            y = _zeros_to(y, x, x.shape[-1] - y.shape[-1])
    if nfft < nperseg:
        raise OperandValueError("nfft must be greater than or equal to nperseg.")
    if noverlap >= nperseg:
        raise OperandValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    if boundary is not None:
        x = _extend(x, nperseg // 2, boundary)
        y = None if y is None else _extend(y, nperseg // 2, boundary)
    if padded:
        extra = (-(x.shape[-1] - nperseg) % step) % nperseg
        x = _zeros_to(x, x, extra)
        y = None if y is None else _zeros_to(y, x, extra)
    detrender = _detrender(detrend_type, axis)
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise OperandValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = wnp.sqrt(scale)
    (scale,) = promoted("spectral_helper", scale, target="complex")
    sides = "onesided" if return_onesided else "twosided"
    if return_onesided and (wnp.iscomplexobj(x) or (y is not None and wnp.iscomplexobj(y))):
        sides = "twosided"
        warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=4)
    freq_fn = fft_.fftfreq if sides == "twosided" else fft_.rfftfreq
    freqs = freq_fn(nfft, 1 / fs, dtype=freq_dt)
    result = _frames(x, win, detrender, nperseg, noverlap, nfft, sides)
    if y is not None:
        result = wnp.conjugate(result) * _frames(y, win, detrender, nperseg, noverlap, nfft, sides)
    elif mode == "psd":
        result = wnp.conjugate(result) * result
    result = result * scale
    if sides == "onesided" and mode == "psd":
        result = result.at[..., 1 : (None if nfft % 2 else -1)].mul(2)
    stop = x.shape[-1] - nperseg / 2 + 1
    times = wnp.arange(nperseg / 2, stop, nperseg - noverlap, dtype=freq_dt) / fs
    if boundary is not None:
        times = times - (nperseg / 2) / fs
    result = result.astype(out_dt)
    if y is None and mode != "stft":
        result = wnp.real(result)
    return freqs, times, wnp.moveaxis(result, -1, axis)


# -- the inverse ------------------------------------------------------------------------------


def overlap_add(x: Any, step: int) -> Any:
    """Frames (..., nframes, length) laid `step` apart and summed: each frame is cut
    into step-long pieces, piece k of every frame lands on one strided row, and the
    rows, staggered by one frame each, are summed."""
    step = int(step)
    if x.ndim < 2:
        raise OperandValueError("Input must have (..., frames, frame_length) shape.")
    *batch, nframes, length = x.shape
    rows = math.prod(batch)
    out_len = step * (nframes - 1) + length
    pieces = 1 + (length - 1) // step
    x = x.reshape((rows, nframes, length))
    x = wnp.pad(x, ((0, 0), (0, 0), (0, pieces * step - length)))
    x = x.reshape((rows, nframes, pieces, step)).transpose((0, 2, 1, 3))
    x = wnp.pad(x, ((0, 0), (0, 0), (0, nframes), (0, 0)))  # room to stagger
    width = x.shape[2] - 1
    x = x.reshape((rows, -1))[:, : pieces * width * step]
    x = x.reshape((rows, pieces, width * step))
    return x.sum(axis=1)[:, :out_len].reshape((*batch, -1))


def inverse(Zxx: Any, fs: Any, window: Any, nperseg: Any, noverlap: Any, nfft: Any,
            input_onesided: bool, boundary: bool, time_axis: int,
            freq_axis: int) -> tuple[Any, Any]:  # fmt: skip
    """``jax.scipy.signal.istft``."""
    _arrays("istft", Zxx)
    z = wnp.asarray(Zxx)
    if z.ndim < 2:
        raise OperandValueError("Input stft must be at least 2d!")
    freq_axis, time_axis = _axis(freq_axis, z.ndim), _axis(time_axis, z.ndim)
    if freq_axis == time_axis:
        raise OperandValueError("Must specify differing time and frequency axes!")
    z = wnp.asarray(z, dtype=_complex_of(np.dtype(z.dtype)))
    n_default = 2 * (z.shape[freq_axis] - 1) if input_onesided else z.shape[freq_axis]
    seg = int(nperseg or n_default)
    if seg < 1:
        raise OperandValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft_int = n_default + (1 if input_onesided and seg == n_default + 1 else 0)
    else:
        nfft_int = int(nfft)
    if nfft_int < seg:
        raise OperandValueError(f"FFT length ({nfft_int}) must be longer than nperseg ({seg}).")
    overlap = int(noverlap or seg // 2)
    if overlap >= seg:
        raise OperandValueError("noverlap must be less than nperseg.")
    if time_axis != z.ndim - 1 or freq_axis != z.ndim - 2:
        rest = tuple(i for i in range(z.ndim) if i not in {time_axis, freq_axis})
        z = wnp.transpose(z, (*rest, freq_axis, time_axis))
    transform = fft_.irfft if input_onesided else fft_.ifft
    pieces = transform(z, axis=-2, n=nfft)[..., :seg, :]  # jax passes the nfft given
    if isinstance(window, str) and window == "hann":
        win = _hann(seg).astype(pieces.dtype)
    elif isinstance(window, str | tuple):
        win = wnp.array(_named_window(window, seg), dtype=pieces.dtype)
    else:
        win = wnp.asarray(window)
        if win.ndim != 1:
            raise OperandValueError("window must be 1-D")
        if win.shape[0] != seg:
            raise OperandValueError(f"window must have length of {seg}")
    pieces = pieces * win.sum()  # undoes stft's 'spectrum' scaling
    win = lax.expand_dims(win, (*range(pieces.ndim - 2), -1))
    x = overlap_add((pieces * win).swapaxes(-2, -1), seg - overlap)
    squares = wnp.repeat(win * win, pieces.shape[-1], axis=-1)
    norm = overlap_add(squares.swapaxes(-2, -1), seg - overlap)
    if boundary:
        x = x[..., seg // 2 : -(seg // 2)]
        norm = norm[..., seg // 2 : -(seg // 2)]
    x = x / wnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != z.ndim - 1:
        x = wnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    times = wnp.arange(x.shape[0], dtype=np.finfo(x.dtype).dtype) / fs
    return times, x
