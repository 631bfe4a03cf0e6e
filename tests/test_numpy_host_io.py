"""Host input/output mirrors (eager only, as in jax): same values, dtypes and errors as
jax.numpy's, x64 off and on; a traced value is refused with a named error."""

from __future__ import annotations

import io

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp

CASES = {
    "frombuffer u8": lambda m: m.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8),
    "frombuffer f64": lambda m: m.frombuffer(np.arange(3.0).tobytes()),
    "frombuffer count offset": lambda m: m.frombuffer(b"\x01\x02\x03\x04", np.int8, 2, 1),
    "fromstring": lambda m: m.fromstring("1 2 3.5", sep=" "),
    "fromstring int": lambda m: m.fromstring("1,2,3", dtype=int, sep=","),
    "load": lambda m: m.load(_saved(np.arange(6, dtype=np.int64).reshape(2, 3))),
    "load f16": lambda m: m.load(_saved(np.linspace(0, 1, 4).astype(np.float16))),
    "from_dlpack": lambda m: m.from_dlpack(np.arange(4, dtype=np.float32)),
    "fromfile": lambda m: m.fromfile("nowhere"),
    "fromiter": lambda m: m.fromiter(iter([1, 2]), float),
}


def _saved(a: np.ndarray) -> io.BytesIO:
    buf = io.BytesIO()
    np.save(buf, a)
    buf.seek(0)
    return buf


def _outcome(fn):
    try:
        out = fn()
    except Exception as err:  # the error family is compared
        return err, None
    return (out.dtype, out.shape, bool(getattr(out, "weak_type", False))), np.asarray(out)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_as_jax(name, x64):
    with jax.enable_x64(x64):
        ours, theirs = _outcome(lambda: CASES[name](wnp)), _outcome(lambda: CASES[name](jnp))
    if theirs[1] is None:
        assert ours[1] is None and isinstance(ours[0], type(theirs[0])), (ours, theirs)
        return
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])


def test_writers_are_numpys():
    assert wnp.save is np.save and wnp.savez is np.savez


def test_traced_value_is_refused():
    with pytest.raises(wt.InvalidInputError, match="host data"):
        wt.trace(lambda x: wnp.frombuffer(x)).trace(np.ones(2))
