"""Epidemic (SIR) and predator-prey (Lotka-Volterra) models integrated with
jax.experimental.ode.odeint (adaptive Dormand-Prince), parameters passed as extra
arguments, and the sensitivity of the final infected fraction to beta with jax.grad."""

import jax
import jax.numpy as jnp
from jax.experimental.ode import odeint


def sir(y, t, beta, gamma):
    s, i, _ = y
    new_inf = beta * s * i
    return jnp.stack([-new_inf, new_inf - gamma * i, gamma * i])


def lotka_volterra(y, t, params):
    prey, pred = y[0], y[1]
    a, b, c, d = params
    return jnp.array([a * prey - b * prey * pred, d * prey * pred - c * pred])


def final_infected(beta, y0, ts):
    return odeint(sir, y0, ts, beta, 0.1, rtol=1e-6, atol=1e-8)[-1, 1]


def run(y0, ts, lv0, lv_params):
    traj = odeint(sir, y0, ts, 0.5, 0.1, rtol=1e-6, atol=1e-8)
    lv = odeint(lotka_volterra, lv0, ts, lv_params, rtol=1e-6, atol=1e-8)
    sens = jax.grad(final_infected)(0.5, y0, ts)
    return traj, lv, sens, traj.sum(axis=1)


def inputs(rng):
    y0 = jnp.array([0.99, 0.01, 0.0], dtype=jnp.float32)
    ts = jnp.linspace(0.0, 10.0, 6)
    lv0 = jnp.array([1.0, 0.5])
    return y0, ts, lv0, jnp.array([1.1, 0.4, 0.4, 0.1])
