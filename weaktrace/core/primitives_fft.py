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
from weaktrace.dtypes.policies.jax import fft_inexact
from weaktrace.errors import OperandTypeError, OperandValueError, ShapeError
from weaktrace.ir.values import AbstractValue

_D = registry.by_name
FFT_TYPES = ("FFT", "IFFT", "RFFT", "IRFFT")
REAL_IN = frozenset((_D("float32"), _D("float64")))
COMPLEX_IN = frozenset((_D("complex64"), _D("complex128")))
COMPLEX_OF = {_D("float32"): _D("complex64"), _D("float64"): _D("complex128")}


to_inexact = fft_inexact  # jax.lax.fft's fixed table (weaktrace.dtypes.policies.jax)


def _fft(x: AbstractValue, *, fft_type: str, fft_lengths: tuple[int, ...]) -> list[AbstractValue]:
    if fft_type not in FFT_TYPES:
        raise OperandTypeError(f"fft_type must be one of {FFT_TYPES}, got {fft_type!r}")
    k = len(fft_lengths)
    if k > x.ndim:
        raise ShapeError(f"FFT input shape {x.shape} must have at least as many input "
                         f"dimensions as fft_lengths {fft_lengths}.")  # fmt: skip
    if not 1 <= k <= 3:
        raise ShapeError(f"fft: {k} fft_lengths given; XLA transforms 1 to 3 axes at once")
    accepted = REAL_IN if fft_type == "RFFT" else COMPLEX_IN
    if x[1] not in accepted:
        # jax raises ValueError here, in these words
        want = " or ".join(sorted(str(d) for d in accepted))
        raise OperandValueError(
            f"{fft_type} input must be {want}, got {x[1]}. Convert the operand first."
        )
    shape = list(x.shape)
    tail = tuple(shape[-k:])
    if fft_type == "IRFFT":
        dt = _real_dtype(x[1])
        shape[-1] = fft_lengths[-1]
        if tail[:-1] != tuple(fft_lengths[:-1]):
            raise ShapeError(f"IRFFT input shape {x.shape} minor dimensions must be equal to "
                             f"all except the last fft_length, got {fft_lengths=}")  # fmt: skip
        if tail[-1] != fft_lengths[-1] // 2 + 1:
            raise ShapeError(f"IRFFT input shape {x.shape}: its last axis must have "
                             f"fft_lengths[-1] // 2 + 1 entries, got {fft_lengths=}")  # fmt: skip
    else:
        if fft_type == "RFFT":
            dt = COMPLEX_OF[x[1]]
            shape[-1] = fft_lengths[-1] // 2 + 1
        else:
            dt = x[1]
        if tail != tuple(fft_lengths):
            raise ShapeError(f"{fft_type} input shape {x.shape} minor dimensions must be "
                             f"equal to fft_lengths {fft_lengths}")  # fmt: skip
    return [AbstractValue.make(tuple(shape), dt, x[2])]


fft_p = _def("fft", _fft)
