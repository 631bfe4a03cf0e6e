import jax.numpy as jnp
from jax.scipy.special import betaln, digamma, gammaln, logsumexp


def run(x, w, counts):
    z = (x - jnp.nanmean(x, axis=0)) / (jnp.nanstd(x, axis=0) + 1e-6)
    q = jnp.nanpercentile(x, jnp.array([10.0, 50.0, 90.0]), axis=0)
    med = jnp.median(z, axis=1)
    hist, edges = jnp.histogram(z.ravel(), bins=6, range=(-3.0, 3.0))
    cov = jnp.cov(z, rowvar=False)
    corr = jnp.corrcoef(z, rowvar=False)
    wl = logsumexp(z, axis=1, b=w)
    poisson_ll = jnp.sum(counts * jnp.log(3.0) - 3.0 - gammaln(counts + 1))
    beta = betaln(jnp.abs(z) + 1, 2.0).sum() + digamma(jnp.abs(z) + 1).mean()
    ranks = jnp.argsort(jnp.argsort(z, axis=0), axis=0)
    cum = jnp.cumsum(jnp.sort(z, axis=0), axis=0)
    interp = jnp.interp(jnp.linspace(-2, 2, 5), jnp.sort(z[:, 0]), jnp.arange(z.shape[0]) * 1.0)
    return q, med, hist, edges, cov, corr, wl, poisson_ll, beta, ranks, cum, interp


def inputs(rng):
    x = rng.standard_normal((9, 3)).astype("float32")
    x[2, 1] = float("nan")
    w = rng.uniform(0.5, 1.5, size=(9, 3)).astype("float32")
    counts = rng.integers(0, 6, size=9).astype("float32")
    return x, w, counts
