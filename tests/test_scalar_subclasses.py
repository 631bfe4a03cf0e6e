"""Instances of int/float/complex subclasses (IntEnum, IntFlag, a float Enum, float and
complex subclasses) met inside a traced function: PyTorch takes them as the Python
scalar (weak), NumPy as ``np.asarray(x)`` (strong: NEP 50 makes only the exact Python
types weak). The oracles compute the expected dtype at test time. (JAX's behaviour is
checked against jax by tests/peers/test_jax_dtypes.py, family "enum".)"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import weaktrace as wt
from tests.peers._jax_cases import SCALAR_SUBCLASS_VALUES

torch = pytest.importorskip("torch")

ARRAYS = {
    "u8": np.arange(3, dtype=np.uint8),
    "i16": np.arange(3, dtype=np.int16),
    "f16": np.ones(2, dtype=np.float16),
    "f32": np.ones(2, dtype=np.float32),
}
CASES = [
    pytest.param(v, a, id=f"{name}-{an}")
    for name, v in SCALAR_SUBCLASS_VALUES.items()
    for an, a in ARRAYS.items()
]


def _add(v: Any) -> Any:
    return lambda x: x + v


def _numpy_oracle(a: np.ndarray, v: Any) -> np.dtype | type[Exception]:
    try:
        return (a + v).dtype
    except (OverflowError, TypeError) as err:
        return type(err)


@pytest.mark.parametrize(("v", "a"), CASES)
def test_numpy_policy_takes_a_subclass_instance_as_a_strong_array(v: Any, a: np.ndarray) -> None:
    expected = _numpy_oracle(a, v)
    f = wt.trace(_add(v), policy="numpy")
    if not isinstance(expected, np.dtype):
        with pytest.raises(expected):
            f.trace(a)
        return
    out = f.trace(a).out_avals
    assert (out.dtype, out.weak_type) == (expected, False)
    assert f(a).dtype == expected


@pytest.mark.parametrize(("v", "a"), CASES)
def test_torch_policy_takes_a_subclass_instance_as_a_weak_scalar(v: Any, a: np.ndarray) -> None:
    with warnings.catch_warnings():  # torch: "ComplexHalf support is experimental"
        warnings.simplefilter("ignore")
        t = torch.from_numpy(a) + v
    expected = np.dtype(str(t.dtype).removeprefix("torch."))
    f = wt.trace(_add(v), policy="torch")
    assert f.trace(a).out_avals.dtype == expected
    with warnings.catch_warnings():  # XLA has no complex32: the torch policy lowers it so
        warnings.simplefilter("ignore")
        lowered = np.dtype("complex64") if expected.name == "complex32" else expected
        assert np.asarray(f(a)).dtype == lowered


@pytest.mark.parametrize("name", sorted(SCALAR_SUBCLASS_VALUES))
def test_numpy_policy_refuses_a_subclass_argument_jax_jit_would_weaken(name: str) -> None:
    """jax.jit turns such an argument into a weak Python scalar before weaktrace sees
    it, so the numpy policy refuses it on call; traced, it is np.asarray(x)."""
    v = SCALAR_SUBCLASS_VALUES[name]
    f = wt.trace(lambda x, y: x + y, policy="numpy")
    a = ARRAYS["u8"]
    out = f.trace(a, v).out_avals
    assert (out.dtype, out.weak_type) == ((a + np.asarray(v)).dtype, False)
    with pytest.raises(wt.InvalidInputError, match=r"numpy\.asarray"):
        f(a, v)
    assert f(a, np.asarray(v)).dtype == (a + np.asarray(v)).dtype
