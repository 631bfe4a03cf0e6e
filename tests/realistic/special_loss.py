import jax.numpy as jnp
from jax.scipy.special import erf, gammaln, logsumexp, xlogy


def poisson_nll(log_rate, counts):
    rate = jnp.exp(log_rate)
    return jnp.sum(rate - xlogy(counts, rate) + gammaln(counts + 1))


def negative_binomial_logpmf(k, total, probs):
    coeff = gammaln(k + total) - gammaln(k + 1) - gammaln(total)
    return coeff + xlogy(total, 1 - probs) + xlogy(k, probs)


def normal_cdf(x, loc=0.0, scale=1.0):
    return 0.5 * (1 + erf((x - loc) / (scale * jnp.sqrt(2.0))))


def mixture_loglik(x, logits, means, log_scales):
    log_weights = logits - logsumexp(logits)
    scales = jnp.exp(log_scales)
    z = (x[:, None] - means) / scales
    comp = -0.5 * z**2 - log_scales - 0.5 * jnp.log(2 * jnp.pi)
    return jnp.sum(logsumexp(log_weights + comp, axis=-1))


def run(counts, log_rate, logits, means, log_scales, x):
    nll = poisson_nll(log_rate, counts)
    nb = negative_binomial_logpmf(counts, 3, 0.4)
    cdf = normal_cdf(x, scale=2)
    ll = mixture_loglik(x, logits, means, log_scales)
    lse, sign = logsumexp(x, b=jnp.where(x > 0, 1.0, -0.5), return_sign=True)
    soft = logsumexp(jnp.stack([x, jnp.zeros_like(x)]), axis=0, keepdims=True)
    return nll, nb, cdf, ll, lse, sign, soft


def inputs(rng):
    counts = rng.poisson(3.0, size=(8,)).astype("int32")
    log_rate = rng.standard_normal(8).astype("float32")
    logits = rng.standard_normal(3).astype("float32")
    means = jnp.array([-1.0, 0.0, 2.0])
    log_scales = rng.standard_normal(3).astype("float32") * 0.1
    return counts, log_rate, logits, means, log_scales, rng.standard_normal(10).astype("float32")
