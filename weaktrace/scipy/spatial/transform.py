"""``weaktrace.scipy.spatial.transform``: the ``jax.scipy.spatial.transform`` mirror,
``Rotation`` (3-D rotations held as unit quaternions, scalar last) and ``Slerp``
(spherical linear interpolation between key rotations).

Both are NamedTuples, so pytrees: they pass through ``weaktrace.trace`` and
``jax.jit`` as jax's do. The kernels (``_quaternions``) map one rotation's formula
over leading batch dimensions with ``weaktrace.numpy.vectorize``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import jax

import weaktrace.numpy as _wnp
from weaktrace.errors import OperandTypeError, OperandValueError
from weaktrace.scipy.spatial import _quaternions as Q

wnp: Any = _wnp

__all__ = ["Rotation", "Slerp"]

_AXES = {"x": 0, "y": 1, "z": 2}


def _axis_indices(seq: str) -> Any:
    for axis in seq.lower():
        if axis not in _AXES:
            raise OperandValueError(f"Expected axis to be from ['x', 'y', 'z'], got {axis}")
    return wnp.array([_AXES[a] for a in seq.lower()])


def _check_sequence(seq: str) -> bool:
    """jax's (scipy's) checks of an axis sequence; True when it is intrinsic
    (upper case: rotations about the moving axes)."""
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise OperandValueError(
            f"Expected axes from `seq` to be from ['x', 'y', 'z'] or ['X', 'Y', 'Z'], got {seq}"
        )
    if any(a == b for a, b in itertools.pairwise(seq)):
        raise OperandValueError(f"Expected consecutive axes to be different, got {seq}")
    return intrinsic


class Rotation(NamedTuple):
    """``jax.scipy.spatial.transform.Rotation``: one rotation (``quat`` of shape (4,))
    or a stack of them (shape (N, 4)), as scipy's Rotation.

    >>> r = Rotation.from_euler("z", 90, degrees=True)
    >>> [round(float(v), 4) for v in r.as_rotvec()]
    [0.0, 0.0, 1.5708]
    """

    quat: Any

    @classmethod
    def concatenate(cls, rotations: Sequence[Any]) -> Any:
        """The rotations of a sequence of Rotation objects, stacked."""
        return cls(wnp.concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles: Any, degrees: bool = False) -> Any:
        """From Euler angles about the axes `seq` ('xyz': extrinsic, 'XYZ': intrinsic)."""
        if not 1 <= len(seq) <= 3:
            raise OperandValueError(
                "Expected axis specification to be a non-empty string of upto 3 "
                f"characters, got {seq}"
            )
        intrinsic = _check_sequence(seq)
        angles = wnp.atleast_1d(angles)
        return cls(Q.from_euler(angles, _axis_indices(seq), intrinsic, degrees))

    @classmethod
    def from_matrix(cls, matrix: Any) -> Any:
        """From rotation matrices (shape (..., 3, 3))."""
        return cls(Q.from_matrix(matrix))

    @classmethod
    def from_mrp(cls, mrp: Any) -> Any:
        """From modified Rodrigues parameters."""
        return cls(Q.from_mrp(mrp))

    @classmethod
    def from_quat(cls, quat: Any) -> Any:
        """From quaternions (scalar last), normalized."""
        return cls(Q.normalized(quat))

    @classmethod
    def from_rotvec(cls, rotvec: Any, degrees: bool = False) -> Any:
        """From rotation vectors (axis times angle)."""
        return cls(Q.from_rotvec(rotvec, degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype: Any = float) -> Any:
        """The identity rotation (jax builds one only: `num` must be None)."""
        if num is not None:
            raise AssertionError(f"Rotation.identity builds one rotation: num={num}")
        return cls(wnp.array([0.0, 0.0, 0.0, 1.0], dtype=dtype))

    @classmethod
    def random(cls, random_key: Any, num: int | None = None) -> Any:
        """Not in jax either (it needs scipy.stats.special_ortho_group)."""
        raise NotImplementedError()

    def __getitem__(self, indexer: Any) -> Any:
        """The rotation(s) at `indexer` of a stack."""
        if self.single:
            raise OperandTypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self) -> int:
        """The number of rotations in a stack."""
        if self.single:
            raise OperandTypeError("Single rotation has no len().")
        return int(self.quat.shape[0])

    def __mul__(self, other: Any) -> Any:
        """The composition: `other`, then this rotation."""
        return Rotation.from_quat(Q.compose(self.quat, other.quat))

    def apply(self, vectors: Any, inverse: bool = False) -> Any:
        """The rotated vectors (by the inverse rotation with `inverse`)."""
        return Q.apply(self.as_matrix(), vectors, inverse)

    def as_euler(self, seq: str, degrees: bool = False) -> Any:
        """Euler angles about the three axes `seq`."""
        if len(seq) != 3:
            raise OperandValueError(f"Expected 3 axes, got {seq}.")
        extrinsic = not _check_sequence(seq)
        axes = _axis_indices(seq)
        with jax.numpy_rank_promotion("allow"):
            return Q.as_euler(self.quat, axes, extrinsic, degrees)

    def as_matrix(self) -> Any:
        """Rotation matrices, shape (..., 3, 3)."""
        return Q.as_matrix(self.quat)

    def as_mrp(self) -> Any:
        """Modified Rodrigues parameters."""
        return Q.as_mrp(self.quat)

    def as_rotvec(self, degrees: bool = False) -> Any:
        """Rotation vectors (axis times angle, the angle in [0, pi])."""
        return Q.as_rotvec(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False) -> Any:
        """Quaternions: scalar last (first with `scalar_first`), w >= 0 with `canonical`."""
        quat = Q.canonical(self.quat) if canonical else self.quat
        return wnp.roll(quat, shift=1, axis=-1) if scalar_first else quat

    def inv(self) -> Any:
        """The inverse rotation(s)."""
        return Rotation(Q.inverse(self.quat))

    def magnitude(self) -> Any:
        """The rotation angle(s), in [0, pi]."""
        return Q.magnitude(self.quat)

    def mean(self, weights: Any = None) -> Any:
        """The (weighted) mean rotation: the top eigenvector of sum w q q^T (Markley)."""
        dtype = self.quat.dtype
        n = self.quat.shape[0]
        w = wnp.ones(n, dtype=dtype) if weights is None else wnp.asarray(weights, dtype=dtype)
        if w.ndim != 1:
            raise OperandValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise OperandValueError(
                "Expected `weights` to have number of values equal to number of "
                f"rotations, got {w.shape[0]} values and {len(self)} rotations."
            )
        k = wnp.dot(w[None, :] * self.quat.T, self.quat)
        _, v = wnp.linalg.eigh(k)
        return Rotation(v[:, -1])

    @property
    def single(self) -> bool:
        """Whether this holds one rotation (not a stack)."""
        return bool(self.quat.ndim == 1)


class Slerp(NamedTuple):
    """``jax.scipy.spatial.transform.Slerp``: interpolation at constant angular
    velocity between key rotations at increasing key times; build with `Slerp.init`."""

    times: Any
    timedelta: Any
    rotations: Rotation
    rotvecs: Any

    @classmethod
    def init(cls, times: Any, rotations: Rotation) -> Any:
        """The interpolator through `rotations` (two or more) at `times`."""
        if not isinstance(rotations, Rotation):
            raise OperandTypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise OperandValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = wnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise OperandValueError(
                "Expected times to be specified in a 1 dimensional array, got "
                f"{times.ndim} dimensions."
            )
        if times.shape[0] != len(rotations):
            raise OperandValueError(
                "Expected number of rotations to be equal to number of timestamps given, "
                f"got {len(rotations)} rotations and {times.shape[0]} timestamps."
            )
        # jax does not check that the times increase (it would need concrete values)
        quats = rotations.as_quat()
        starts = Rotation(quats[:-1])
        steps = (starts.inv() * Rotation(quats[1:])).as_rotvec()
        return cls(times=times, timedelta=wnp.diff(times), rotations=starts, rotvecs=steps)

    def __call__(self, times: Any) -> Any:
        """The interpolated rotation(s) at `times` (a scalar or a 1-D array)."""
        at = wnp.asarray(times, dtype=self.times.dtype)
        if at.ndim > 1:
            raise OperandValueError("`times` must be at most 1-dimensional.")
        single = at.ndim == 0
        at = wnp.atleast_1d(at)
        k = wnp.maximum(wnp.searchsorted(self.times, at) - 1, 0)
        alpha = (at - self.times[k]) / self.timedelta[k]
        out = self.rotations[k] * Rotation.from_rotvec(self.rotvecs[k] * alpha[:, None])
        return out[0] if single else out
