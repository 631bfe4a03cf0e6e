"""Feature hashing and a counter-based PRNG in pure integer arithmetic: uint32 xorshift and
multiply-shift hashes with jnp.left_shift / right_shift / bitwise ops, lax.shift_right_logical
on int32, signed floor division and remainder, jnp.gcd / lcm, rotations with uint8 wraparound,
and a bucketed histogram via jnp.bincount with length=."""

import jax.numpy as jnp
from jax import lax


def xorshift32(x):
    x = x ^ jnp.left_shift(x, jnp.uint32(13))
    x = x ^ jnp.right_shift(x, jnp.uint32(17))
    return x ^ (x << 5)


def murmur_mix(x):
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x85EBCA6B)
    x = x ^ (x >> 13)
    x = x * jnp.uint32(0xC2B2AE35)
    return x ^ (x >> 16)


def run(token_ids, signed, buckets):
    u = token_ids.astype(jnp.uint32)
    h = murmur_mix(xorshift32(u + jnp.uint32(0x9E3779B9)))
    bucket = (h % buckets).astype(jnp.int32)
    sign = jnp.where(jnp.bitwise_and(h, 1) == 1, 1, -1)
    hist = jnp.bincount(bucket, weights=sign, length=8)
    logical = lax.shift_right_logical(signed, jnp.int32(28))
    arith = lax.shift_right_arithmetic(signed, jnp.int32(28))
    floor_q, floor_r = jnp.floor_divide(signed, 7), jnp.remainder(signed, 7)
    q, r = jnp.divmod(signed, -5)
    fm = jnp.fmod(signed, 5)
    g, lcm = jnp.gcd(token_ids, 12), jnp.lcm(token_ids % 10 + 1, 4)
    b = (token_ids * 37).astype(jnp.uint8)
    rot = jnp.bitwise_or(b << 3, b >> 5)
    pop = lax.population_count(h)
    inv = jnp.invert(b) ^ jnp.uint8(0xF0)
    return h, bucket, hist, logical, arith, floor_q, floor_r, q, r, fm, g, lcm, rot, pop, inv


def inputs(rng):
    token_ids = jnp.asarray(rng.integers(0, 50000, size=(10,)), dtype=jnp.int32)
    signed = jnp.asarray(rng.integers(-(2**31), 2**31 - 1, size=(10,)), dtype=jnp.int32)
    return token_ids, signed, 8
