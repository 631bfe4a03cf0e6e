"""Mixture-of-experts layer (Switch / GShard style): router softmax, top-k experts,
capacity via cumsum of one-hot masks, dispatch/combine tensors with einsum, load-balance
and router z-losses."""

import jax.numpy as jnp
from jax import lax, nn


def router(x, w_gate, num_selected, capacity):
    logits = x @ w_gate
    probs = nn.softmax(logits.astype(jnp.float32), axis=-1)
    num_experts = w_gate.shape[-1]
    gates, experts = lax.top_k(probs, num_selected)
    gates = gates / jnp.sum(gates, axis=-1, keepdims=True)
    # (tokens, k, experts)
    expert_mask = nn.one_hot(experts, num_experts, dtype=jnp.int32)
    # position of each token in its expert's buffer, earlier choices first
    flat = expert_mask.transpose(1, 0, 2).reshape(-1, num_experts)
    position = (jnp.cumsum(flat, axis=0) - 1) * flat
    position = position.reshape(num_selected, -1, num_experts).transpose(1, 0, 2)
    keep = (position < capacity) & (expert_mask > 0)
    position = jnp.sum(position * keep, axis=-1)  # expect: implicit-promotion
    kept = jnp.any(keep, axis=-1)
    dispatch = (
        nn.one_hot(experts, num_experts, dtype=jnp.bool_)[..., None]
        & nn.one_hot(position, capacity, dtype=jnp.bool_)[..., None, :]
        & kept[..., None, None]
    )
    combine = gates[..., None, None] * dispatch  # expect: implicit-promotion
    dispatch = dispatch.any(axis=1)
    combine = combine.sum(axis=1)
    # auxiliary losses
    density = jnp.mean(expert_mask[:, 0, :].astype(jnp.float32), axis=0)
    density_proxy = jnp.mean(probs, axis=0)
    balance_loss = jnp.mean(density * density_proxy) * num_experts**2
    z_loss = jnp.mean(jnp.square(nn.logsumexp(logits, axis=-1)))
    return dispatch, combine, balance_loss, z_loss


def experts_ffn(params, x):
    h = nn.gelu(jnp.einsum("ecd,edh->ech", x, params["wi"]))
    return jnp.einsum("ech,ehd->ecd", h, params["wo"])


def moe_layer(params, x, num_selected=2, capacity_factor=1.25):
    tokens, _ = x.shape
    num_experts = params["gate"].shape[-1]
    capacity = int(capacity_factor * tokens * num_selected / num_experts)
    dispatch, combine, balance, z = router(x, params["gate"], num_selected, capacity)
    expert_in = jnp.einsum("tec,td->ecd", dispatch.astype(x.dtype), x)
    expert_out = experts_ffn(params, expert_in)
    y = jnp.einsum("tec,ecd->td", combine.astype(x.dtype), expert_out)
    dropped = jnp.sum(~dispatch.any(axis=(1, 2)))
    return y, balance, z, dropped


def run(params, x):
    y, balance, z, dropped = moe_layer(params, x)
    loss = jnp.mean(y**2) + 1e-2 * balance + 1e-3 * z
    return y, loss, dropped


def inputs(rng):
    d, h, e, t = 8, 16, 4, 12
    params = {
        "gate": rng.standard_normal((d, e)).astype("float32"),
        "wi": (rng.standard_normal((e, d, h)) * 0.3).astype("float32"),
        "wo": (rng.standard_normal((e, h, d)) * 0.3).astype("float32"),
    }
    return params, rng.standard_normal((t, d)).astype("float32")
