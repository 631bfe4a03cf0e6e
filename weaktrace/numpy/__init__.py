"""``weaktrace.numpy``: the jax.numpy mirror, a module per family.

Each function has jax.numpy's name, signature, shape, dtype and weak-type rules. It
computes its dtypes with weaktrace's promotion under the active policy and binds
weaktrace primitives: inside a trace that records equations, outside one it runs the
same primitives eagerly (through their lowering rules) and returns jax arrays.
"""

from __future__ import annotations

from weaktrace.numpy import (  # noqa: F401  (each module exports its functions)
    contractions,
    creation,
    creation_more,
    cumulative,
    dtypes,
    einsums,
    fft,
    functional,
    gathers,
    histograms,
    host_io,
    index_tricks,
    indexing,
    integers,
    linalg,
    manipulation,
    math,
    math_arrays,
    methods,  # installs the tracer operators
    padding,
    polynomials,
    quantiles,
    rearrange,
    reductions,
    sets,
    sets_more,
    shapes,
    sorting,
    statistics,
    ufunc_api,
    ufunc_objects,
    ufuncs,
    vectorizing,
    windows,
)
from weaktrace.numpy._core import EXPORTS

globals().update(EXPORTS)
__all__ = sorted(EXPORTS)
