"""State-space / linear-recurrent layers (S4D, LRU, Mamba-style) with
lax.associative_scan, complex diagonal state matrices, discretisation with exp,
cumulative max / logcumsumexp, a causal depthwise conv with jnp.convolve and a
gated output."""

import jax.numpy as jnp
from jax import lax, nn, vmap


def binary_operator(e_i, e_j):
    a_i, bu_i = e_i
    a_j, bu_j = e_j
    return a_j * a_i, a_j * bu_i + bu_j


def lru_layer(params, u):
    nu = jnp.exp(-jnp.exp(params["nu_log"]))
    theta = jnp.exp(params["theta_log"])
    lam = nu * jnp.exp(1j * theta)  # expect: implicit-promotion
    gamma = jnp.exp(params["gamma_log"])
    B = (params["B_re"] + 1j * params["B_im"]) * gamma[:, None]  # expect: implicit-promotion
    C = params["C_re"] + 1j * params["C_im"]  # expect: implicit-promotion
    Bu = vmap(lambda x: B @ x)(u.astype(jnp.complex64))
    lam_seq = jnp.broadcast_to(lam, Bu.shape)
    _, states = lax.associative_scan(binary_operator, (lam_seq, Bu))
    y = vmap(lambda x: (C @ x).real)(states)
    return y + params["D"] * u


def causal_conv(x, w):
    return vmap(
        lambda c, k: jnp.convolve(c, k, mode="full")[: x.shape[0]], in_axes=(1, 1), out_axes=1
    )(x, w)


def selective_gate(x):
    run_max = lax.cummax(x, axis=0)
    lse = lax.cumlogsumexp(x, axis=0)
    return nn.sigmoid(x - run_max) * jnp.exp(x - lse)


def run(params, u):
    y = lru_layer(params, u)
    y = causal_conv(y, params["conv"])
    out = nn.silu(y) * selective_gate(u)
    energy = jnp.cumsum(jnp.abs(out) ** 2, axis=0)
    phase = jnp.angle(jnp.exp(1j * params["theta_log"]))  # expect: implicit-promotion
    return out, energy[-1], phase


def inputs(rng):
    d, n, L = 3, 4, 16
    params = {
        "nu_log": jnp.log(-jnp.log(jnp.asarray(rng.uniform(0.8, 0.99, n), jnp.float32))),
        "theta_log": jnp.log(jnp.asarray(rng.uniform(0.1, 3.0, n), jnp.float32)),
        "gamma_log": jnp.zeros(n),
        "B_re": (rng.standard_normal((n, d)) / 2).astype("float32"),
        "B_im": (rng.standard_normal((n, d)) / 2).astype("float32"),
        "C_re": (rng.standard_normal((d, n)) / 2).astype("float32"),
        "C_im": (rng.standard_normal((d, n)) / 2).astype("float32"),
        "D": rng.standard_normal(d).astype("float32"),
        "conv": (rng.standard_normal((4, d)) / 2).astype("float32"),
    }
    return params, rng.standard_normal((L, d)).astype("float32")
