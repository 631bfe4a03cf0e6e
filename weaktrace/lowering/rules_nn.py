"""Lowering of weaktrace.core.primitives_nn: jax's own logaddexp / logaddexp2 (custom
JVPs included), on operands weaktrace already promoted to one inexact dtype."""

from __future__ import annotations

import jax.numpy as jnp

from weaktrace.core import primitives_nn as N
from weaktrace.lowering.rules import _register

_register(N.logaddexp_p, jnp.logaddexp)
_register(N.logaddexp2_p, jnp.logaddexp2)
