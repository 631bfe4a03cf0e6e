"""Censored (Tobit) regression and a probit model: log-likelihoods with log_ndtr and ndtr,
the inverse Mills ratio in a stable form with erfcx, ndtri for probit quantiles, and a
few Newton-free gradient steps; expected values via the truncated normal from stats."""

import jax
import jax.numpy as jnp
import jax.scipy.stats as stats
from jax import lax
from jax.scipy.special import erfcx, log_ndtr, ndtr, ndtri


def tobit_nll(params, x, y, censored):
    w, log_s = params
    s = jnp.exp(log_s)
    z = (x @ w - y) / s
    ll_cens = log_ndtr(z)
    ll_obs = stats.norm.logpdf(y, x @ w, s)
    return -jnp.mean(jnp.where(censored, ll_cens, ll_obs))


def mills(z):
    # phi(z) / Phi(-z) = sqrt(2/pi) / erfcx(z / sqrt(2))
    return jnp.sqrt(2.0 / jnp.pi) / erfcx(z / jnp.sqrt(2.0))


def run(x, y_latent):
    censored = y_latent <= 0.0
    y = jnp.where(censored, 0.0, y_latent)

    def step(params, _):
        loss, g = jax.value_and_grad(tobit_nll)(params, x, y, censored)
        return jax.tree_util.tree_map(lambda p, d: p - 0.2 * d, params, g), loss

    init = (jnp.zeros(x.shape[1]), jnp.float32(0.0))
    (w, log_s), losses = lax.scan(step, init, None, length=5)
    s = jnp.exp(log_s)
    mu = x @ w
    expected = ndtr(mu / s) * mu + s * jnp.exp(stats.norm.logpdf(mu / s))
    lam = mills(-mu / s)
    tail = stats.truncnorm.logpdf(y, -mu / s, jnp.inf, loc=mu, scale=s)
    quantiles = ndtri(jnp.array([0.05, 0.5, 0.95]))
    probit = ndtr(x @ w) - ndtr(0.5)
    return w, s, losses, expected, lam, tail, quantiles, probit, log_ndtr(-12.0)


def inputs(rng):
    x = jnp.asarray(rng.standard_normal((10, 2)).astype("float32"))
    y = x @ jnp.array([1.0, -0.5]) + 0.3 * rng.standard_normal(10).astype("float32")
    return x, y.astype(jnp.float32)
