import jax
import jax.numpy as jnp


def global_norm(tree):
    return jnp.sqrt(sum(jnp.sum(jnp.square(x)) for x in jax.tree_util.tree_leaves(tree)))


def clip_by_global_norm(grads, max_norm):
    norm = global_norm(grads)
    scale = jnp.minimum(1.0, max_norm / (norm + 1e-6))
    return jax.tree_util.tree_map(lambda g: g * scale, grads), norm


def sgd_momentum(params, grads, velocity, lr, momentum=0.9, weight_decay=1e-4, nesterov=True):
    grads = jax.tree_util.tree_map(lambda g, p: g + weight_decay * p, grads, params)
    velocity = jax.tree_util.tree_map(lambda v, g: momentum * v + g, velocity, grads)
    if nesterov:
        updates = jax.tree_util.tree_map(lambda v, g: g + momentum * v, velocity, grads)
    else:
        updates = velocity
    params = jax.tree_util.tree_map(lambda p, u: p - lr * u, params, updates)
    return params, velocity


def run(params, grads, velocity, step):
    lr = 0.1 * 0.5 ** (step // 10)
    grads, norm = clip_by_global_norm(grads, 1.0)
    params, velocity = sgd_momentum(params, grads, velocity, lr)
    n_params = sum(x.size for x in jax.tree_util.tree_leaves(params))
    return params, velocity, norm, lr, step + 1, n_params


def inputs(rng):
    def f(*s):
        return rng.standard_normal(s).astype("float32")

    params = {"dense": {"w": f(3, 4), "b": jnp.zeros(4)}, "out": (f(4, 2), jnp.zeros(2))}
    grads = {"dense": {"w": f(3, 4), "b": f(4)}, "out": (f(4, 2), f(2))}
    velocity = jax.tree_util.tree_map(jnp.zeros_like, params)
    return params, grads, velocity, 23
