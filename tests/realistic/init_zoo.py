"""Parameter initialisation for a small residual MLP with the nn.initializers zoo: variance
scaling in every mode/distribution, in_axis/out_axis for a conv kernel, explicit dtypes
(bf16 embedding, f16 bias), constants, then one forward pass over the fresh parameters."""

import jax.numpy as jnp
from jax import nn, random
from jax.nn import initializers


def init_params(key, d_in=6, d_hidden=8, vocab=10):
    keys = random.split(key, 8)
    fan_avg = initializers.variance_scaling(2.0, "fan_avg", "uniform")
    fan_out = initializers.variance_scaling(1.0, "fan_out", "truncated_normal")
    conv = initializers.variance_scaling(1.0, "fan_in", "normal", in_axis=-2, out_axis=-1)
    return {
        "embed": initializers.normal(stddev=0.02)(keys[0], (vocab, d_in), jnp.bfloat16),
        "w_in": initializers.xavier_uniform()(keys[1], (d_in, d_hidden)),
        "w_mid": fan_avg(keys[2], (d_hidden, d_hidden)),
        "w_out": fan_out(keys[3], (d_hidden, 3)),
        "conv": conv(keys[4], (3, d_in, 4)),
        "w_k": initializers.kaiming_uniform()(keys[5], (d_hidden, d_hidden)),
        "w_l": initializers.lecun_uniform()(keys[6], (d_hidden, d_hidden)),
        "scale": initializers.uniform(scale=0.5)(keys[7], (d_hidden,)),
        "b_in": initializers.constant(0.1, jnp.float16)(keys[0], (d_hidden,)),
        "b_out": initializers.constant(jnp.array([0.1, -0.1, 0.0]))(keys[0], (3,)),
        "b_mid": initializers.zeros(keys[0], (d_hidden,)),
        "gain": initializers.ones(keys[0], (d_hidden,)),
    }


def forward(params, tokens):
    x = params["embed"][tokens].astype(jnp.float32)
    h = nn.gelu(x @ params["w_in"] + params["b_in"])
    h = h + nn.silu(h @ params["w_mid"] + params["b_mid"]) * params["gain"]
    h = h + jnp.tanh(h @ params["w_k"]) @ params["w_l"] * params["scale"]
    return h @ params["w_out"] + params["b_out"]


def run(seed, tokens):
    params = init_params(random.PRNGKey(seed))
    logits = forward(params, tokens)
    stds = {k: jnp.std(v.astype(jnp.float32)) for k, v in params.items()}
    return params, logits, stds


def inputs(rng):
    return 3, jnp.asarray(rng.integers(0, 10, size=(5,)), dtype=jnp.int32)
