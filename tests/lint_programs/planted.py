"""Planted dtype bugs in ordinary JAX code. A line marked with an expect(CASE): KIND comment is
where lint must report KIND when it lints CASE (tests/test_lint.py reads the markers);
a ``def`` line marker is for findings about arguments."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

W64 = np.linspace(0.0, 1.0, 9).reshape(3, 3)  # a float64 numpy constant


def _scale(a, b):
    return a * b  # expect(helper): implicit-promotion


def helper(x, n):
    return _scale(x, n) + 1.0


def int_plus_float(i, x):
    y = i + x  # expect(int_plus_float): implicit-promotion
    return y * 2


def int8_times_half(x):
    return x * 0.5  # expect(int8_times_half): implicit-promotion


def bf16_plus_f32(h, x):
    return jnp.tanh(h) + x  # expect(bf16_plus_f32): implicit-promotion


def where_mixed(c, i, x):
    return jnp.where(c, i, x)  # expect(where_mixed): implicit-promotion


def matmul_mixed(h, w):
    return jnp.dot(h, w)  # expect(matmul_mixed): implicit-promotion


def in_fori(x, n):
    def body(i, acc):
        return acc + n * x  # expect(in_fori): implicit-promotion

    return lax.fori_loop(0, 4, body, x)


def in_scan(xs, ks):
    def body(c, xk):
        x, k = xk
        return c + x * k, c  # expect(in_scan): implicit-promotion

    return lax.scan(body, jnp.zeros((), jnp.float32), (xs, ks))


def in_cond(p, x, i):
    return lax.cond(p, lambda: x - i, lambda: x)  # expect(in_cond): implicit-promotion


@jax.jit
def _jitted_inner(x, i):
    return x * i  # expect(nested_jit): implicit-promotion


def nested_jit(x, i):
    return jax.jit(lambda a: _jitted_inner(a, i) + 1.0)(x)


def pytree_args(params, batch):
    h = batch["x"] @ params["w"]
    return h + batch["mask"]  # expect(pytree_args): implicit-promotion


def requested_f64(x):
    y = jnp.zeros(3, dtype=jnp.float64)  # expect(requested_f64): x64-truncation
    return x.astype(np.float64) + y  # expect(requested_f64): x64-truncation


def arg_f64(x, y):  # expect(arg_f64): x64-truncation
    return x + 1.0


def const_f64(x):
    return x @ W64  # expect(const_f64): x64-truncation


def uint8_overflow(u):
    return u + 300  # expect(uint8_overflow): literal-overflow


def int8_overflow_helper(c):
    return _wrap(c)


def _wrap(c):
    return c * 1000  # expect(int8_overflow_helper): literal-overflow


def where_overflow(m, u):
    return jnp.where(m, u, 256)  # expect(where_overflow): literal-overflow


def overflow_in_loop(u):
    def body(i, a):
        return a + 512  # expect(overflow_in_loop): literal-overflow

    return lax.fori_loop(0, 3, body, u)


def weak_init_fori(x):
    def body(i, acc):
        return acc + x[i]  # expect(weak_init_fori): carry-change

    return lax.fori_loop(0, 3, body, 0.0)


def weak_init_while(x):
    def body(c):
        k, acc = c
        return k + 1, acc * x  # expect(weak_init_while): carry-change

    return lax.while_loop(lambda c: c[0] < 3, body, (0, 1.0))


def weak_init_scan(xs):
    def body(c, x):
        return c + x, None  # expect(weak_init_scan): carry-change

    return lax.scan(body, 0.0, xs)[0]


def branch_weak(p, x):
    return lax.cond(p, lambda: x[0], lambda: 2.0)  # expect(branch_weak): carry-change


def carry_dtype_error(x):
    init = jnp.zeros((), jnp.bfloat16)
    out = lax.scan(lambda c, xi: (c + xi, None), init, x)  # expect(carry_dtype_error): carry-change
    return out[0]


def sgd_momentum(mom, params, grads):
    new_mom = jax.tree.map(lambda m, g: 0.9 * m + g, mom, grads)  # expect(sgd_momentum): weak-flip
    new_params = jax.tree.map(lambda p, m: p - 0.1 * m, params, new_mom)
    return new_mom, new_params


def ema_state(state, x):
    avg = jnp.mean(x)
    mean = 0.9 * state["mean"] + 0.1 * avg  # expect(ema_state): weak-flip
    new = {"mean": mean, "count": state["count"] + 1}
    return new, avg


def state_dtype_change(state, x):
    return state + x  # expect(state_dtype_change): weak-flip, implicit-promotion


def too_big_literal(x):
    return x & 0xFFFFFFFFF  # expect(too_big_literal): literal-overflow


def in_switch(i, x):
    branches = [lambda: x, lambda: x * 2, lambda: 1.0]  # expect(in_switch): carry-change
    return lax.switch(i, branches)


@jax.custom_vjp
def _double(x):
    return x * 2


_double.defvjp(lambda x: (_double(x), None), lambda _, g: (g * 2,))


def custom_vjp_user(x, i):
    return _double(x) + i  # expect(custom_vjp_user): implicit-promotion


def in_remat(x, i):
    return jax.checkpoint(lambda a: a * i)(x)  # expect(in_remat): implicit-promotion


def in_vmap(x, i):
    return jax.vmap(lambda a, b: a - b)(x, i)  # expect(in_vmap): implicit-promotion


def _loss(w, x):
    return jnp.sum(jnp.tanh(x @ w))  # expect(under_grad): implicit-promotion


def under_grad(w, x):
    return jax.grad(_loss)(w, x)


def with_key(key, h):
    return h + jax.random.normal(key, h.shape)  # expect(with_key): implicit-promotion


def numpy_scalars(x):
    y = x * np.float64(2.0)  # expect(numpy_scalars): x64-truncation
    z = jnp.asarray(np.arange(3.0))  # expect(numpy_scalars): x64-truncation
    return y + z + np.float32(1.0)
