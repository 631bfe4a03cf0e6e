import jax.numpy as jnp


def run(table, ids, updates):
    emb = table[ids]
    emb2 = jnp.take(table, ids, axis=0)
    rows = jnp.take_along_axis(table, jnp.argsort(table, axis=1), axis=1)
    hist = jnp.zeros(table.shape[0], jnp.int32).at[ids].add(1)
    table = table.at[ids[:2]].set(updates)
    seg = jnp.zeros((table.shape[0], table.shape[1])).at[ids].add(emb)
    return emb, emb2, rows, hist, table, seg


def inputs(rng):
    table = jnp.asarray(rng.standard_normal((6, 4)).astype("float32"))
    ids = rng.integers(0, 6, size=(5,)).astype("int32")
    return table, ids, rng.standard_normal((2, 4)).astype("float32")
