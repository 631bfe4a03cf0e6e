import jax.numpy as jnp
from jax import lax, nn
from jax.ops import segment_sum


def message_passing(h, senders, receivers, w_msg, w_upd, n_nodes):
    msgs = nn.relu(h[senders] @ w_msg)
    agg = segment_sum(msgs, receivers, num_segments=n_nodes)
    deg = segment_sum(jnp.ones_like(receivers, dtype=h.dtype), receivers, num_segments=n_nodes)
    agg = agg / jnp.maximum(deg, 1)[:, None]
    return nn.tanh(jnp.concatenate([h, agg], axis=-1) @ w_upd)


def run(h, senders, receivers, w_msg, w_upd):
    n = h.shape[0]
    for _ in range(2):
        h = message_passing(h, senders, receivers, w_msg, w_upd, n)
    graph = jnp.mean(h, axis=0)
    adj = jnp.zeros((n, n), jnp.int32).at[senders, receivers].add(1)
    degree_hist = jnp.bincount(adj.sum(1), length=5)
    top = lax.top_k(h[:, 0], 2)
    return graph, adj, degree_hist, top, jnp.linalg.norm(h, axis=1)


def inputs(rng):
    h = rng.standard_normal((5, 4)).astype("float32")
    senders = jnp.array([0, 1, 2, 3, 4, 0, 2], jnp.int32)
    receivers = jnp.array([1, 2, 3, 4, 0, 2, 0], jnp.int32)
    w_msg = (rng.standard_normal((4, 4)) * 0.5).astype("float32")
    w_upd = (rng.standard_normal((8, 4)) * 0.5).astype("float32")
    return h, senders, receivers, w_msg, w_upd
