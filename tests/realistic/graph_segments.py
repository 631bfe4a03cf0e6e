import jax.numpy as jnp
from jax import lax, nn
from jax.ops import segment_max, segment_sum


def message_passing(node_feats, senders, receivers, w_msg, w_upd, n_nodes, steps=3):
    """A graph network: messages summed and max-pooled per receiver with jax.ops'
    segment reductions, node states updated in a fori_loop."""
    degree = segment_sum(jnp.ones_like(senders), receivers, num_segments=n_nodes)

    def step(_, h):
        msgs = nn.relu(h[senders] @ w_msg)
        summed = segment_sum(msgs, receivers, num_segments=n_nodes, indices_are_sorted=True)
        pooled = segment_max(msgs, receivers, num_segments=n_nodes)
        pooled = jnp.where(jnp.isfinite(pooled), pooled, 0.0)
        mean = summed / jnp.maximum(degree, 1)[:, None]
        return jnp.tanh(jnp.concatenate([h, mean, pooled], axis=-1) @ w_upd)

    return lax.fori_loop(0, steps, step, node_feats), degree


def graph_readout(h, graph_ids, n_graphs):
    total = segment_sum(h, graph_ids, n_graphs, bucket_size=3)
    count = segment_sum(jnp.ones(h.shape[0]), graph_ids, n_graphs)
    return total / count[:, None], count


def run(node_feats, senders, receivers, graph_ids, w_msg, w_upd):
    h, degree = message_passing(node_feats, senders, receivers, w_msg, w_upd, 6)
    readout, count = graph_readout(h, graph_ids, 2)
    return h, degree, readout, count


def inputs(rng):
    senders = rng.integers(0, 6, 10).astype("int32")
    receivers = jnp.sort(rng.integers(0, 6, 10)).astype("int32")

    def f(*s):
        return (0.5 * rng.standard_normal(s)).astype("float32")

    return (f(6, 4), senders, receivers, jnp.array([0, 0, 0, 1, 1, 1], "int32"), f(4, 4), f(12, 4))
