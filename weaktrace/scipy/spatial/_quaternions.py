"""The quaternion kernels of ``weaktrace.scipy.spatial.transform`` (scipy's formulas,
as jax.scipy.spatial.transform computes them).

A quaternion is ``(x, y, z, w)``, scalar last. Each kernel is written for one
rotation and mapped over leading batch dimensions by ``weaktrace.numpy.vectorize``
with jax's core signature, so its flags (``degrees``, ``inverse``, ...) are arrays
inside, selected with ``where`` as jax's are, and shapes, dtypes and weak flags follow
jax's kernels.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np

import weaktrace.numpy as _wnp
from weaktrace.core.trace import Tracer

wnp: Any = _wnp


def _mapped(signature: str) -> Any:
    """The kernel vectorized with jax's core signature. Outside a weaktrace trace it
    runs under one ``jax.jit`` per kernel: eagerly, ``weaktrace.numpy.vectorize`` maps
    with a ``jax.lax.scan`` of a new body each call, which jax compiles every time
    (jax's op-by-op mode compiles nothing on a repeated call; its tests check)."""

    def decorate(kernel: Any) -> Any:
        mapped = wnp.vectorize(kernel, signature=signature)
        compiled = jax.jit(mapped)

        @functools.wraps(kernel)
        def call(*args: Any) -> Any:
            if any(a.__class__ is Tracer for a in args):  # traced, or inside a kernel
                return mapped(*args)
            return compiled(*args)

        return call

    return decorate


def _zeros(n: int, like: Any) -> Any:
    """``zeros(n, like.dtype)`` (jax's ``empty`` too) made where `like` lives: eagerly
    inside a mapped kernel its ``.at[]`` must take weaktrace's values."""
    return wnp.zeros_like(like, shape=(n,), dtype=like.dtype)


@_mapped("(n)->()")
def norm(v: Any) -> Any:
    """The Euclidean length of a vector."""
    return wnp.sqrt(wnp.dot(v, v))


@_mapped("(n)->(n)")
def normalized(quat: Any) -> Any:
    return quat / norm(quat)


@_mapped("(n),(n)->(n)")
def compose(p: Any, q: Any) -> Any:
    """The Hamilton product p q: the rotation q, then p."""
    c = wnp.cross(p[:3], q[:3])
    return wnp.array([
        p[3] * q[0] + q[3] * p[0] + c[0],
        p[3] * q[1] + q[3] * p[1] + c[1],
        p[3] * q[2] + q[3] * p[2] + c[2],
        p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2],
    ])  # fmt: skip


@_mapped("(n)->(n)")
def inverse(quat: Any) -> Any:
    """The conjugate: the vector part negated."""
    return quat * wnp.array([-1, -1, -1, 1], dtype=quat.dtype)


@_mapped("(n)->()")
def magnitude(quat: Any) -> Any:
    """The rotation angle, in [0, pi]."""
    return 2.0 * wnp.arctan2(norm(quat[:3]), wnp.abs(quat[3]))


@_mapped("(n)->(n)")
def canonical(quat: Any) -> Any:
    """The sign of q with w > 0 (or, where w is 0, the first nonzero part positive)."""
    neg, zero = quat < 0, quat == 0
    flip = (
        neg[3]
        | (zero[3] & neg[0])
        | (zero[3] & zero[0] & neg[1])
        | (zero[3] & zero[0] & zero[1] & neg[2])
    )
    return wnp.where(flip, -quat, quat)


@_mapped("(m)->(n,n)")
def as_matrix(quat: Any) -> Any:
    x, y, z, w = quat[0], quat[1], quat[2], quat[3]
    xx, yy, zz, ww = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    return wnp.array([
        [+xx - yy - zz + ww, 2 * (xy - zw), 2 * (xz + yw)],
        [2 * (xy + zw), -xx + yy - zz + ww, 2 * (yz - xw)],
        [2 * (xz - yw), 2 * (yz + xw), -xx - yy + zz + ww],
    ])  # fmt: skip


@_mapped("(m,m)->(n)")
def from_matrix(m: Any) -> Any:
    """Shepperd's method: from the largest of the diagonal and the trace."""
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    candidates = wnp.array([m[0, 0], m[1, 1], m[2, 2], trace], dtype=m.dtype)
    choice = wnp.argmax(candidates)
    i = choice
    j = (i + 1) % 3
    k = (j + 1) % 3
    by_axis = _zeros(4, m)
    by_axis = by_axis.at[i].set(1 - candidates[3] + 2 * m[i, i])
    by_axis = by_axis.at[j].set(m[j, i] + m[i, j])
    by_axis = by_axis.at[k].set(m[k, i] + m[i, k])
    by_axis = by_axis.at[3].set(m[k, j] - m[j, k])
    by_trace = _zeros(4, m)
    by_trace = by_trace.at[0].set(m[2, 1] - m[1, 2])
    by_trace = by_trace.at[1].set(m[0, 2] - m[2, 0])
    by_trace = by_trace.at[2].set(m[1, 0] - m[0, 1])
    by_trace = by_trace.at[3].set(1 + candidates[3])
    return normalized(wnp.where(choice != 3, by_axis, by_trace))


