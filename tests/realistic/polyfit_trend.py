"""Polynomial trend fitting as data-analysis code writes it: jnp.polyfit (weighted, with
full=False) and jnp.polyval, derivative and integral of the fitted polynomial
(jnp.polyder / polyint), its roots with jnp.roots(strip_zeros=False), and detrending."""

import jax.numpy as jnp


def run(t, y, w):
    coeffs = jnp.polyfit(t, y, 3)
    weighted = jnp.polyfit(t, y, 2, w=w)
    trend = jnp.polyval(coeffs, t)
    slope = jnp.polyval(jnp.polyder(coeffs), t)
    area = jnp.polyval(jnp.polyint(coeffs), t[-1]) - jnp.polyval(jnp.polyint(coeffs), t[0])
    roots = jnp.roots(weighted, strip_zeros=False)
    residual = y - trend
    product = jnp.polymul(coeffs, jnp.array([1.0, -1.0]))
    return coeffs, weighted, trend, slope, area, jnp.sort_complex(roots), residual.std(), product


def inputs(rng):
    t = jnp.linspace(-1.0, 1.0, 12)
    y = (1.0 - 2.0 * t + 0.5 * t**3 + 0.05 * rng.standard_normal(12)).astype("float32")
    w = rng.uniform(0.5, 1.5, 12).astype("float32")
    return t, y, w
