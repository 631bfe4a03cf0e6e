"""``weaktrace.numpy.fft``: the ``jax.numpy.fft`` mirror.

Every transform goes through `_fft_core`, written as ``jax._src.numpy.fft._fft_core``:
the transformed axes move last, the operand is cropped or zero-padded to ``s``, it is
converted as ``jax.lax.fft`` converts (complex transforms take the complex dtype of
the operand's inexact dtype, ``rfft`` its real inexact dtype: narrow integers and
bool become float32, 64-bit integers float64; the weak flag drops), the ``fft``
primitive transforms up to three trailing axes at a time, and ``norm`` scales.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from weaktrace.core.mirror import exporter
from weaktrace.core.primitives_fft import fft_p
from weaktrace.core.primitives_fft import to_inexact as _to_inexact
from weaktrace.dtypes import registry
from weaktrace.dtypes.registry import DType
from weaktrace.errors import InvalidInputError, OperandValueError, ShapeError
from weaktrace.numpy import creation, reductions, shapes, ufuncs
from weaktrace.numpy._core import (
    P,
    axis_arg,
    bind,
    broadcast_scalar,
    context,
    convert,
    lit,
    operand,
)

__all__: list[str] = []  # filled at the end of the module

EXPORTS: dict[str, Callable[..., Any]] = {}  # public name -> function
export = exporter(EXPORTS, counterpart="jax.numpy.fft")

_D = registry.by_name
_F32, _F64, _C64, _C128 = _D("float32"), _D("float64"), _D("complex64"), _D("complex128")


def _compute_dtype(x: Any, fft_type: str) -> DType:
    """The dtype the transform converts `x` to: the policy's (jax: jax.lax.fft's fixed
    table; numpy: its pocketfft's), complex unless the transform is an RFFT."""
    dt = x.ctx.policy.fft_dtype(x.aval[1])
    if fft_type == "RFFT" or dt.kind == "c":
        return dt
    return _C128 if dt == _F64 else _C64


