"""``weaktrace.numpy.linalg`` under the torch policy refuses what torch.linalg refuses.

torch.linalg's decompositions, solvers and norms take floating point or complex tensors
only ("Expected a floating point or complex tensor as input. Got Int"); weaktrace promoted
an integer or bool matrix to torch's default float and computed, under the torch policy
too. The torch policy now refuses them with a named error (OperandTypeError), and float
inputs keep giving torch's dtypes.

The oracle is torch, called at test time on the same values.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp

torch = pytest.importorskip("torch")

# name -> (torch's call, weaktrace's call), on one square matrix
FUNCTIONS = {
    "det": (lambda t, a: t.linalg.det(a), lambda a: wnp.linalg.det(a)),
    "slogdet": (lambda t, a: tuple(t.linalg.slogdet(a)), lambda a: wnp.linalg.slogdet(a)),
    "inv": (lambda t, a: t.linalg.inv(a), lambda a: wnp.linalg.inv(a)),
    "norm": (lambda t, a: t.linalg.norm(a), lambda a: wnp.linalg.norm(a)),
    "vector_norm": (lambda t, a: t.linalg.vector_norm(a), lambda a: wnp.linalg.vector_norm(a)),
    "matrix_norm": (lambda t, a: t.linalg.matrix_norm(a), lambda a: wnp.linalg.matrix_norm(a)),
    "eigh": (lambda t, a: tuple(t.linalg.eigh(a)), lambda a: wnp.linalg.eigh(a)),
    "eigvalsh": (lambda t, a: t.linalg.eigvalsh(a), lambda a: wnp.linalg.eigvalsh(a)),
    "eigvals": (lambda t, a: t.linalg.eigvals(a), lambda a: wnp.linalg.eigvals(a)),
    "svdvals": (lambda t, a: t.linalg.svdvals(a), lambda a: wnp.linalg.svdvals(a)),
    "qr": (lambda t, a: tuple(t.linalg.qr(a)), lambda a: wnp.linalg.qr(a)),
    "cholesky": (lambda t, a: t.linalg.cholesky(a), lambda a: wnp.linalg.cholesky(a)),
    "solve": (lambda t, a: t.linalg.solve(a, a[:, 0]), lambda a: wnp.linalg.solve(a, a[:, 0])),
    "pinv": (lambda t, a: t.linalg.pinv(a), lambda a: wnp.linalg.pinv(a)),
    "matrix_rank": (lambda t, a: t.linalg.matrix_rank(a), lambda a: wnp.linalg.matrix_rank(a)),
}
DTYPES = ["bool", "uint8", "int32", "int64", "float32", "float64", "complex64"]


def _matrix(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(3)
    a = rng.normal(size=(3, 3)) * 2
    a = a @ a.T + 3 * np.eye(3)
    return a > 0 if dtype == "bool" else (a.round() if dtype[0] in "iu" else a).astype(dtype)


def _torch_outcome(fn: Any, a: np.ndarray) -> Any:
    try:
        out = fn(torch, torch.from_numpy(a))
    except (RuntimeError, NotImplementedError) as err:
        return err
    return [str(o.dtype).removeprefix("torch.") for o in (out if isinstance(out, tuple) else [out])]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_torch_policy_linalg_is_torchs(name, dtype):
    theirs, ours = FUNCTIONS[name]
    a = _matrix(dtype)
    want = _torch_outcome(theirs, a)
    try:
        avals = wt.trace(ours, policy="torch").trace(a).out_avals
    except wt.WeaktraceError as err:
        assert isinstance(want, Exception), f"{name}({dtype}): torch gave {want}, we raised {err!r}"
        if "Expected a floating point or complex tensor" in str(want):
            assert isinstance(err, wt.OperandTypeError) and "as in PyTorch" in str(err)
        return
    got = [str(v.dtype) for v in jax.tree_util.tree_leaves(avals)]
    assert not isinstance(want, Exception), f"{name}({dtype}): torch raised {want!r}, we gave {got}"
    assert got == want, f"{name}({dtype}): torch {want}, weaktrace {got}"


def test_jax_and_numpy_policies_still_promote_integer_matrices():
    """The refusal is torch's: jax and numpy compute det of an int32 matrix in a float."""
    a = _matrix("int32")
    with jax.enable_x64(False):
        assert wt.trace(wnp.linalg.det).trace(a).out_avals.dtype == jax.numpy.linalg.det(a).dtype
    assert str(wt.trace(wnp.linalg.det, policy="numpy").trace(a).out_avals.dtype) == str(
        np.linalg.det(a).dtype
    )
