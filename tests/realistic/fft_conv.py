"""Convolution through the FFT (rfft / irfft with zero padding), compared with direct
jnp.convolve; an FFT low-pass of a 2-D image and a power spectrum with fftfreq/fftshift."""

import jax.numpy as jnp


def next_pow2(n):
    return 1 << (n - 1).bit_length()


def fft_convolve(x, h):
    n = x.shape[-1] + h.shape[-1] - 1
    nfft = next_pow2(n)
    X = jnp.fft.rfft(x, n=nfft)
    H = jnp.fft.rfft(h, n=nfft)
    return jnp.fft.irfft(X * H, n=nfft)[..., :n]


def gaussian_kernel(size, sigma):
    r = jnp.arange(size) - (size - 1) / 2  # expect: implicit-promotion
    k = jnp.exp(-0.5 * (r / sigma) ** 2)
    return k / k.sum()


def lowpass_2d(img, cutoff):
    F = jnp.fft.fftshift(jnp.fft.fft2(img))
    h, w = img.shape
    fy = jnp.fft.fftshift(jnp.fft.fftfreq(h))
    fx = jnp.fft.fftshift(jnp.fft.fftfreq(w))
    mask = (fy[:, None] ** 2 + fx[None, :] ** 2) <= cutoff**2
    return jnp.real(jnp.fft.ifft2(jnp.fft.ifftshift(F * mask)))  # expect: implicit-promotion


def power_spectrum(x, fs):
    spec = jnp.abs(jnp.fft.rfft(x * jnp.hanning(x.shape[-1]))) ** 2
    freqs = jnp.fft.rfftfreq(x.shape[-1], d=1.0 / fs)
    peak = freqs[jnp.argmax(spec[..., 1:], axis=-1) + 1]
    return spec, peak


def run(signal, img):
    k = gaussian_kernel(9, 2.0)
    smooth_fft = fft_convolve(signal, k)
    smooth_direct = jnp.convolve(signal, k, mode="full")
    err = jnp.max(jnp.abs(smooth_fft - smooth_direct))
    spec, peak = power_spectrum(signal, 64.0)
    low = lowpass_2d(img, 0.2)
    return smooth_fft, err < 1e-4, spec, peak, low


def inputs(rng):
    t = jnp.arange(64) / 64.0
    signal = (jnp.sin(2 * jnp.pi * 5 * t) + 0.3 * rng.standard_normal(64)).astype("float32")
    img = rng.standard_normal((16, 16)).astype("float32")
    return signal, img
