"""A sensor-fusion preprocessing stage: cross-correlation with jnp.correlate in every mode
to find the lag between two streams, Savitzky-Golay-like smoothing by jnp.convolve with
mode="valid" and "same", lax.reduce_window with SAME padding for a rolling max, windowed
means via cumsum, and jnp.pad with mode="edge" / "reflect"."""

import jax.numpy as jnp
from jax import lax


def rolling_mean(x, w):
    c = jnp.cumsum(jnp.pad(x, (1, 0)))
    return (c[w:] - c[:-w]) / w


def run(a, b, lag_max):
    full = jnp.correlate(a - a.mean(), b - b.mean(), mode="full")
    lags = jnp.arange(-b.shape[0] + 1, a.shape[0])
    best = lags[jnp.argmax(full)]
    valid = jnp.correlate(a, b[:5], mode="valid")
    same = jnp.correlate(a, b[:5], mode="same")
    kernel = jnp.array([-3.0, 12.0, 17.0, 12.0, -3.0]) / 35.0
    smooth_valid = jnp.convolve(a, kernel, mode="valid")
    smooth_same = jnp.convolve(jnp.pad(a, 2, mode="edge"), kernel, mode="same")[2:-2]
    rmax = lax.reduce_window(a, -jnp.inf, lax.max, (5,), (1,), "SAME")
    rmin = lax.reduce_window(a, jnp.inf, lax.min, (3,), (2,), ((1, 1),))
    rmean = rolling_mean(a, 4)
    reflected = jnp.pad(b, (3, 3), mode="reflect")
    clipped_lag = jnp.clip(best, -lag_max, lag_max)
    return (
        full,
        best,
        valid,
        same,
        smooth_valid,
        smooth_same,
        rmax,
        rmin,
        rmean,
        reflected,
        clipped_lag,
    )


def inputs(rng):
    base = rng.standard_normal(24).astype("float32")
    a = base + 0.1 * rng.standard_normal(24).astype("float32")
    b = jnp.roll(base, 3)[:20] + 0.1 * rng.standard_normal(20).astype("float32")
    return a, b, 5
