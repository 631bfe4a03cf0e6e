import jax.numpy as jnp


def run(x, w, bil, a, c, mask):
    scores = jnp.einsum("bqd,bkd->bqk", x, x) / jnp.sqrt(x.shape[-1])
    scores = jnp.where(mask[:, None, :], scores, jnp.finfo(scores.dtype).min)
    proj = jnp.einsum("...ij,jk->...ik", x, w)
    gram = jnp.einsum("bi,bj->bij", a, a)
    traces = jnp.einsum("bii->b", gram)
    bilinear = jnp.einsum("bi,oij,bj->bo", a, bil, c)
    half = jnp.einsum("bd,dk->bk", a, w.astype(jnp.float16))
    counts = jnp.einsum("bk,bk->b", mask.astype(jnp.int32), mask.astype(jnp.int32))
    pooled = jnp.einsum("bkd,bk->bd", x, mask) / jnp.sum(mask, axis=-1, keepdims=True)
    wide = jnp.einsum("bd,dk->bk", a, w, preferred_element_type=jnp.float32)
    return scores, proj, traces, bilinear, half, counts, pooled, wide


def inputs(rng):
    def f(*s):
        return rng.standard_normal(s).astype("float32")

    mask = rng.uniform(size=(2, 5)) > 0.3
    mask[:, 0] = True
    return f(2, 5, 4), f(4, 3), f(2, 4, 4), f(2, 4), f(2, 4), mask
