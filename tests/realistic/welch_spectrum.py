"""A Welch power-spectrum estimate and a 2-D spectral filter: framed segments with a Hann
window, rfft with norm=, rfftfreq/fftfreq with d=, fftshift/ifftshift with axes=, rfftn
and irfftn over chosen axes, and a Hermitian pair (ihfft -> hfft) for a symmetric kernel."""

import jax.numpy as jnp


def frames(x, size, hop):
    starts = jnp.arange(0, x.shape[-1] - size + 1, hop)
    idx = starts[:, None] + jnp.arange(size)[None, :]
    return x[..., idx]


def welch(x, fs, size=8, hop=4):
    win = 0.5 - 0.5 * jnp.cos(2 * jnp.pi * jnp.arange(size) / size)
    seg = frames(x, size, hop) * win
    spec = jnp.fft.rfft(seg - seg.mean(-1, keepdims=True), axis=-1, norm="ortho")
    power = jnp.mean(jnp.abs(spec) ** 2, axis=-2) / jnp.sum(win**2) * size
    return jnp.fft.rfftfreq(size, d=1.0 / fs), power


def run(signals, image, fs):
    freqs, power = welch(signals, fs)
    peak = freqs[jnp.argmax(power, axis=-1)]
    ky = jnp.fft.fftshift(jnp.fft.fftfreq(image.shape[0], d=0.5))
    kx = jnp.fft.rfftfreq(image.shape[1])
    spec = jnp.fft.rfftn(image, axes=(0, 1), norm="forward")
    lowpass = jnp.exp(-(jnp.fft.ifftshift(ky, axes=0)[:, None] ** 2 + kx[None, :] ** 2) * 8.0)
    smooth = jnp.fft.irfftn(spec * lowpass, s=image.shape, axes=(0, 1), norm="forward")
    centered = jnp.fft.fftshift(jnp.abs(jnp.fft.fft2(image)), axes=(0, 1))
    kernel = jnp.exp(-(jnp.arange(5) ** 2) / 2.0)
    half = jnp.fft.ihfft(kernel, norm="ortho")
    back = jnp.fft.hfft(half, n=5, norm="ortho")
    return freqs, power, peak, ky, smooth, centered, half, back


def inputs(rng):
    t = jnp.arange(32) / 16.0
    signals = jnp.stack([jnp.sin(2 * jnp.pi * 3 * t), jnp.cos(2 * jnp.pi * 5 * t)])
    signals = signals + 0.1 * rng.standard_normal((2, 32)).astype("float32")
    image = rng.standard_normal((6, 6)).astype("float32")
    return signals.astype(jnp.float32), image, 16.0
