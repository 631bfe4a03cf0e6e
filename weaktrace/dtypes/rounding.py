"""Rounding into a float8 dtype the way a policy's library does it, where that is not
XLA's (and ml_dtypes') conversion. A policy lists its dtypes in `Policy.roundings`.

Modes:

- ``"saturate"``: a finite value beyond the dtype's range, or an infinity, becomes
  the largest finite value of its sign; NaN stays NaN; the rest rounds to nearest
  even (PyTorch's float8_e4m3fn: 1000 -> 448, where XLA gives NaN).
- ``"magnitude"``: for float8_e8m0fnu (powers of two, no sign, no zero): the sign is
  dropped, a mantissa of one half or more rounds up, zero and numbers below 2**-127
  become 2**-127, infinities and NaN become NaN (PyTorch's; XLA gives NaN for
  negative numbers and zero).

This module computes on the host (literals folded at trace time); the same modes
are lowered to jax.lax in `weaktrace.lowering.evaluate`.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from weaktrace.dtypes.registry import DType

MODES = ("saturate", "magnitude")


def saturation_bound(dt: DType) -> float:
    """The largest finite value of `dt`."""
    return float(ml_dtypes.finfo(dt.numpy).max)


def e8m0_bits(bits: Any, xp: Any) -> Any:
    """The float8_e8m0fnu byte of float32 values given by their bits (uint32): the
    exponent field, plus one when the mantissa is at least one half (more than one half
    for subnormals, whose field 0 already stands for 2**-127); 0xFF (NaN) for
    infinities and NaN. `xp` is numpy or jax.numpy."""
    exponent = (bits >> 23) & 0xFF
    mantissa = bits & 0x7FFFFF
    half = 0x400000
    up = xp.where(exponent == 0, mantissa > half, mantissa >= half).astype(bits.dtype)
    return xp.where(exponent == 0xFF, 0xFF, xp.minimum(exponent + up, 0xFF)).astype(np.uint8)


def round_host(value: Any, dt: DType, mode: str) -> Any:
    """`value` (a Python or numpy number or array) rounded into `dt` by `mode`; a numpy
    scalar or array of `dt`."""
    if mode == "saturate":
        bound = saturation_bound(dt)
        x = np.asarray(value)
        if x.dtype.kind == "c":
            x = x.real  # the real part converts, as XLA's convert does
        with np.errstate(over="ignore"):  # float32 first, as the lowered program computes
            x = np.clip(x.astype(np.float32), -bound, bound)
        return x.astype(dt.numpy)[()]
    if mode == "magnitude":
        x = np.asarray(value)
        if x.dtype.kind == "c":
            x = x.real
        with np.errstate(over="ignore"):
            bits = np.asarray(x, np.float32).view(np.uint32)
        return e8m0_bits(bits, np).view(dt.numpy)[()]
    raise ValueError(f"unknown rounding mode {mode!r}: expected one of {MODES}")