@_mapped("(m)->(n)")
def as_mrp(quat: Any) -> Any:
    """Modified Rodrigues parameters (of the quaternion with w >= 0)."""
    sign = wnp.where(quat[3] < 0, -1.0, 1.0)
    return sign * quat[:3] / (1.0 + sign * quat[3])


@_mapped("(m)->(n)")
def from_mrp(mrp: Any) -> Any:
    squared_plus_1 = wnp.dot(mrp, mrp) + 1
    return wnp.hstack([2 * mrp[:3], (2 - squared_plus_1)]) / squared_plus_1


@_mapped("(m),()->(n)")
def as_rotvec(quat: Any, degrees: Any) -> Any:
    quat = wnp.where(quat[3] < 0, -quat, quat)  # w >= 0: the angle in [0, pi]
    angle = 2.0 * wnp.arctan2(norm(quat[:3]), quat[3])
    a2 = angle * angle
    series = 2 + a2 / 12 + 7 * a2 * a2 / 2880  # angle / sin(angle / 2) near 0
    scale = wnp.where(angle <= 1e-3, series, angle / wnp.sin(angle / 2))
    scale = wnp.where(degrees, wnp.rad2deg(scale), scale)
    return scale * wnp.array(quat[:3])


@_mapped("(m),()->(n)")
def from_rotvec(rotvec: Any, degrees: Any) -> Any:
    rotvec = wnp.where(degrees, wnp.deg2rad(rotvec), rotvec)
    angle = norm(rotvec)
    a2 = angle * angle
    series = 0.5 - a2 / 48 + a2 * a2 / 3840  # sin(angle / 2) / angle near 0
    scale = wnp.where(angle <= 1e-3, series, wnp.sin(angle / 2) / angle)
    return wnp.hstack([scale * rotvec, wnp.cos(angle / 2)])


@_mapped("(m,m),(m),()->(m)")
def apply(matrix: Any, vector: Any, inverse: Any) -> Any:
    return wnp.where(inverse, matrix.T, matrix) @ vector


@_mapped("(),()->(n)")
def _elementary(axis: Any, angle: Any) -> Any:
    """The rotation by `angle` about the basis axis `axis`."""
    quat = _zeros(4, angle)
    quat = quat.at[3].set(wnp.cos(angle / 2.0))
    return quat.at[axis].set(wnp.sin(angle / 2.0))


@_mapped("(m),(m),(),()->(n)")
def from_euler(angles: Any, axes: Any, intrinsic: Any, degrees: Any) -> Any:
    angles = wnp.where(degrees, wnp.deg2rad(angles), angles)
    out = _elementary(axes[0], angles[0])
    for n in range(1, len(axes)):
        q = _elementary(axes[n], angles[n])
        out = wnp.where(intrinsic, compose(out, q), compose(q, out))
    return out


@_mapped("(m),(l),(),()->(n)")
def as_euler(quat: Any, axes: Any, extrinsic: Any, degrees: Any) -> Any:
    """Euler angles by Bernardes and Viollet's method (2022), as scipy's."""
    first = wnp.where(extrinsic, 0, 2)
    third = wnp.where(extrinsic, 2, 0)
    axes = wnp.where(extrinsic, axes, axes[::-1])
    i, j, k = axes[0], axes[1], axes[2]
    symmetric = i == k  # proper Euler angles (e.g. zxz), else Tait-Bryan
    k = wnp.where(symmetric, 3 - i - j, k)
    sign = wnp.array((i - j) * (j - k) * (k - i) // 2, dtype=quat.dtype)
    a = wnp.where(symmetric, quat[3], quat[3] - quat[j])
    b = wnp.where(symmetric, quat[i], quat[i] + quat[k] * sign)
    c = wnp.where(symmetric, quat[j], quat[j] + quat[3])
    d = wnp.where(symmetric, quat[k] * sign, quat[k] * sign - quat[i])
    out = _zeros(3, quat)
    out = out.at[1].set(2 * wnp.arctan2(wnp.hypot(c, d), wnp.hypot(a, b)))
    # gimbal lock: the middle angle 0 (case 1) or pi (case 2)
    eps = 1e-7
    case = wnp.where(wnp.abs(out[1] - np.pi) <= eps, 2, 0)
    case = wnp.where(wnp.abs(out[1]) <= eps, 1, case)
    half_sum, half_diff = wnp.arctan2(b, a), wnp.arctan2(d, c)
    locked = wnp.where(case == 1, 2 * half_sum, 2 * half_diff * wnp.where(extrinsic, -1, 1))
    out = out.at[0].set(locked)
    out = out.at[first].set(wnp.where(case == 0, half_sum - half_diff, out[first]))
    out = out.at[third].set(wnp.where(case == 0, half_sum + half_diff, out[third]))
    out = out.at[third].set(wnp.where(symmetric, out[third], out[third] * sign))
    out = out.at[1].set(wnp.where(symmetric, out[1], out[1] - np.pi / 2))
    out = (out + np.pi) % (2 * np.pi) - np.pi
    return wnp.where(degrees, wnp.rad2deg(out), out)
