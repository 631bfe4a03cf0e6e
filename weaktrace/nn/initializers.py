"""``weaktrace.nn.initializers``: jax.nn.initializers' own objects, re-exported.

An initializer is a function ``init(key, shape, dtype)`` that draws parameters from a
jax.random key. Models call initializers once, eagerly, before any traced step: there
these are jax's functions themselves, so the parameters are bit-identical to jax's by
construction. Inside a trace, handing one a weaktrace value (a traced key) raises
weaktrace's ``ForeignFunctionError``, as any jax function does: draw parameters outside
the trace and pass them in as arguments (or use ``weaktrace.random`` inside it).
"""

from __future__ import annotations

from jax.nn.initializers import (
    Initializer,
    constant,
    delta_orthogonal,
    glorot_normal,
    glorot_uniform,
    he_normal,
    he_uniform,
    kaiming_normal,
    kaiming_uniform,
    lecun_normal,
    lecun_uniform,
    normal,
    ones,
    orthogonal,
    truncated_normal,
    uniform,
    variance_scaling,
    xavier_normal,
    xavier_uniform,
    zeros,
)

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
    "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
    "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
    "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]  # fmt: skip
