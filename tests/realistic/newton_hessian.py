"""Second-order optimisation: damped Newton's method on the Rosenbrock function with
jax.hessian inside lax.fori_loop, Gauss-Newton for a nonlinear least-squares curve fit
with jax.jacfwd / jax.jacrev, and a Hessian-vector product by forward-over-reverse."""

import jax
import jax.numpy as jnp
from jax import lax


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def newton(f, x0, steps=8, damping=1e-3):
    grad, hess = jax.grad(f), jax.hessian(f)

    def body(_, x):
        h = hess(x) + damping * jnp.eye(x.shape[0], dtype=x.dtype)
        return x - jnp.linalg.solve(h, grad(x))

    return lax.fori_loop(0, steps, body, x0)


def model(theta, t):
    a, k, c = theta
    return a * jnp.exp(-k * t) + c


def gauss_newton(theta, t, y, steps=5):
    def residual(theta):
        return model(theta, t) - y

    for _ in range(steps):
        r = residual(theta)
        j = jax.jacfwd(residual)(theta)
        theta = theta - jnp.linalg.lstsq(j, r)[0]
    return theta, jax.jacrev(residual)(theta)


def hvp(f, x, v):
    return jax.jvp(jax.grad(f), (x,), (v,))[1]


def run(x0, theta0, t, y):
    x_star = newton(rosenbrock, x0)
    theta, jac = gauss_newton(theta0, t, y)
    return x_star, rosenbrock(x_star), theta, jac, hvp(rosenbrock, x0, jnp.ones_like(x0))


def inputs(rng):
    t = jnp.linspace(0.0, 3.0, 10)
    y = (2.0 * jnp.exp(-1.3 * t) + 0.5 + 0.01 * rng.standard_normal(10)).astype("float32")
    return (
        jnp.array([-1.2, 1.0, 0.8], dtype=jnp.float32),
        jnp.array([1.0, 1.0, 0.0], dtype=jnp.float32),
        t,
        y,
    )
