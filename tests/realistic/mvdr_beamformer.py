"""An MVDR beamformer for a small microphone array: complex STFT bins by rfft along time,
per-frequency spatial covariance (a batch of Hermitian matrices), eigh for the noise
subspace (MUSIC pseudo-spectrum), solve/slogdet/cholesky on complex batches, and the
weighted sum back to a signal with irfft."""

import jax.numpy as jnp


def steering(angles, n_mics, freqs, spacing=0.05, c=343.0):
    delay = spacing * jnp.arange(n_mics)[None, :] * jnp.sin(angles)[:, None] / c
    return jnp.exp(-2j * jnp.pi * freqs[:, None, None] * delay[None])


def run(x, fs):
    n_mics = x.shape[0]
    spec = jnp.fft.rfft(x.reshape(n_mics, -1, 8), axis=-1)  # (mics, frames, bins)
    spec = jnp.transpose(spec, (2, 1, 0))  # (bins, frames, mics)
    cov = jnp.einsum("fti,ftj->fij", spec, spec.conj()) / spec.shape[1]
    cov = cov + 1e-2 * jnp.eye(n_mics)
    freqs = jnp.fft.rfftfreq(8, 1.0 / fs)
    angles = jnp.linspace(-1.2, 1.2, 5)
    d = steering(angles, n_mics, freqs)  # (bins, angles, mics)
    rinv_d = jnp.linalg.solve(cov[:, None], d[..., None])[..., 0]
    power = 1.0 / jnp.real(jnp.sum(d.conj() * rinv_d, axis=-1))
    evals, evecs = jnp.linalg.eigh(cov)
    noise = evecs[..., :1]
    music = 1.0 / jnp.sum(jnp.abs(jnp.einsum("fam,fmk->fak", d.conj(), noise)) ** 2, -1)
    w = rinv_d[:, 2] / jnp.sum(d[:, 2].conj() * rinv_d[:, 2], -1, keepdims=True)
    out = jnp.einsum("fm,ftm->tf", w.conj(), spec)
    signal = jnp.fft.irfft(out, n=8, axis=-1).reshape(-1)
    sign, logdet = jnp.linalg.slogdet(cov)
    chol = jnp.linalg.cholesky(cov)
    return power, evals, music, signal, sign, logdet, jnp.abs(chol)


def inputs(rng):
    x = rng.standard_normal((3, 32)).astype("float32")
    x[1] += 0.5 * x[0]
    return jnp.asarray(x), 8000.0
