"""Lowering rule of ``weaktrace.core.primitives_fft`` onto ``jax.lax.fft``."""

from __future__ import annotations

from typing import Any

from jax import lax

from weaktrace.core import primitives_fft as F
from weaktrace.lowering.rules import _register


def _fft(x: Any, *, fft_type: str, fft_lengths: tuple[int, ...]) -> Any:
    return lax.fft(x, getattr(lax.FftType, fft_type), fft_lengths)


_register(F.fft_p, _fft)
