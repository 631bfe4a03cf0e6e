import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.stats import gamma, multivariate_normal, norm


def log_posterior(params, X, y):
    w, log_sigma = params["w"], params["log_sigma"]
    sigma = jnp.exp(log_sigma)
    d = w.shape[0]
    prior_w = multivariate_normal.logpdf(w, jnp.zeros(d), 2.0 * jnp.eye(d))
    # Gamma(2, scale=1) prior on sigma, with the log-Jacobian of sigma = exp(log_sigma)
    prior_sigma = gamma.logpdf(sigma, 2.0, scale=1.0) + log_sigma
    lik = jnp.sum(norm.logpdf(y, X @ w, sigma))
    return prior_w + prior_sigma + lik


def run(w, log_sigma, X, y, lr=1e-2):
    params = {"w": w, "log_sigma": log_sigma}
    lp, grads = jax.value_and_grad(log_posterior)(params, X, y)
    params = jax.tree_util.tree_map(lambda p, g: p + lr * g, params, grads)
    resid = (y - X @ params["w"]) / jnp.exp(params["log_sigma"])
    tail = norm.sf(jnp.abs(resid)) * 2
    coverage = jnp.mean(norm.cdf(resid) < 0.975)
    return lp, grads, params, tail, coverage, norm.ppf(jnp.array([0.025, 0.5, 0.975]))


def inputs(rng):
    X = rng.standard_normal((12, 3)).astype("float32")
    w = (rng.standard_normal(3) * 0.5).astype("float32")
    y = (X @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.standard_normal(12)).astype("float32")
    return w, np.float32(-0.5), X, y
