"""A pre-norm transformer block with bfloat16 parameters and float32 compute (every
cast written out), rotary position embeddings, a causal mask, hand-written multi-head
attention beside jax.nn.dot_product_attention, a SwiGLU MLP, and an SGD step that
keeps the parameters bfloat16. The parameters are the state argument. Clean."""

import jax
import jax.numpy as jnp

D, HEADS, FF, SEQ = 32, 4, 64, 8
HEAD = D // HEADS


def init(key):
    ks = jax.random.split(key, 6)

    def dense(k, shape):
        return (jax.random.normal(k, shape) / jnp.sqrt(shape[0])).astype(jnp.bfloat16)

    return {
        "norm1": jnp.ones(D, jnp.bfloat16),
        "norm2": jnp.ones(D, jnp.bfloat16),
        "qkv": dense(ks[0], (D, 3 * D)),
        "out": dense(ks[1], (D, D)),
        "gate": dense(ks[2], (D, FF)),
        "up": dense(ks[3], (D, FF)),
        "down": dense(ks[4], (FF, D)),
    }


def rms_norm(x, scale, eps=1e-6):
    ms = jnp.mean(jnp.square(x), axis=-1, keepdims=True)
    return x * jax.lax.rsqrt(ms + eps) * scale.astype(jnp.float32)


def rotary(x, base=10000.0):
    seq, dim = x.shape[-3], x.shape[-1]
    freqs = base ** (-jnp.arange(0, dim, 2, dtype=jnp.float32) / dim)
    angles = jnp.arange(seq, dtype=jnp.float32)[:, None] * freqs[None, :]
    sin, cos = jnp.sin(angles)[:, None, :], jnp.cos(angles)[:, None, :]
    x1, x2 = x[..., ::2], x[..., 1::2]
    rotated = jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
    return rotated.reshape(x.shape)


def attention(q, k, v):
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(HEAD).astype(q.dtype)
    causal = jnp.tril(jnp.ones((q.shape[1], k.shape[1]), dtype=bool))
    logits = jnp.where(causal, logits, jnp.finfo(logits.dtype).min)
    weights = jax.nn.softmax(logits, axis=-1)
    return jnp.einsum("bhqk,bkhd->bqhd", weights, v)


def block(params, x, fused=False):
    b, s, _ = x.shape
    h = rms_norm(x, params["norm1"])
    qkv = h @ params["qkv"].astype(jnp.float32)
    q, k, v = jnp.split(qkv.reshape(b, s, 3, HEADS, HEAD), 3, axis=2)
    q, k, v = rotary(q[:, :, 0]), rotary(k[:, :, 0]), v[:, :, 0]
    att = jax.nn.dot_product_attention(q, k, v, is_causal=True) if fused else attention(q, k, v)
    x = x + att.reshape(b, s, D) @ params["out"].astype(jnp.float32)
    h = rms_norm(x, params["norm2"])
    gate = jax.nn.silu(h @ params["gate"].astype(jnp.float32))
    up = h @ params["up"].astype(jnp.float32)
    return x + (gate * up) @ params["down"].astype(jnp.float32)


def loss_fn(params, x, target):
    y = block(params, x) + block(params, x, fused=True)
    return jnp.mean(jnp.square(y - target))


@jax.jit
def train_step(params, x, target, lr=1e-2):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, target)
    params = jax.tree.map(
        lambda p, g: (p.astype(jnp.float32) - lr * g.astype(jnp.float32)).astype(p.dtype),
        params,
        grads,
    )
    return params, loss


def lint_target():
    params = jax.eval_shape(init, jax.random.key(0))
    x = jax.ShapeDtypeStruct((2, SEQ, D), jnp.float32)
    return train_step, (params, x, x), {"state_argnums": 0}
