"""JAX's type promotion lattices, as literal edge dicts.

Source: https://docs.jax.dev/en/latest/type_promotion.html (seed 003) and
``jax._src.dtypes._type_promotion_lattice``, which this mirrors edge for edge:
standard with x64 on, standard with x64 off (one edge changes: u32 -> i32 instead
of u32 -> i64, so that no 64-bit type is formed from 32-bit inputs), and strict
(weak kinds promote within their category; strong dtypes never mix).
"""

from __future__ import annotations

import functools

import jax.numpy as jnp

from weaktrace.dtypes import registry
from weaktrace.dtypes.lattice import Lattice

_SUB_BYTE_INTS = list(registry.SUB_BYTE_INTS)
_SMALL_FLOATS = list(registry.SMALL_FLOATS)
_INTS = [f"{sign}int{bits}" for sign in ("u", "") for bits in (1, 2, 4, 8, 16, 32, 64)]
_FLOATS = [*_SMALL_FLOATS, "bfloat16", "float16", "float32", "float64"]

STANDARD_X64_EDGES: dict[str, list[str]] = {
    "bool": ["int"],
    "int": ["uint1", "uint2", "uint4", "uint8", "int1", "int2", "int4", "int8"],
    **{n: [] for n in _SUB_BYTE_INTS},  # sub-byte ints join only themselves and i*
    "uint8": ["int16", "uint16"],
    "uint16": ["int32", "uint32"],
    "uint32": ["int64", "uint64"],
    "uint64": ["float"],
    "int8": ["int16"],
    "int16": ["int32"],
    "int32": ["int64"],
    "int64": ["float"],
    "float": [*_SMALL_FLOATS, "bfloat16", "float16", "complex"],
    **{n: [] for n in _SMALL_FLOATS},  # so do the float8/6/4 types with f*
    "bfloat16": ["float32"],
    "float16": ["float32"],
    "float32": ["float64", "complex64"],
    "float64": ["complex128"],
    "complex": ["complex64"],
    "complex64": ["complex128"],
    "complex128": [],
}

# x64 off: u32 x i32 -> i32, not i64 (JAX's only x64-dependent edge).
STANDARD_X32_EDGES: dict[str, list[str]] = {**STANDARD_X64_EDGES, "uint32": ["int32", "uint64"]}

STRICT_EDGES: dict[str, list[str]] = {
    "int": ["float", *_INTS],
    "float": ["complex", *_FLOATS],
    "complex": ["complex64", "complex128"],
    **{n: [] for n in ["bool", *_INTS, *_FLOATS, "complex64", "complex128"]},
}


@functools.cache
def supported_names() -> frozenset[str]:
    """Names of the registered dtypes that the installed jax promotes, plus i*, f*, c*."""
    names = {d.name for d in registry.WEAK_KINDS}
    for d in registry.ALL:
        if d.numpy is None:
            continue
        try:
            jnp.promote_types(d.numpy, d.numpy)
        except (TypeError, ValueError):
            continue  # this jax does not know the dtype: leave it out, as jax does
        names.add(d.name)
    return frozenset(names)


def _installed(edges: dict[str, list[str]]) -> dict[str, list[str]]:
    keep = supported_names()
    return {n: [s for s in succ if s in keep] for n, succ in edges.items() if n in keep}


@functools.cache
def jax_lattice(strict: bool = False, x64: bool = True) -> Lattice[str]:
    """The JAX lattice for a mode (the strict lattice does not depend on x64).

    >>> jax_lattice(x64=False).join("uint32", "int8")
    'int32'
    >>> jax_lattice(strict=True).join("int8", "int16") is None
    True
    """
    if strict:
        return Lattice(_installed(STRICT_EDGES), name="jax-strict")
    edges = STANDARD_X64_EDGES if x64 else STANDARD_X32_EDGES
    return Lattice(_installed(edges), name=f"jax-standard-{'x64' if x64 else 'x32'}")
