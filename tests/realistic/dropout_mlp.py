import jax.numpy as jnp
from jax import nn, random


def init_mlp(key, sizes):
    keys = random.split(key, len(sizes) - 1)
    params = []
    for k, m, n in zip(keys, sizes[:-1], sizes[1:], strict=True):
        w_key, b_key = random.split(k)
        params.append(
            {
                "w": random.normal(w_key, (m, n)) * jnp.sqrt(2.0 / m),
                "b": random.uniform(b_key, (n,), minval=-0.1, maxval=0.1),
            }
        )
    return params


def dropout(key, x, rate, deterministic=False):
    if deterministic or rate == 0.0:
        return x
    keep = random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), jnp.zeros_like(x))


def run(key, x):
    init_key, drop_key, sample_key, noise_key = random.split(key, 4)
    params = init_mlp(init_key, [x.shape[-1], 16, 8, 5])
    h = x
    for i, layer in enumerate(params[:-1]):
        h = nn.relu(h @ layer["w"] + layer["b"])
        h = dropout(random.fold_in(drop_key, i), h, 0.2)
    logits = h @ params[-1]["w"] + params[-1]["b"]
    samples = random.categorical(sample_key, logits, axis=-1)
    gumbel = random.categorical(sample_key, logits, shape=(4, x.shape[0]))
    eps = random.normal(noise_key, x.shape, dtype=x.dtype)
    idx = random.randint(noise_key, (3,), 0, x.shape[0])
    perm = random.permutation(noise_key, x.shape[0])
    return logits, samples, gumbel, x + 0.1 * eps, idx, perm


def inputs(rng):
    return random.key(0), rng.standard_normal((6, 3)).astype("float32")
