"""NeRF: stratified sampling along rays, sinusoidal positional encoding, a tiny MLP field
and volume rendering (alpha compositing with cumprod), plus the photometric loss / PSNR."""

import jax.numpy as jnp
from jax import nn, random


def positional_encoding(x, num_freqs, include_input=True):
    freqs = 2.0 ** jnp.arange(num_freqs)  # expect: implicit-promotion
    xb = x[..., None, :] * freqs[:, None]
    enc = jnp.concatenate([jnp.sin(xb), jnp.cos(xb)], axis=-1)
    enc = enc.reshape(*x.shape[:-1], -1)
    if include_input:
        enc = jnp.concatenate([x, enc], axis=-1)
    return enc


def sample_along_rays(key, origins, directions, near, far, num_samples, randomized=True):
    t = jnp.linspace(near, far, num_samples + 1)
    lower, upper = t[:-1], t[1:]
    if randomized:
        u = random.uniform(key, (*origins.shape[:-1], num_samples))
        t_vals = lower + (upper - lower) * u
    else:
        t_vals = jnp.broadcast_to(0.5 * (lower + upper), (*origins.shape[:-1], num_samples))
    points = origins[..., None, :] + t_vals[..., :, None] * directions[..., None, :]
    return t_vals, points


def mlp(params, x):
    for w, b in params[:-1]:
        x = nn.relu(x @ w + b)
    w, b = params[-1]
    out = x @ w + b
    return nn.sigmoid(out[..., :3]), nn.softplus(out[..., 3] - 1.0)


def volume_render(rgb, sigma, t_vals, directions, white_bkgd=True):
    eps = 1e-10
    dists = jnp.concatenate(
        [t_vals[..., 1:] - t_vals[..., :-1], jnp.broadcast_to(1e10, t_vals[..., :1].shape)],
        axis=-1,
    )
    dists = dists * jnp.linalg.norm(directions[..., None, :], axis=-1)
    alpha = 1.0 - jnp.exp(-sigma * dists)
    trans = jnp.cumprod(1.0 - alpha + eps, axis=-1)
    trans = jnp.concatenate([jnp.ones_like(trans[..., :1]), trans[..., :-1]], axis=-1)
    weights = alpha * trans
    comp_rgb = (weights[..., None] * rgb).sum(axis=-2)
    depth = (weights * t_vals).sum(axis=-1)
    acc = weights.sum(axis=-1)
    disp = 1.0 / jnp.maximum(eps, depth / jnp.maximum(acc, eps))
    if white_bkgd:
        comp_rgb = comp_rgb + (1.0 - acc[..., None])
    return comp_rgb, disp, acc, weights


def run(params, key, origins, directions, target):
    t_vals, points = sample_along_rays(key, origins, directions, 2.0, 6.0, 16)
    enc = positional_encoding(points, 4)
    rgb, sigma = mlp(params, enc)
    comp_rgb, disp, acc, _ = volume_render(rgb, sigma, t_vals, directions)
    mse = jnp.mean((comp_rgb - target) ** 2)
    psnr = -10.0 * jnp.log(mse) / jnp.log(10.0)
    return comp_rgb, disp, acc, psnr


def inputs(rng):
    in_dim = 3 + 3 * 2 * 4
    sizes = [in_dim, 32, 32, 4]
    params = [
        ((rng.standard_normal((a, b)) / jnp.sqrt(a)).astype("float32"), jnp.zeros(b))
        for a, b in zip(sizes[:-1], sizes[1:], strict=True)  # noqa: RUF007
    ]
    n_rays = 8
    origins = rng.standard_normal((n_rays, 3)).astype("float32") * 0.1
    d = rng.standard_normal((n_rays, 3)).astype("float32")
    directions = d / jnp.linalg.norm(d, axis=-1, keepdims=True)
    target = rng.uniform(size=(n_rays, 3)).astype("float32")
    return params, random.PRNGKey(3), origins, directions, target
