"""A batch of small quantum systems: Hermitian complex Hamiltonians diagonalised in one
batched eigh call, time evolution through the eigenbasis, batched solve / inv / det /
slogdet on complex matrices, QR of a complex batch, singular values, and norms by axis."""

import jax.numpy as jnp


def hamiltonians(a, b):
    h = a + 1j * b
    return 0.5 * (h + jnp.conj(jnp.swapaxes(h, -1, -2)))


def evolve(h, psi0, t):
    w, v = jnp.linalg.eigh(h)
    phases = jnp.exp(-1j * w * t)
    coeffs = jnp.einsum("bji,bj->bi", jnp.conj(v), psi0)
    return jnp.einsum("bij,bj->bi", v, phases * coeffs), w


def run(a, b, psi0, t):
    h = hamiltonians(a, b)
    psi_t, energies = evolve(h, psi0, t)
    norms = jnp.linalg.norm(psi_t, axis=-1)
    shifted = h + 3.0 * jnp.eye(h.shape[-1])
    rhs = psi0[..., None]
    x = jnp.linalg.solve(shifted, rhs)[..., 0]
    inv = jnp.linalg.inv(shifted)
    det = jnp.linalg.det(shifted)
    sign, logdet = jnp.linalg.slogdet(shifted)
    q, r = jnp.linalg.qr(shifted)
    sv = jnp.linalg.svd(shifted, compute_uv=False)
    fro = jnp.linalg.norm(shifted, ord="fro", axis=(-2, -1))
    spec = jnp.linalg.norm(shifted, ord=2, axis=(-2, -1))
    eigvals = jnp.linalg.eigvalsh(shifted)
    residual = jnp.abs(jnp.einsum("bij,bj->bi", shifted, x) - psi0).max()
    unitary = jnp.abs(jnp.abs(jnp.diagonal(r, axis1=-2, axis2=-1))).sum(-1)
    return (
        energies,
        norms,
        jnp.abs(det),
        logdet,
        jnp.abs(sign),
        sv,
        fro,
        spec,
        eigvals,
        residual,
        unitary,
        jnp.abs(jnp.einsum("bij,bjk->bik", inv, shifted)).sum((-2, -1)),
        jnp.abs(q).sum(),
    )


def inputs(rng):
    a = rng.standard_normal((3, 4, 4)).astype("float32")
    b = rng.standard_normal((3, 4, 4)).astype("float32")
    psi0 = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype("complex64")
    return a, b, psi0 / jnp.linalg.norm(psi0, axis=-1, keepdims=True), 0.7
