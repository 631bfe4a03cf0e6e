import jax.numpy as jnp
from jax import lax, nn


def assign(points, centroids):
    d2 = jnp.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    return jnp.argmin(d2, axis=-1), jnp.min(d2, axis=-1)


def update(points, centroids, labels):
    k = centroids.shape[0]
    counts = nn.one_hot(labels, k, dtype=points.dtype).sum(axis=0)
    sums = jnp.zeros_like(centroids).at[labels].add(points)
    means = sums / jnp.maximum(counts, 1)[:, None]
    return jnp.where(counts[:, None] > 0, means, centroids), counts


def run(points, centroids, n_iter=6):
    def step(centroids, _):
        labels, dist = assign(points, centroids)
        centroids, _ = update(points, centroids, labels)
        return centroids, dist.sum()

    centroids, inertia = lax.scan(step, centroids, None, length=n_iter)
    labels, _ = assign(points, centroids)
    sizes = jnp.zeros(centroids.shape[0], jnp.int32).at[labels].add(1)
    return centroids, inertia, labels, sizes


def inputs(rng):
    centers = jnp.array([[0.0, 0.0], [3.0, 3.0], [-3.0, 2.0]])
    points = centers[rng.integers(0, 3, size=30)] + 0.5 * rng.standard_normal((30, 2))
    return points.astype("float32"), points[:3].astype("float32")
