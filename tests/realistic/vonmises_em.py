"""EM for a mixture of von Mises distributions on wind directions: responsibilities from
stats.vonmises.logpdf, the concentration update through the Bessel ratio i1e/i0e (Banerjee's
approximation), the log-normaliser with i0e, and a Python-scalar / integer call of each."""

import jax.numpy as jnp
import jax.scipy.stats as stats
from jax import lax, nn
from jax.scipy.special import i0e, i1e, logsumexp


def e_step(theta, mu, kappa, logw):
    logp = stats.vonmises.logpdf(theta[:, None] - mu[None, :], kappa[None, :]) + logw
    return nn.softmax(logp, axis=1), logsumexp(logp, axis=1).sum()


def m_step(theta, resp):
    nk = resp.sum(0)
    c = (resp * jnp.cos(theta)[:, None]).sum(0)
    s = (resp * jnp.sin(theta)[:, None]).sum(0)
    mu = jnp.arctan2(s, c)
    rbar = jnp.sqrt(c**2 + s**2) / nk
    kappa = rbar * (2.0 - rbar**2) / (1.0 - rbar**2)
    return mu, jnp.clip(kappa, 0.1, 50.0), jnp.log(nk / theta.shape[0])


def run(theta):
    mu0 = jnp.array([0.0, 2.5])
    state = (mu0, jnp.ones(2), jnp.log(jnp.full(2, 0.5)))

    def body(state, _):
        resp, ll = e_step(theta, *state)
        return m_step(theta, resp), ll

    (mu, kappa, logw), lls = lax.scan(body, state, None, length=4)
    ratio = i1e(kappa) / i0e(kappa)
    log_norm = jnp.log(2 * jnp.pi * i0e(kappa)) + kappa
    scalars = (i0e(2), i1e(0.5), i0e(jnp.arange(3)), i1e(True))
    return mu, kappa, logw, lls, ratio, log_norm, scalars


def inputs(rng):
    a = rng.vonmises(0.3, 4.0, 8)
    b = rng.vonmises(2.8, 2.0, 6)
    return (jnp.asarray(jnp.concatenate([a, b]).astype("float32")),)
