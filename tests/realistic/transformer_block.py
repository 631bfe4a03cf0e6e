import jax
import jax.numpy as jnp
from jax import lax, nn, random
from jax.nn import initializers

N_HEADS = 2


def layer_norm(x, scale, bias, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + eps) * scale + bias


def attention(p, x, mask):
    b, t, d = x.shape
    head = d // N_HEADS
    q, k, v = (jnp.reshape(x @ p[name], (b, t, N_HEADS, head)) for name in ("wq", "wk", "wv"))
    logits = jnp.einsum("bthd,bshd->bhts", q, k) / jnp.sqrt(head).astype(x.dtype)
    weights = nn.softmax(logits, axis=-1, where=mask[:, None])
    out = jnp.einsum("bhts,bshd->bthd", weights, v).reshape(b, t, d)
    return out @ p["wo"]


def block(p, x, mask):
    h = x + attention(p, layer_norm(x, p["ln1_scale"], p["ln1_bias"]), mask)
    y = layer_norm(h, p["ln2_scale"], p["ln2_bias"])
    y = nn.gelu(y @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]
    return h + nn.gelu(y, approximate=False) * 0.5


def run(params, tokens, lengths):
    vocab = params["embed"].shape[0]
    t = tokens.shape[1]
    x = nn.one_hot(tokens, vocab) @ params["embed"] + params["pos"][:t]
    causal = jnp.tril(jnp.ones((t, t), dtype=bool))
    valid = jnp.arange(t)[None, :] < lengths[:, None]
    mask = causal[None, :, :] & valid[:, None, :]
    x = block(params["block"], x, mask)
    logits = x @ params["embed"].T
    logp = nn.log_softmax(logits, axis=-1)
    targets = nn.one_hot(jnp.roll(tokens, -1, axis=1), vocab, dtype=logp.dtype)
    loss = -jnp.sum(targets * logp, axis=-1)
    loss = jnp.sum(jnp.where(valid, loss, 0.0)) / jnp.sum(valid)
    return logits, loss


def inputs(rng):
    d, vocab, t = 8, 11, 6
    keys = random.split(random.key(0), 8)
    dense = initializers.glorot_uniform()
    block_params = {
        "wq": dense(keys[0], (d, d)),
        "wk": dense(keys[1], (d, d)),
        "wv": dense(keys[2], (d, d)),
        "wo": dense(keys[3], (d, d)),
        "w1": initializers.he_normal()(keys[4], (d, 4 * d)),
        "b1": initializers.zeros(keys[4], (4 * d,)),
        "w2": initializers.lecun_normal()(keys[5], (4 * d, d)),
        "b2": jnp.zeros(d),
        "ln1_scale": jnp.ones(d),
        "ln1_bias": jnp.zeros(d),
        "ln2_scale": jnp.ones(d),
        "ln2_bias": jnp.zeros(d),
    }
    params = {
        "embed": initializers.normal(0.02)(keys[6], (vocab, d)),
        "pos": initializers.truncated_normal(0.02)(keys[7], (16, d)),
        "block": block_params,
    }
    tokens = rng.integers(0, vocab, size=(3, t)).astype("int32")
    lengths = jax.numpy.array([6, 4, 1], dtype=jnp.int32)
    return params, tokens, lengths
