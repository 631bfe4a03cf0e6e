"""A linear-Gaussian state-space model: Kalman filter (jnp.linalg.solve in lax.scan),
its log-likelihood, and a Rauch-Tung-Striebel smoother with a reverse scan."""

import jax.numpy as jnp
from jax import lax


def kalman_filter(params, observations):
    A, C, Q, R, m0, P0 = params
    obs_dim = C.shape[0]

    def step(carry, y):
        m, P, ll = carry
        # predict
        m_pred = A @ m
        P_pred = A @ P @ A.T + Q
        # update
        S = C @ P_pred @ C.T + R
        K = jnp.linalg.solve(S, C @ P_pred).T
        resid = y - C @ m_pred
        m_new = m_pred + K @ resid
        P_new = P_pred - K @ S @ K.T
        P_new = 0.5 * (P_new + P_new.T)
        _, logdet = jnp.linalg.slogdet(S)
        mahal = resid @ jnp.linalg.solve(S, resid)
        ll = ll - 0.5 * (obs_dim * jnp.log(2 * jnp.pi) + logdet + mahal)  # expect: carry-change
        return (m_new, P_new, ll), (m_new, P_new, m_pred, P_pred)

    init = (m0, P0, jnp.array(0.0))
    (_, _, ll), (ms, Ps, m_preds, P_preds) = lax.scan(step, init, observations)
    return ms, Ps, m_preds, P_preds, ll


def rts_smoother(A, ms, Ps, m_preds, P_preds):
    def step(carry, t):
        m_s, P_s = carry
        m, P, m_pred, P_pred = t
        G = jnp.linalg.solve(P_pred, A @ P).T
        m_s = m + G @ (m_s - m_pred)
        P_s = P + G @ (P_s - P_pred) @ G.T
        return (m_s, P_s), (m_s, P_s)

    xs = (ms[:-1], Ps[:-1], m_preds[1:], P_preds[1:])
    _, (m_sm, P_sm) = lax.scan(step, (ms[-1], Ps[-1]), xs, reverse=True)
    m_sm = jnp.concatenate([m_sm, ms[-1:]], axis=0)
    P_sm = jnp.concatenate([P_sm, Ps[-1:]], axis=0)
    return m_sm, P_sm


def run(A, C, q, r, observations):
    n, k = A.shape[0], C.shape[0]
    Q = q * jnp.eye(n)
    R = r * jnp.eye(k)
    params = (A, C, Q, R, jnp.zeros(n), jnp.eye(n))
    ms, Ps, m_preds, P_preds, ll = kalman_filter(params, observations)
    m_sm, P_sm = rts_smoother(A, ms, Ps, m_preds, P_preds)
    return ll, ms, jnp.diagonal(Ps, axis1=1, axis2=2), m_sm, jnp.trace(P_sm, axis1=1, axis2=2)


def inputs(rng):
    dt = 0.1
    A = jnp.array([[1.0, dt], [0.0, 1.0]], dtype=jnp.float32)
    C = jnp.array([[1.0, 0.0]], dtype=jnp.float32)
    obs = (jnp.sin(jnp.arange(20) * dt)[:, None] + 0.1 * rng.standard_normal((20, 1))).astype(
        "float32"
    )
    return A, C, 0.01, 0.1, obs
