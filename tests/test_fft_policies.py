"""``weaktrace.numpy.fft`` under the numpy and torch policies takes their libraries' dtypes.

DESIGN.md §5: a policy applies to every mirror function. The transforms converted their
operands with jax's fixed table (bool and integers below 64 bits to float32, x64 or not)
under every policy, so ``fft(int32)`` was complex64 under the numpy policy, where numpy
gives complex128, and ``rfft(float16)`` raised where numpy computes in float32. Each
policy now says what a transform computes in (``Policy.fft_dtype``) and, for numpy, that
a real result of float16 values is float16 again (``Policy.fft_real_result``).

The oracles are numpy and torch, called at test time on the same values: dtypes (or an
error where they raise) and values, traced and compiled.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp

FUNCTIONS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
             "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]  # fmt: skip
DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]  # fmt: skip


def _values(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(len(dtype))
    v = rng.normal(size=(4, 6)) * 3
    if dtype.startswith("complex"):
        v = v + 1j * rng.normal(size=(4, 6))
    return v.astype(dtype) if dtype != "bool" else v > 0


def _tol(dtype: Any) -> float:
    return {16: 2e-2, 32: 1e-4, 64: 1e-9}[np.finfo(dtype).bits]


def _ours(name: str, x: np.ndarray, policy: str) -> Any:
    traced = wt.trace(lambda a: getattr(wnp.fft, name)(a), policy=policy)
    try:
        return traced.trace(x).out_avals.dtype, np.asarray(traced(x))
    except Exception as err:  # compared with the oracle's outcome by the caller
        return err, None


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.ci_sample(3)
def test_numpy_policy_fft_is_numpys(name, dtype):
    x = _values(dtype)
    try:
        want = getattr(np.fft, name)(x)
    except TypeError as err:  # rfft of complex values
        got, _ = _ours(name, x, "numpy")
        assert isinstance(got, Exception), f"numpy raised {err!r}, weaktrace gave {got}"
        return
    got, value = _ours(name, x, "numpy")
    assert not isinstance(got, Exception), f"numpy gave {want.dtype}, weaktrace raised {got!r}"
    assert str(got) == str(want.dtype), f"{name}({dtype}): numpy {want.dtype}, weaktrace {got}"
    # numpy scales a float16 operand's inverse transforms by 1/n rounded to float16
    tol = max(_tol(want.dtype), _tol(x.dtype) if x.dtype.kind in "fc" else 0.0)
    scale = max(1.0, float(np.max(np.abs(want.astype(np.complex128)))))
    np.testing.assert_allclose(value, want, rtol=tol, atol=tol * scale, err_msg=name)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.ci_sample(3)
def test_torch_policy_fft_is_torchs(name, dtype):
    torch = pytest.importorskip("torch")
    x = _values(dtype)
    try:
        want = getattr(torch.fft, name)(torch.from_numpy(x)).resolve_conj().numpy()
    except RuntimeError as err:  # float16 on CPU; a real transform of complex values
        got, _ = _ours(name, x, "torch")
        assert isinstance(got, wt.WeaktraceError), f"torch raised {err!r}, weaktrace {got}"
        if "Unsupported dtype" in str(err):
            assert "Unsupported dtype Half" in str(got) and "as in PyTorch" in str(got)
        return
    got, value = _ours(name, x, "torch")
    assert not isinstance(got, Exception), f"torch gave {want.dtype}, weaktrace raised {got!r}"
    assert str(got) == str(want.dtype), f"{name}({dtype}): torch {want.dtype}, weaktrace {got}"
    tol = _tol(want.dtype)
    scale = max(1.0, float(np.max(np.abs(want.astype(np.complex128)))))
    np.testing.assert_allclose(value, want, rtol=tol, atol=tol * scale, err_msg=name)


def test_jax_policy_keeps_jaxs_fixed_table():
    """Under the jax policy (x64 on), int32 still transforms in float32, as jax.lax.fft
    converts it: the policy hook did not move jax's answer."""
    import jax
    import jax.numpy as jnp

    with jax.enable_x64(True):
        for name, dtype in itertools.product(("fft", "rfft", "irfft"), ("int32", "int64", "bool")):
            x = _values(dtype)
            want = getattr(jnp.fft, name)(x).dtype
            assert wt.trace(getattr(wnp.fft, name)).trace(x).out_avals.dtype == want
