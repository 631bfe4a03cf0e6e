"""Gravitational n-body simulation: pairwise forces with broadcasting and a softening
length, leapfrog (kick-drift-kick) integration in lax.fori_loop, energy diagnostics."""

import jax.numpy as jnp
from jax import lax

G = 1.0


def accelerations(pos, mass, softening=0.05):
    diff = pos[None, :, :] - pos[:, None, :]
    dist2 = jnp.sum(diff**2, axis=-1) + softening**2
    inv_d3 = dist2 ** (-1.5)
    inv_d3 = jnp.where(jnp.eye(pos.shape[0], dtype=bool), 0.0, inv_d3)
    return G * jnp.einsum("ijk,ij,j->ik", diff, inv_d3, mass)


def energy(pos, vel, mass, softening=0.05):
    kinetic = 0.5 * jnp.sum(mass[:, None] * vel**2)
    diff = pos[None, :, :] - pos[:, None, :]
    dist = jnp.sqrt(jnp.sum(diff**2, axis=-1) + softening**2)
    iu = jnp.triu_indices(pos.shape[0], k=1)
    potential = -G * jnp.sum((mass[:, None] * mass[None, :] / dist)[iu])
    return kinetic + potential


def leapfrog(pos, vel, mass, dt, n_steps):
    def body(i, state):
        pos, vel, acc = state
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        acc = accelerations(pos, mass)
        vel = vel + 0.5 * dt * acc
        return pos, vel, acc

    acc0 = accelerations(pos, mass)
    pos, vel, _ = lax.fori_loop(0, n_steps, body, (pos, vel, acc0))
    return pos, vel


def center_of_mass(pos, mass):
    return jnp.sum(pos * mass[:, None], axis=0) / mass.sum()


def run(pos, vel, mass, dt):
    # move to the centre-of-momentum frame
    vel = vel - jnp.average(vel, axis=0, weights=mass)
    e0 = energy(pos, vel, mass)
    pos1, vel1 = leapfrog(pos, vel, mass, dt, 30)
    e1 = energy(pos1, vel1, mass)
    rel_drift = jnp.abs((e1 - e0) / e0)
    radii = jnp.linalg.norm(pos1 - center_of_mass(pos1, mass), axis=1)
    return pos1, vel1, rel_drift, jnp.max(radii), jnp.argmax(radii)


def inputs(rng):
    n = 6
    pos = rng.uniform(-1, 1, (n, 3)).astype("float32")
    vel = (0.1 * rng.standard_normal((n, 3))).astype("float32")
    mass = rng.uniform(0.5, 1.5, n).astype("float32")
    return pos, vel, mass, 0.01
