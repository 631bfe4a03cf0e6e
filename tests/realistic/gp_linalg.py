import jax.numpy as jnp


def rbf(x1, x2, lengthscale, variance):
    d2 = jnp.sum((x1[:, None, :] - x2[None, :, :]) ** 2, axis=-1)
    return variance * jnp.exp(-0.5 * d2 / lengthscale**2)


def gp_posterior(x, y, xs, lengthscale=0.7, variance=1.5, noise=0.1):
    n = x.shape[0]
    k = rbf(x, x, lengthscale, variance) + noise * jnp.eye(n)
    chol = jnp.linalg.cholesky(k)
    alpha = jnp.linalg.solve(chol.T, jnp.linalg.solve(chol, y))
    ks = rbf(xs, x, lengthscale, variance)
    mean = ks @ alpha
    v = jnp.linalg.solve(chol, ks.T)
    var = variance - jnp.sum(v**2, axis=0)
    sign, logdet = jnp.linalg.slogdet(k)
    nll = 0.5 * y @ alpha + 0.5 * logdet + 0.5 * n * jnp.log(2 * jnp.pi)
    evals = jnp.linalg.eigh(k)[0]
    return mean, var, nll, sign, evals


def linear_regression(x, y, ridge=1e-3):
    design = jnp.concatenate([x, jnp.ones((x.shape[0], 1), x.dtype)], axis=1)
    w_lstsq, _, rank, sv = jnp.linalg.lstsq(design, y, rcond=None)
    gram = design.T @ design + ridge * jnp.eye(design.shape[1])
    w_ridge = jnp.linalg.inv(gram) @ design.T @ y
    u, s, vt = jnp.linalg.svd(design, full_matrices=False)
    w_svd = vt.T @ ((u.T @ y) / s)
    err = jnp.linalg.norm(w_ridge - w_lstsq) + jnp.linalg.norm(w_svd - w_lstsq, ord=jnp.inf)
    cond = s[0] / s[-1]
    return w_lstsq, rank, sv, w_ridge, err, cond, jnp.linalg.norm(design, "fro")


def run(x, y, xs):
    return gp_posterior(x, y, xs), linear_regression(x, y)


def inputs(rng):
    x = rng.uniform(-2, 2, size=(12, 2)).astype("float32")
    y = (jnp.sin(x[:, 0]) + 0.5 * x[:, 1]).astype("float32")
    return x, y, rng.uniform(-2, 2, size=(5, 2)).astype("float32")