def _move(x: Any, src: Sequence[int], dst: Sequence[int]) -> Any:
    """``moveaxis`` (src and dst already non-negative)."""
    order = [d for d in range(x.aval.ndim) if d not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return x if order == list(range(x.aval.ndim)) else shapes.transpose(x, tuple(order))


def _resize(x: Any, size: Sequence[int]) -> Any:
    """Crop, then zero-pad at the end, each axis to `size`."""
    cur = x.aval[0]
    if any(n < c for n, c in zip(size, cur, strict=True)):
        x = x[tuple(slice(n) for n in size)]
    for ax, (n, c) in enumerate(zip(size, x.aval[0], strict=True)):
        if n > c:
            pad_shape = list(x.aval[0])
            pad_shape[ax] = n - c
            zeros = broadcast_scalar(lit(x.ctx, 0, x.aval[1], x.aval[2]), tuple(pad_shape))
            x = shapes.concatenate([x, zeros], axis=ax)
    return x


def _lax_fft(x: Any, fft_type: str, lengths: Sequence[int]) -> Any:
    """``jax.lax.fft``: convert, then transform (nothing to transform: converted only)."""
    if fft_type == "RFFT" and x.aval[1].kind == "c":
        raise OperandValueError("only real valued inputs supported for rfft")
    x = convert(x.ctx, x, _compute_dtype(x, fft_type), False)
    if not lengths:
        return x
    return bind(fft_p, x, fft_type=fft_type, fft_lengths=tuple(lengths))


def _fft_nd(x: Any, fft_type: str, s: Sequence[int]) -> Any:
    """``_fft_core_nd``: XLA transforms at most three axes at once."""
    if len(s) <= 3:
        return _lax_fft(x, fft_type, s)
    n = 2 if len(s) == 4 else 3
    nd = x.aval.ndim
    src = tuple(range(nd - len(s), nd - n))
    dst = tuple(range(nd - len(s) + n, nd))
    if fft_type in ("RFFT", "FFT"):
        x = _lax_fft(x, fft_type, tuple(s)[-n:])
        return _move(_fft_nd(_move(x, src, dst), "FFT", s[:-n]), dst, src)
    x = _move(_fft_nd(_move(x, src, dst), "IFFT", s[:-n]), dst, src)
    return _lax_fft(x, fft_type, tuple(s)[-n:])


def _norm_factor(out: Any, s: Sequence[int], name: str, norm: str) -> Any:
    if norm == "backward":
        return 1  # jax scales by jnp.array(1): a weak int, so strict promotion accepts it
    if norm not in ("ortho", "forward"):
        raise OperandValueError(f'Invalid norm value {norm}; should be "backward",'
                                '"ortho" or "forward".')  # fmt: skip
    sizes = operand(np.asarray(s, dtype=out.aval[1].numpy), out.ctx)
    total = reductions.prod(sizes)
    if norm == "ortho":
        root = ufuncs.sqrt(total)
        return root if name.startswith("i") else ufuncs.true_divide(1, root)
    return total if name.startswith("i") else ufuncs.true_divide(1, total)


def _fft_core(name: str, fft_type: str, a: Any, s: Sequence[int] | None,
              axes: Sequence[int] | None, norm: str | None) -> Any:  # fmt: skip
    arr = operand(a, context(a))
    nd, operand_dt = arr.aval.ndim, arr.aval[1]
    if s is not None:
        try:
            s = tuple(operator.index(n) for n in s)
        except TypeError:
            raise InvalidInputError(f"jax.numpy.fft.{name}: s must be a sequence of ints") from None
        if any(n <= 0 for n in s):
            raise OperandValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise OperandValueError("Shape and axes have different lengths.")
    orig = None if axes is None else tuple(axis_arg(ax, nd, f"fft.{name}") for ax in axes)
    if orig is None:
        todo = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
    else:
        todo = orig
    if len(todo) != len(set(todo)):
        raise OperandValueError(f"jax.numpy.fft.{name} does not support repeated axes. "
                                f"Got axes {axes}.")  # fmt: skip
    if any(not 0 <= t < nd for t in todo):
        raise ShapeError(f"jax.numpy.fft.{name}: s {s} has more entries than the operand has "
                         f"axes ({arr.aval[0]})")  # fmt: skip
    if orig is not None:
        todo = tuple(range(nd - len(orig), nd))
        arr = _move(arr, orig, todo)
    if s is not None:
        size = list(arr.aval[0])
        for ax, n in zip(todo, s, strict=True):
            size[ax] = n
        if fft_type == "IRFFT":
            size[-1] = size[-1] // 2 + 1
        arr = _resize(arr, size)
        lengths = list(s)
    elif fft_type == "IRFFT":
        lengths = [arr.aval[0][ax] for ax in todo[:-1]]
        if todo:
            lengths.append(max(0, 2 * (arr.aval[0][todo[-1]] - 1)))
    else:
        lengths = [arr.aval[0][ax] for ax in todo]
    out = _fft_nd(arr, fft_type, lengths)
    if norm is not None:
        out = ufuncs.multiply(out, _norm_factor(out, lengths, name, norm))
    if orig is not None:
        out = _move(out, todo, orig)
    if fft_type == "IRFFT" and len(todo) == 1:  # numpy's irfftn runs ifft first
        dt = out.ctx.policy.fft_real_result(operand_dt, out.aval[1])
        out = out if dt == out.aval[1] else convert(out.ctx, out, dt, False)
    return out


def _one_axis(name: str, axis: Any) -> list[Any]:
    if isinstance(axis, list | tuple):
        raise OperandValueError(
            f"jax.numpy.fft.{name} does not support multiple axes. "
            f"Please use jax.numpy.fft.{name}n. Got axis = {axis!r}."
        )
    return [axis]


def _make_1d(name: str, fft_type: str) -> Callable[..., Any]:
    def fn(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
        s = None if n is None else [n]
        return _fft_core(name, fft_type, a, s, _one_axis(name, axis), norm)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jax.numpy.fft.{name}`` along one axis (`n` crops or pads it)."
    return export(fn)


def _make_nd(name: str, fft_type: str, two: bool) -> Callable[..., Any]:
    def fn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Any:  # fmt: skip
        if two and len(axes) != 2:  # type: ignore[arg-type]
            raise OperandValueError(f"jax.numpy.fft.{name} only supports 2 axes. "
                                    f"Got axes = {axes!r}.")  # fmt: skip
        return _fft_core(name, fft_type, a, s, axes, norm)

    if two:
        fn.__defaults__ = (None, (-2, -1), None)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jax.numpy.fft.{name}`` over several axes (`s` crops or pads them)."
    return export(fn)


fft = _make_1d("fft", "FFT")
ifft = _make_1d("ifft", "IFFT")
rfft = _make_1d("rfft", "RFFT")
irfft = _make_1d("irfft", "IRFFT")
fft2 = _make_nd("fft2", "FFT", True)
ifft2 = _make_nd("ifft2", "IFFT", True)
rfft2 = _make_nd("rfft2", "RFFT", True)
irfft2 = _make_nd("irfft2", "IRFFT", True)
fftn = _make_nd("fftn", "FFT", False)
ifftn = _make_nd("ifftn", "IFFT", False)
rfftn = _make_nd("rfftn", "RFFT", False)
irfftn = _make_nd("irfftn", "IRFFT", False)


@export
def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """``jax.numpy.fft.hfft``: the real transform of a Hermitian-symmetric spectrum."""
    x = ufuncs.conjugate(operand(a, context(a)))
    axes = _one_axis("hfft", axis)
    nn = (x.aval[0][axis] - 1) * 2 if n is None else n
    out = _fft_core("hfft", "IRFFT", x, None if n is None else [n], axes, norm)
    return ufuncs.multiply(out, nn)


@export
def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """``jax.numpy.fft.ihfft``: conj(rfft(a)) / n."""
    x = operand(a, context(a))
    axes = _one_axis("ihfft", axis)
    nn = x.aval[0][axis] if n is None else n
    out = _fft_core("ihfft", "RFFT", x, None if n is None else [n], axes, norm)
    return ufuncs.multiply(ufuncs.conjugate(out), 1 / nn)


def _freq_dtype(dtype: Any) -> tuple[DType, DType]:
    b = context()
    out = b.policy.user_dtype(dtype) if dtype else b.policy.defaults["f"]
    return out, P._real_dtype(_to_inexact(out))


def _freq_args(name: str, n: Any, d: Any) -> None:
    if isinstance(n, list | tuple):
        raise OperandValueError(
            f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = {list(n)}."
        )
    if isinstance(d, list | tuple):
        raise OperandValueError(
            f"The d argument of jax.numpy.fft.{name} only takes a single value. Got d = {list(d)}."
        )


@export
def fftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """``jax.numpy.fft.fftfreq``: the sample frequencies of an n-point transform."""
    _freq_args("fftfreq", n, d)
    out_dt, dt = _freq_dtype(dtype)
    i = creation.arange(n, dtype=dt.numpy)
    k = (i + n // 2) % n - n // 2
    den = creation.array(d * n, dtype=dt.numpy)
    return creation.astype(ufuncs.true_divide(creation.astype(k, dt.numpy), den), out_dt.numpy)


@export
def rfftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """``jax.numpy.fft.rfftfreq``: the frequencies of an n-point real transform."""
    _freq_args("rfftfreq", n, d)
    dt, _ = _freq_dtype(dtype)
    k = creation.arange(0, n // 2 + 1, dtype=dt.numpy)
    return ufuncs.true_divide(k, creation.array(d * n, dtype=dt.numpy))


def _roll(x: Any, shifts: Sequence[int], axes: Sequence[int]) -> Any:
    for shift, ax in zip(shifts, axes, strict=True):
        ax = axis_arg(ax, x.aval.ndim, "roll")
        size = x.aval[0][ax]
        k = shift % size if size else 0
        if k:
            lo = [slice(None)] * x.aval.ndim
            hi = list(lo)
            lo[ax], hi[ax] = slice(size - k, None), slice(None, size - k)
            x = shapes.concatenate([x[tuple(lo)], x[tuple(hi)]], axis=ax)
    return x


def _shift(x: Any, axes: Any, sign: int) -> Any:
    arr = operand(x, context(x))
    if axes is None:
        axes = tuple(range(arr.aval.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    shifts = [sign * (arr.aval[0][ax] // 2) for ax in axes]
    return _roll(arr, shifts, axes)


@export
def fftshift(x: Any, axes: int | Sequence[int] | None = None) -> Any:
    """``jax.numpy.fft.fftshift``: the zero frequency moved to the centre."""
    return _shift(x, axes, 1)


@export
def ifftshift(x: Any, axes: int | Sequence[int] | None = None) -> Any:
    """``jax.numpy.fft.ifftshift``: fftshift undone."""
    return _shift(x, axes, -1)


__all__ += sorted(EXPORTS)
