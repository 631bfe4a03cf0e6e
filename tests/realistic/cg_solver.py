import jax.numpy as jnp
from jax import lax


def conjugate_gradient(matvec, b, x0, tol=1e-6, maxiter=50):
    """Plain CG on a pytree-free vector: a while_loop with a tolerance and an
    iteration cap, returning the iterate count and the residual norm too."""
    r0 = b - matvec(x0)
    p0 = r0
    gamma0 = jnp.vdot(r0, r0)
    bnorm = jnp.sqrt(jnp.vdot(b, b))

    def cond_fun(state):
        _, _, _, gamma, k = state
        return (jnp.sqrt(gamma) > tol * bnorm) & (k < maxiter)

    def body_fun(state):
        x, r, p, gamma, k = state
        ap = matvec(p)
        alpha = gamma / jnp.vdot(p, ap)
        x = x + alpha * p
        r = r - alpha * ap
        gamma_new = jnp.vdot(r, r)
        p = r + (gamma_new / gamma) * p
        return x, r, p, gamma_new, k + 1

    x, _, _, gamma, k = lax.while_loop(cond_fun, body_fun, (x0, r0, p0, gamma0, 0))
    return x, {"iterations": k, "residual": jnp.sqrt(gamma)}


def solve_with_implicit_grad(a, b):
    """CG wrapped in custom_linear_solve (symmetric: A is SPD), the diagnostics as aux."""

    def matvec(x):
        return a @ x

    def solve(mv, rhs):
        return conjugate_gradient(mv, rhs, jnp.zeros_like(rhs))

    return lax.custom_linear_solve(matvec, b, solve, symmetric=True, has_aux=True)


def run(a, b, shift):
    spd = a @ a.T + shift * jnp.eye(a.shape[0], dtype=a.dtype)
    x, info = conjugate_gradient(lambda v: spd @ v, b, jnp.zeros_like(b))
    x2, info2 = solve_with_implicit_grad(spd, b)
    return x, info, x2, info2["iterations"], jnp.linalg.norm(spd @ x - b)


def inputs(rng):
    a = rng.standard_normal((6, 6)).astype("float32")
    return a, rng.standard_normal(6).astype("float32"), 3.0
