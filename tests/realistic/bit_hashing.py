"""Integer bit manipulation as feature-hashing and sketching code writes it: a murmur3
finaliser on uint32, hashing float features through bitcast_convert_type, a count-min
sketch with .at[].add, a Bloom filter with .at[].max on uint8, popcounts and bit tricks."""

import jax.numpy as jnp
from jax import lax


def fmix32(h):
    h = h ^ (h >> 16)
    h = h * jnp.uint32(0x85EBCA6B)
    h = h ^ (h >> 13)
    h = h * jnp.uint32(0xC2B2AE35)
    return h ^ (h >> 16)


def hash_with_seed(keys, seed):
    return fmix32(keys.astype(jnp.uint32) ^ jnp.uint32(seed * 0x9E3779B9 & 0xFFFFFFFF))


def hash_floats(x):
    bits = lax.bitcast_convert_type(x.astype(jnp.float32), jnp.uint32)
    return fmix32(bits)


def count_min_sketch(keys, width, depth):
    table = jnp.zeros((depth, width), jnp.int32)
    for row in range(depth):
        cols = (hash_with_seed(keys, row + 1) % width).astype(jnp.int32)
        table = table.at[row, cols].add(1)
    return table


def query_sketch(table, keys):
    depth, width = table.shape
    est = [table[r, (hash_with_seed(keys, r + 1) % width).astype(jnp.int32)] for r in range(depth)]
    return jnp.min(jnp.stack(est), axis=0)


def bloom_filter(keys, n_bits, n_hashes):
    bits = jnp.zeros(n_bits, jnp.uint8)
    for i in range(n_hashes):
        idx = hash_with_seed(keys, 100 + i) % jnp.uint32(n_bits)
        bits = bits.at[idx].max(jnp.uint8(1))
    return bits


def bloom_contains(bits, keys, n_hashes):
    present = jnp.ones(keys.shape, jnp.bool_)
    for i in range(n_hashes):
        idx = hash_with_seed(keys, 100 + i) % jnp.uint32(bits.shape[0])
        present &= bits[idx] == 1
    return present


def bit_tricks(x):
    x = x.astype(jnp.uint32)
    lowest = x & (~x + jnp.uint32(1))
    is_pow2 = (x != 0) & ((x & (x - 1)) == 0)
    pop = lax.population_count(x)
    lz = lax.clz(x)
    rotated = (x << 7) | (x >> 25)
    return lowest, is_pow2, pop, lz, rotated


def run(keys, features, queries):
    sketch = count_min_sketch(keys, 16, 3)
    counts = query_sketch(sketch, queries)
    bits = bloom_filter(keys, 64, 3)
    hit = bloom_contains(bits, queries, 3)
    fh = hash_floats(features)
    buckets = (fh % 8).astype(jnp.int32)
    signs = jnp.where((fh >> 31) == 1, -1.0, 1.0)
    hashed = jnp.zeros(8).at[buckets].add(signs * features)
    return sketch, counts, bits.sum(), hit, hashed, bit_tricks(keys)


def inputs(rng):
    keys = jnp.asarray(rng.integers(0, 1000, 40), dtype=jnp.int32)
    features = rng.standard_normal(12).astype("float32")
    queries = jnp.concatenate([keys[:5], jnp.asarray(rng.integers(1000, 2000, 5), jnp.int32)])
    return keys, features, queries
