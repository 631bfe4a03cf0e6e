"""Conway's Game of Life on a torus with jnp.roll neighbour counts on uint8 / bool grids,
and on a bounded board with jax.scipy.signal.convolve2d, iterated with lax.fori_loop;
population per step with lax.scan."""

import jax.numpy as jnp
from jax import lax
from jax.scipy.signal import convolve2d


def neighbours_roll(board):
    return sum(
        jnp.roll(board, (dy, dx), axis=(0, 1))
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dy, dx) != (0, 0)
    )


def step_torus(board):
    n = neighbours_roll(board.astype(jnp.uint8))
    alive = board.astype(bool)
    return ((n == 3) | (alive & (n == 2))).astype(board.dtype)


KERNEL = jnp.array([[1, 1, 1], [1, 0, 1], [1, 1, 1]], dtype=jnp.int32)


def step_bounded(board):
    n = convolve2d(board, KERNEL, mode="same")
    return jnp.where((n == 3) | ((board == 1) & (n == 2)), 1, 0).astype(board.dtype)


def run(board):
    torus = lax.fori_loop(0, 8, lambda i, b: step_torus(b), board.astype(jnp.uint8))

    def record(b, _):
        b = step_bounded(b)
        return b, b.sum()

    bounded, population = lax.scan(record, board.astype(jnp.int32), None, length=6)
    as_bool = step_torus(board.astype(bool))
    return torus, bounded, population, as_bool, jnp.count_nonzero(torus)


def inputs(rng):
    board = jnp.zeros((10, 10), jnp.int32)
    glider = jnp.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], jnp.int32)
    board = board.at[1:4, 1:4].set(glider)
    return (board.at[6:9, 6].set(1),)
