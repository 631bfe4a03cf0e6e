"""Robust statistics and data cleaning as analysis notebooks do it in JAX: nan-aware
reductions, median / quantile / percentile, MAD outlier flags, winsorising with clip,
interpolating gaps with jnp.interp, digitize / histogram binning, unique with size,
nonzero with size and fill, weighted covariance and correlation."""

import jax.numpy as jnp


def mad_outliers(x, thresh=3.5):
    med = jnp.nanmedian(x, axis=0)
    mad = jnp.nanmedian(jnp.abs(x - med), axis=0)
    z = 0.6745 * (x - med) / jnp.where(mad == 0, 1.0, mad)
    return jnp.abs(z) > thresh


def fill_gaps(t, y):
    ok = ~jnp.isnan(y)
    idx = jnp.nonzero(ok, size=y.shape[0], fill_value=0)[0]
    n_ok = ok.sum()
    tp = jnp.where(jnp.arange(y.shape[0]) < n_ok, t[idx], jnp.inf)
    fp = jnp.where(jnp.arange(y.shape[0]) < n_ok, y[idx], 0.0)
    return jnp.where(ok, y, jnp.interp(t, tp, fp))


def winsorize(x, lower=5, upper=95):
    lo, hi = jnp.nanpercentile(x, jnp.array([lower, upper]), axis=0)
    return jnp.clip(x, lo, hi)


def run(t, data, labels, weights):
    outliers = mad_outliers(data)
    clean = jnp.where(outliers, jnp.nan, data)
    means = jnp.nanmean(clean, axis=0)
    stds = jnp.nanstd(clean, axis=0, ddof=1)
    counts = jnp.sum(~jnp.isnan(clean), axis=0)
    filled = jnp.stack([fill_gaps(t, clean[:, j]) for j in range(clean.shape[1])], axis=1)
    wins = winsorize(filled)
    q = jnp.quantile(filled, jnp.array([0.25, 0.5, 0.75]), axis=0, method="linear")
    iqr = q[2] - q[0]
    bins = jnp.digitize(filled[:, 0], jnp.linspace(-2.0, 2.0, 5))
    hist, edges = jnp.histogram(filled[:, 1], bins=6, range=(-3.0, 3.0))
    uniq, inv, cnt = jnp.unique(
        labels, size=5, fill_value=-1, return_inverse=True, return_counts=True
    )
    cov = jnp.cov(filled.T, aweights=weights)
    corr = jnp.corrcoef(filled.T)
    top = jnp.argmax(jnp.nan_to_num(clean[:, 0], nan=-jnp.inf))
    return (
        means,
        stds,
        counts,
        wins,
        q,
        iqr,
        bins,
        hist,
        edges,
        uniq,
        inv,
        cnt,
        cov,
        corr,
        top,
        jnp.nanargmin(clean, axis=0),
        jnp.median(filled),
    )


def inputs(rng):
    n = 30
    t = jnp.linspace(0.0, 1.0, n, dtype=jnp.float32)
    data = rng.standard_normal((n, 3)).astype("float32")
    data[[3, 17], 0] = [15.0, -12.0]
    data[[5, 6, 20], 1] = float("nan")
    labels = jnp.asarray(rng.integers(0, 4, n), dtype=jnp.int32)
    weights = rng.uniform(0.5, 2.0, n).astype("float32")
    return t, data, labels, weights
