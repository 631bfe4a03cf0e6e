"""``fft[fft_type, fft_lengths]``: jax.lax's fast Fourier transform primitive.

It transforms the trailing ``len(fft_lengths)`` (at most 3) axes. ``FFT`` and ``IFFT``
take and give complex values of one dtype; ``RFFT`` takes float32/float64 and gives
the matching complex dtype with ``n // 2 + 1`` entries on the last axis; ``IRFFT``
takes complex values and gives the matching real dtype with ``fft_lengths[-1]``
entries there. Operands are converted beforehand (``jax.lax.fft`` converts, and so
drops the weak flag); the output keeps the operand's flag.
"""

from __future__ import annotations

from weaktrace.core.primitives import _def, _real_dtype
from weaktrace.dtypes import registry
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue

_D = registry.by_name
FFT_TYPES = ("FFT", "IFFT", "RFFT", "IRFFT")
REAL_IN = frozenset((_D("float32"), _D("float64")))
COMPLEX_IN = frozenset((_D("complex64"), _D("complex128")))
COMPLEX_OF = {_D("float32"): _D("complex64"), _D("float64"): _D("complex128")}


def to_inexact(dt: registry.DType) -> registry.DType:
    """``jax._src.dtypes.to_inexact_dtype``, the fixed table jax.lax.fft (and so
    jax.numpy.fft) converts operands with: inexact dtypes stay, 64-bit integers go to
    float64, every other dtype (bool, smaller integers) to float32."""
    if dt.kind in "fc":
        return dt
    return _D("float64") if dt.kind in "iu" and dt.bits == 64 else _D("float32")


def _fft(x: AbstractValue, *, fft_type: str, fft_lengths: tuple[int, ...]) -> list[AbstractValue]:
    if fft_type not in FFT_TYPES:
        raise OperandTypeError(f"fft_type must be one of {FFT_TYPES}, got {fft_type!r}")
    accepted = REAL_IN if fft_type == "RFFT" else COMPLEX_IN
    if x[1] not in accepted:
        raise OperandTypeError(
            f"fft of type {fft_type} does not accept dtype {x[1]}: it needs "
            f"{' or '.join(sorted(str(d) for d in accepted))}. Convert the operand first."
        )
    k = len(fft_lengths)
    if not 1 <= k <= min(3, x.ndim):
        raise ShapeError(f"fft: {k} fft_lengths do not fit an operand of shape {x.shape}")
    shape = list(x.shape)
    tail = tuple(shape[-k:])
    if fft_type == "IRFFT":
        want = (*fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        dt = _real_dtype(x[1])
        shape[-1] = fft_lengths[-1]
    elif fft_type == "RFFT":
        want = fft_lengths
        dt = COMPLEX_OF[x[1]]
        shape[-1] = fft_lengths[-1] // 2 + 1
    else:
        want, dt = fft_lengths, x[1]
    if tail != tuple(want):
        raise ShapeError(f"fft {fft_type} with lengths {fft_lengths} got operand shape {x.shape}")
    return [AbstractValue.make(tuple(shape), dt, x[2])]


fft_p = _def("fft", _fft)
