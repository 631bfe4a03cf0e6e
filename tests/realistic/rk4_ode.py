import jax.numpy as jnp
from jax import lax


def lotka_volterra(t, y, theta):
    alpha, beta, gamma, delta = theta
    prey, pred = y[0], y[1]
    return jnp.stack([alpha * prey - beta * prey * pred, delta * prey * pred - gamma * pred])


def damped_oscillator(t, y, omega, zeta=0.1):
    x, v = y
    return jnp.array([v, -2 * zeta * omega * v - omega**2 * x + jnp.sin(t)])


def rk4_step(f, t, y, dt, *args):
    k1 = f(t, y, *args)
    k2 = f(t + dt / 2, y + dt / 2 * k1, *args)
    k3 = f(t + dt / 2, y + dt / 2 * k2, *args)
    k4 = f(t + dt, y + dt * k3, *args)
    return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def odeint(f, y0, t1, n_steps, *args):
    dt = t1 / n_steps

    def body(i, carry):
        t, y, traj = carry
        y = rk4_step(f, t, y, dt, *args)
        return t + dt, y, traj.at[i].set(y)

    traj = jnp.zeros((n_steps, *y0.shape), y0.dtype)
    return lax.fori_loop(0, n_steps, body, (0.0, y0, traj))


def run(y0, theta, omega):
    t, y, traj = odeint(lotka_volterra, y0, 5.0, 50, theta)
    _, osc, _ = odeint(damped_oscillator, jnp.array([1.0, 0.0]), 2.0, 20, omega)
    energy = 0.5 * osc[1] ** 2 + 0.5 * omega**2 * osc[0] ** 2
    return t, y, traj[::10], osc, energy


def inputs(rng):
    theta = jnp.array([1.1, 0.4, 0.4, 0.1], dtype=jnp.float32)
    return jnp.array([10.0, 5.0], dtype=jnp.float32), theta, 2.0
