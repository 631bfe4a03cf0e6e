"""An MLP regression step with an optax-style Adam written out as pure functions over
pytrees: an int32 step count, bias correction in float32, a warmup-cosine schedule,
global-norm gradient clipping, layer norm and dropout from a key carried in the state.
The parameters and the optimizer state are the state arguments. Clean."""

import itertools

import jax
import jax.numpy as jnp

SIZES = (12, 32, 32, 1)
WARMUP, TOTAL = 10, 200


def init_params(key):
    params = []
    for din, dout in itertools.pairwise(SIZES):
        key, sub = jax.random.split(key)
        limit = jnp.sqrt(6.0 / (din + dout))
        w = jax.random.uniform(sub, (din, dout), minval=-limit, maxval=limit)
        params.append({"w": w, "b": jnp.zeros(dout), "scale": jnp.ones(dout)})
    return params


def adam_init(params):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return {"count": jnp.zeros((), jnp.int32), "mu": zeros, "nu": zeros}


def layer_norm(x, scale, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * scale


def forward(params, x, key, rate=0.1):
    *hidden, last = params
    for layer in hidden:
        x = jax.nn.gelu(layer_norm(x @ layer["w"] + layer["b"], layer["scale"]))
        key, sub = jax.random.split(key)
        keep = jax.random.bernoulli(sub, 1.0 - rate, x.shape)
        x = jnp.where(keep, x / (1.0 - rate), 0.0)
    return (x @ last["w"] + last["b"])[..., 0]


def loss_fn(params, x, y, key):
    pred = forward(params, x, key)
    return jnp.mean(optax_like_huber(pred - y))


def optax_like_huber(err, delta=1.0):
    abs_err = jnp.abs(err)
    quadratic = jnp.minimum(abs_err, delta)
    return 0.5 * quadratic**2 + delta * (abs_err - quadratic)


def schedule(count, peak=1e-3):
    t = count.astype(jnp.float32)
    warm = peak * t / WARMUP
    progress = jnp.clip((t - WARMUP) / (TOTAL - WARMUP), 0.0, 1.0)
    cosine = 0.5 * peak * (1.0 + jnp.cos(jnp.pi * progress))
    return jnp.where(t < WARMUP, warm, cosine)


def clip_by_global_norm(grads, max_norm=1.0):
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
    factor = jnp.minimum(1.0, max_norm / (norm + 1e-6))
    return jax.tree.map(lambda g: g * factor, grads), norm


def adam_update(grads, state, b1=0.9, b2=0.999, eps=1e-8):
    count = state["count"] + 1
    mu = jax.tree.map(lambda m, g: b1 * m + (1.0 - b1) * g, state["mu"], grads)
    nu = jax.tree.map(lambda v, g: b2 * v + (1.0 - b2) * jnp.square(g), state["nu"], grads)
    t = count.astype(jnp.float32)
    mu_hat = jax.tree.map(lambda m: m / (1.0 - b1**t), mu)
    nu_hat = jax.tree.map(lambda v: v / (1.0 - b2**t), nu)
    lr = schedule(count)
    updates = jax.tree.map(lambda m, v: -lr * m / (jnp.sqrt(v) + eps), mu_hat, nu_hat)
    return updates, {"count": count, "mu": mu, "nu": nu}


@jax.jit
def train_step(params, opt_state, x, y, key):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y, key)
    grads, norm = clip_by_global_norm(grads)
    updates, opt_state = adam_update(grads, opt_state)
    params = jax.tree.map(jnp.add, params, updates)
    return params, opt_state, {"loss": loss, "grad_norm": norm}


def lint_target():
    def make():
        params = init_params(jax.random.key(0))
        x = jax.random.normal(jax.random.key(1), (16, SIZES[0]))
        y = jnp.sin(x[:, 0])
        return params, adam_init(params), x, y, jax.random.key(2)

    return train_step, jax.eval_shape(make), {"state_argnums": (0, 1)}
