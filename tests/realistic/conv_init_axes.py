"""Initialising a small conv net the way Flax/Haiku layers do: variance_scaling with
in_axis/out_axis/batch_axis for stacked heads, orthogonal(column_axis=),
delta_orthogonal for a 2-D conv; one forward pass with
lax.conv_general_dilated and the per-layer fan statistics."""

import jax.numpy as jnp
from jax import lax, nn, random
from jax.nn import initializers as init


def init_params(key):
    ks = random.split(key, 3)
    return {
        "conv1": init.delta_orthogonal(scale=1.2)(ks[0], (3, 3, 2, 4)),
        "heads": init.variance_scaling(
            1.0, "fan_avg", "uniform", in_axis=-2, out_axis=-1, batch_axis=0
        )(ks[1], (3, 4, 2)),
        "proj": init.orthogonal(scale=0.5, column_axis=0)(ks[2], (4, 6)),
    }


def conv(x, w):
    return lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


def run(seed, images, offsets):
    p = init_params(random.key(seed))
    h = nn.gelu(conv(images.astype(p["conv1"].dtype), p["conv1"]))
    pooled = h.mean(axis=(1, 2)) + offsets[:, None]
    heads = jnp.einsum("bc,hco->bho", pooled, p["heads"])
    proj = pooled @ p["proj"]
    gram = p["proj"] @ p["proj"].T
    stds = {k: jnp.std(v.astype(jnp.float32)) for k, v in p.items()}
    return heads, proj, gram, stds


def inputs(rng):
    images = rng.standard_normal((2, 5, 5, 2)).astype("float32")
    return 3, images, jnp.array([1, 4])
