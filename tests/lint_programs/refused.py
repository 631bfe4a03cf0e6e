"""Loops and conds jax refuses because a carry or branch output changes dtype. The
expect(CASE) marker is the body's (the branch's) line lint must point at; the
call(CASE) marker is the loop's or cond's line, which the message must name."""

import jax.numpy as jnp
from jax import lax


def while_body(x):
    def body(c):
        return c + 1.5  # expect(while_body): carry-change

    return lax.while_loop(lambda c: c < 10, body, x)  # call(while_body)


def fori_body(x):
    def body(i, c):
        return c * 0.5  # expect(fori_body): carry-change

    return lax.fori_loop(0, 3, body, x)  # call(fori_body)


def fori_dynamic(x, n):
    def body(i, c):
        return c / 2  # expect(fori_dynamic): carry-change

    return lax.fori_loop(0, n, body, x)  # call(fori_dynamic)


def scan_body(xs):
    def body(c, x):
        total = c + x  # expect(scan_body): carry-change
        return total, None

    return lax.scan(body, jnp.int32(0), xs)  # call(scan_body)


def pytree_carry(x):
    def body(c):
        count, value = c
        half = value / 2  # expect(pytree_carry): carry-change
        return count + 1, half

    return lax.while_loop(lambda c: c[0] < 10, body, (0, x))  # call(pytree_carry)


def nested_loops(x):
    def inner(c):
        return c / 2  # expect(nested_loops): carry-change

    def outer(c):
        return lax.while_loop(lambda c: c < 5, inner, c)  # call(nested_loops)

    return lax.while_loop(lambda c: c < 10, outer, x)


def cond_branches(p, x):
    def scaled(x):
        return x * 1.5  # expect(cond_branches): carry-change

    return lax.cond(p, scaled, lambda x: x, x)  # call(cond_branches)


def switch_branches(k, x):
    def first(x):
        return x + 1

    def second(x):
        return x / 2  # expect(switch_branches): carry-change

    def third(x):
        return x * 0.5

    return lax.switch(k, [first, second, third], x)  # call(switch_branches)
