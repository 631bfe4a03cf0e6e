"""Numerical solvers with structured control flow: Newton's method in a while_loop,
conjugate gradients, a fori_loop power iteration and a lax.cond step choice on a
pytree. Clean."""

import jax
import jax.numpy as jnp
from jax import lax


def newton_sqrt(a, tol=1e-6, max_iter=50):
    def cond(state):
        _, i, err = state
        return (err > tol) & (i < max_iter)

    def body(state):
        x, i, _ = state
        new = 0.5 * (x + a / x)
        return new, i + 1, jnp.max(jnp.abs(new - x))

    x0 = jnp.ones_like(a)
    x, iters, _ = lax.while_loop(cond, body, (x0, 0, jnp.asarray(jnp.inf, a.dtype)))
    return x, iters


def conjugate_gradient(matvec, b, iters=10):
    x = jnp.zeros_like(b)
    r = b - matvec(x)

    def body(_, state):
        x, r, p, rs = state
        ap = matvec(p)
        alpha = rs / jnp.vdot(p, ap)
        x = x + alpha * p
        r = r - alpha * ap
        rs_new = jnp.vdot(r, r)
        p = r + (rs_new / rs) * p
        return x, r, p, rs_new

    x, *_ = lax.fori_loop(0, iters, body, (x, r, r, jnp.vdot(r, r)))
    return x


def power_iteration(a, steps=20):
    v = jnp.ones(a.shape[0]) / jnp.sqrt(a.shape[0])

    def body(i, v):
        w = a @ v
        return w / jnp.linalg.norm(w)

    v = lax.fori_loop(0, steps, body, v)
    return v @ a @ v


def damped_step(state, grad, loss, prev_loss):
    def accept(s):
        return {"x": s["x"] - s["lr"] * grad, "lr": s["lr"] * 1.1}

    def reject(s):
        return {"x": s["x"], "lr": s["lr"] * 0.5}

    return lax.cond(loss < prev_loss, accept, reject, state)


def solve_all(a, spd, b, state, grad):
    root, iters = newton_sqrt(jnp.abs(b) + 1.0)
    x = conjugate_gradient(lambda v: spd @ v, b)
    lam = power_iteration(spd)
    state = damped_step(state, grad, jnp.sum(x**2), jnp.sum(b**2))
    return state, (root, iters, x, lam)


def lint_target():
    """The solvers with abstract arguments (shapes and dtypes, as jax.eval_shape gives)."""

    def make():
        k = jax.random.normal(jax.random.key(0), (4, 4))
        spd = k @ k.T + 4 * jnp.eye(4)
        state = {"x": jnp.zeros(4), "lr": jnp.float32(0.1)}
        return k, spd, jnp.arange(4.0), state, jnp.ones(4)

    return jax.jit(solve_all), jax.eval_shape(make), {"state_argnums": 3}
