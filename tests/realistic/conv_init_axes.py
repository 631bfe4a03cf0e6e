"""Initialising a small conv net the way Flax/Haiku layers do: variance_scaling with
in_axis/out_axis/batch_axis for HWIO kernels and stacked heads, orthogonal(column_axis=),
delta_orthogonal for a 2-D conv, truncated-normal embeddings; one forward pass with
lax.conv_general_dilated and the per-layer fan statistics."""

import jax.numpy as jnp
from jax import lax, nn, random
from jax.nn import initializers as init


def init_params(key):
    ks = random.split(key, 6)
    return {
        "conv1": init.delta_orthogonal(scale=1.2)(ks[0], (3, 3, 2, 4)),
        "conv2": init.variance_scaling(2.0, "fan_in", "truncated_normal", in_axis=(0, 1, 2))(
            ks[1], (3, 3, 4, 4)
        ),
        "heads": init.variance_scaling(
            1.0, "fan_avg", "uniform", in_axis=-2, out_axis=-1, batch_axis=0
        )(ks[2], (3, 4, 2)),
        "proj": init.orthogonal(scale=0.5, column_axis=0)(ks[3], (4, 6)),
        "embed": init.truncated_normal(0.02, lower=-1.5, upper=1.5)(ks[4], (5, 4)),
        "gate": init.lecun_normal(in_axis=1, out_axis=0, dtype=jnp.bfloat16)(ks[5], (4, 4)),
    }


def conv(x, w):
    return lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


def run(seed, images, tokens):
    p = init_params(random.key(seed))
    h = nn.gelu(conv(images.astype(p["conv1"].dtype), p["conv1"]))
    h = nn.relu(conv(h, p["conv2"]))
    pooled = h.mean(axis=(1, 2)) + p["embed"][tokens]
    heads = jnp.einsum("bc,hco->bho", pooled, p["heads"])
    proj = pooled @ p["proj"]
    gated = nn.sigmoid(pooled.astype(jnp.bfloat16) @ p["gate"])
    gram = p["proj"] @ p["proj"].T
    stds = {k: jnp.std(v.astype(jnp.float32)) for k, v in p.items()}
    return heads, proj, gated, gram, stds


def inputs(rng):
    images = rng.standard_normal((2, 5, 5, 2)).astype("float32")
    return 3, images, jnp.array([1, 4])
