"""Audio feature extraction: a short-time spectrum, log-mel-like band energies, their
cepstrum (DCT) and the signal's energy by trapezoidal integration."""

import jax.numpy as jnp
from jax.scipy.fft import dct
from jax.scipy.integrate import trapezoid
from jax.scipy.signal import stft, welch


def mel_filterbank(n_freqs, n_bands, sample_rate):
    freqs = jnp.linspace(0.0, sample_rate / 2, n_freqs)
    mel = 2595.0 * jnp.log10(1.0 + freqs / 700.0)
    edges = jnp.linspace(0.0, mel[-1], n_bands + 2)
    lo, mid, hi = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (mel[None, :] - lo) / (mid - lo)
    falling = (hi - mel[None, :]) / (hi - mid)
    return jnp.maximum(0.0, jnp.minimum(rising, falling))


def features(audio, sample_rate=16000.0, n_bands=12, n_ceps=8):
    freqs, times, spec = stft(audio, fs=sample_rate, nperseg=64, noverlap=32)
    power = jnp.abs(spec) ** 2
    bank = mel_filterbank(freqs.shape[0], n_bands, sample_rate)
    bands = jnp.einsum("bf,...ft->...bt", bank, power)
    log_bands = jnp.log(bands + 1e-6)
    mfcc = dct(log_bands, axis=-2, norm="ortho")[..., :n_ceps, :]
    energy = trapezoid(audio**2, dx=1.0 / sample_rate, axis=-1)
    _, psd = welch(audio, fs=sample_rate, nperseg=128)
    band_power = trapezoid(psd, dx=sample_rate / 128)
    return mfcc, energy, band_power, times


def run(audio, pcm):
    mfcc, energy, band_power, times = features(audio)
    delta = mfcc[..., 1:] - mfcc[..., :-1]
    return mfcc.mean(axis=-1), delta.std(axis=-1), energy, band_power, times, features(pcm[0])[1]


def inputs(rng):
    t = jnp.arange(1024) / 16000.0
    tone = jnp.sin(2 * jnp.pi * 440.0 * t) + 0.3 * jnp.sin(2 * jnp.pi * 1250.0 * t)
    noise = rng.standard_normal((2, 1024)).astype("float32") * 0.1
    audio = (tone[None, :] + noise).astype("float32")
    pcm = (audio * 8000).astype("int32")  # integer samples promote to the default float
    return audio, pcm
