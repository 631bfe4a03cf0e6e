import jax
import jax.numpy as jnp
from jax import lax, nn


def lstm_cell(params, carry, x):
    h, c = carry
    gates = x @ params["wi"] + h @ params["wh"] + params["b"]
    i, f, g, o = jnp.split(gates, 4, axis=-1)
    c = nn.sigmoid(f + 1.0) * c + nn.sigmoid(i) * jnp.tanh(g)
    h = nn.sigmoid(o) * jnp.tanh(c)
    return h, c


def gru_cell(params, h, x):
    xr, xz, xn = jnp.split(x @ params["wi"] + params["b"], 3, axis=-1)
    hr, hz, hn = jnp.split(h @ params["wh"], 3, axis=-1)
    r = nn.sigmoid(xr + hr)
    z = nn.sigmoid(xz + hz)
    n = jnp.tanh(xn + r * hn)
    return (1 - z) * n + z * h


def run(lstm_params, gru_params, xs):
    batch, hidden = xs.shape[1], lstm_params["wh"].shape[0]
    carry = (jnp.zeros((batch, hidden)), jnp.zeros((batch, hidden)))

    def lstm_step(state, x):
        carry, t = state
        carry = lstm_cell(lstm_params, carry, x)
        return (carry, t + 1), carry[0].mean(axis=-1)

    ((h, c), steps), means = lax.scan(lstm_step, (carry, 0), xs)

    def gru_step(h, x):
        h = gru_cell(gru_params, h, x)
        return h, {"h": h, "norm": jnp.linalg.norm(h, axis=-1)}

    h_rev, outs = lax.scan(gru_step, jnp.zeros((batch, hidden), xs.dtype), xs, reverse=True)
    summary = jax.tree_util.tree_map(lambda y: y.sum(axis=0), outs)
    return {"lstm": (h, c), "steps": steps, "means": means, "gru": h_rev, "summary": summary}


def inputs(rng):
    def f(*s):
        return (0.3 * rng.standard_normal(s)).astype("float32")

    lstm = {"wi": f(3, 16), "wh": f(4, 16), "b": jnp.zeros(16)}
    gru = {"wi": f(3, 12), "wh": f(4, 12), "b": f(12)}
    return lstm, gru, f(6, 2, 3)
