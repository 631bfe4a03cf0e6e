"""An image-processing pipeline in the frequency domain: 2-D FFTs with norm="ortho" over
explicit axes of an NHWC batch, a Gaussian low-pass built from fftfreq, rfftn / irfftn with
s=, "forward" normalisation for a power spectrum, and a Hermitian hfft of a 1-D profile."""

import jax.numpy as jnp


def gaussian_lowpass(h, w, sigma):
    fy = jnp.fft.fftfreq(h)[:, None]
    fx = jnp.fft.fftfreq(w)[None, :]
    return jnp.exp(-(fx**2 + fy**2) / (2 * sigma**2))


def run(images, sigma):
    _, h, w, _ = images.shape
    spec = jnp.fft.fft2(images, axes=(1, 2), norm="ortho")
    filtered = spec * gaussian_lowpass(h, w, sigma)[None, :, :, None]
    smooth = jnp.fft.ifft2(filtered, axes=(1, 2), norm="ortho").real
    energy_in = jnp.sum(jnp.abs(images) ** 2)
    energy_spec = jnp.sum(jnp.abs(spec) ** 2)
    r = jnp.fft.rfftn(images, axes=(1, 2))
    back = jnp.fft.irfftn(r, s=(h, w), axes=(1, 2))
    padded = jnp.fft.rfftn(images[..., 0], s=(8, 8), axes=(-2, -1), norm="forward")
    power = jnp.fft.fftshift(jnp.abs(padded) ** 2, axes=(-2,))
    profile = images.mean(axis=(0, 2, 3))
    herm = jnp.fft.hfft(profile[: h // 2 + 1], n=h)
    ih = jnp.fft.ihfft(profile)
    spectrum_1d = jnp.fft.fft(images, n=8, axis=2, norm="backward")
    freqs = jnp.fft.rfftfreq(8, d=0.5)
    return (
        smooth,
        energy_in,
        energy_spec,
        back,
        power,
        herm,
        ih,
        jnp.abs(spectrum_1d).mean(axis=(0, 3)),
        freqs,
        jnp.fft.ifftn(jnp.fft.fftn(images, axes=(0, 3)), axes=(0, 3)).real,
    )


def inputs(rng):
    return rng.standard_normal((2, 6, 5, 3)).astype("float32"), 0.2
