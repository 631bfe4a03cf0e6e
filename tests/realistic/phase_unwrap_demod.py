"""FM demodulation of a complex baseband signal: complex64 arithmetic with weak Python
complex scalars, jnp.angle / unwrap, conjugate products for instantaneous frequency,
jnp.real / imag / conj, a complex FIR filter via jnp.convolve, and polar-form
reconstruction with jnp.exp(1j * phase)."""

import jax.numpy as jnp


def modulate(message, fc, fs, dev):
    t = jnp.arange(message.shape[0]) / fs
    phase = 2 * jnp.pi * fc * t + 2 * jnp.pi * dev * jnp.cumsum(message) / fs
    return jnp.exp(1j * phase)


def run(message, noise_re, noise_im, fs, fc, dev):
    s = modulate(message, fc, fs, dev).astype(jnp.complex64)
    s = s + 0.05 * (noise_re + 1j * noise_im)
    s = s * (1.0 + 0.5j)
    taps = jnp.exp(-0.5 * jnp.arange(-3, 4) ** 2) * (1 + 0j)
    filtered = jnp.convolve(s, taps / taps.sum(), mode="same")
    inst = filtered[1:] * jnp.conj(filtered[:-1])
    freq = jnp.angle(inst) * fs / (2 * jnp.pi)
    unwrapped = jnp.unwrap(jnp.angle(filtered))
    deg = jnp.angle(filtered[:4], deg=True)
    amp = jnp.abs(filtered)
    rebuilt = amp * jnp.exp(1j * jnp.angle(filtered))
    return (
        freq,
        unwrapped,
        deg,
        jnp.real(rebuilt),
        jnp.imag(rebuilt),
        jnp.iscomplexobj(filtered),
        (s * 2j + 1).imag,
        jnp.vdot(s, s).real,
    )


def inputs(rng):
    n = 32
    message = jnp.asarray(jnp.sin(jnp.linspace(0, 4 * jnp.pi, n)), dtype=jnp.float32)
    noise_re = rng.standard_normal(n).astype("float32")
    noise_im = rng.standard_normal(n).astype("float32")
    return message, noise_re, noise_im, 100.0, 10.0, 5.0
