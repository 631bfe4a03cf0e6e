import jax.numpy as jnp


def fft_convolve(signal, kernel):
    n = signal.shape[-1] + kernel.shape[-1] - 1
    spec = jnp.fft.rfft(signal, n=n) * jnp.fft.rfft(kernel, n=n)
    return jnp.fft.irfft(spec, n=n)


def low_pass(signal, dt, cutoff):
    n = signal.shape[-1]
    freqs = jnp.fft.rfftfreq(n, d=dt)
    spec = jnp.fft.rfft(signal, axis=-1)
    spec = jnp.where(jnp.abs(freqs) <= cutoff, spec, 0)
    return jnp.fft.irfft(spec, n=n, axis=-1)


def spectral_derivative(signal, dt):
    n = signal.shape[-1]
    k = 2j * jnp.pi * jnp.fft.fftfreq(n, d=dt)
    return jnp.fft.ifft(k * jnp.fft.fft(signal)).real


def run(signal, kernel, dt=0.05):
    conv = fft_convolve(signal, kernel)
    smooth = low_pass(signal, dt, cutoff=2.0)
    power = jnp.abs(jnp.fft.rfft(signal)) ** 2 / signal.shape[-1]
    freqs = jnp.fft.fftshift(jnp.fft.fftfreq(signal.shape[-1], dt))
    centered = jnp.fft.fftshift(jnp.fft.fft(signal), axes=-1)
    deriv = spectral_derivative(signal, dt)
    image = jnp.fft.irfft2(jnp.fft.rfft2(jnp.outer(signal[0], signal[1])), s=(32, 32))
    return conv, smooth, power, freqs, centered, deriv, image


def inputs(rng):
    t = jnp.arange(32) * 0.05
    clean = jnp.sin(2 * jnp.pi * 0.5 * t)
    signal = (clean + 0.3 * rng.standard_normal((2, 32))).astype("float32")
    kernel = jnp.ones(5, dtype=jnp.float32) / 5
    return signal, kernel
