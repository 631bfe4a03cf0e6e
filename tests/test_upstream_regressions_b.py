"""Bugs found by running jax's own fft_test, linalg_test and
lax_scipy_special_functions_test (jax v0.10.2) with ``jax.numpy``, ``jax.lax`` and
``jax.scipy`` swapped for weaktrace's mirrors. Each is checked here against jax,
computed at test time: eagerly and through ``weaktrace.trace`` against ``jax.jit``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace.numpy as wnp
from tests.mirror_harness import check

FFT_NAMES = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
             "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]  # fmt: skip


@pytest.mark.parametrize("name", FFT_NAMES)
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_fft_norms_under_strict_promotion(name, norm):
    """jax scales every transform by its norm factor; for "backward" that factor is a
    weak 1, which strict promotion accepts. weaktrace multiplied by a strong int32 1 and
    raised TypePromotionError under ``jax.numpy_dtype_promotion('strict')`` (the mode
    jax's tests run in): fft_test's testFft2_/testFftn found it."""
    x = (np.arange(24).reshape(2, 3, 4) % 5).astype(np.float32)
    for x64 in (False, True):
        with jax.enable_x64(x64), jax.numpy_dtype_promotion("strict"):
            check(lambda a: getattr(wnp.fft, name)(a, norm=norm),
                  lambda a: getattr(jnp.fft, name)(a, norm=norm), x,
                  rtol=1e-4, atol=1e-4, context=f"{name} {norm}")  # fmt: skip


FFT_REFUSALS = [
    ("lax.fft rfft of bfloat16", lambda m, lax: lax.fft(
        np.ones((14, 15), jnp.bfloat16), fft_type="rfft", fft_lengths=(5, 6))),
    ("lax.fft too many lengths", lambda m, lax: lax.fft(
        np.ones((14, 15)), fft_type="fft", fft_lengths=(4, 5, 6))),
    ("lax.fft wrong lengths", lambda m, lax: lax.fft(
        np.ones((14, 15)), fft_type="fft", fft_lengths=(17,))),
    ("lax.fft irfft lengths", lambda m, lax: lax.fft(
        np.ones((2, 14, 15)), fft_type="irfft", fft_lengths=(13, 15))),
    ("rfft of complex", lambda m, lax: m.fft.rfft(np.ones(4, np.complex64))),
    ("fftfreq list n", lambda m, lax: m.fft.fftfreq(n=[0, 1, 2])),
    ("rfftfreq list d", lambda m, lax: m.fft.rfftfreq(4, d=[0, 1])),
]  # fmt: skip


@pytest.mark.parametrize(("label", "call"), FFT_REFUSALS, ids=[c[0] for c in FFT_REFUSALS])
def test_fft_refusals_are_jax_exception_class_and_words(label, call):
    """jax raises ValueError for these, in words its fft_test matches; weaktrace raised
    TypeError for an rfft of bfloat16 or complex values, and its own words elsewhere."""
    import weaktrace.lax as wlax

    with pytest.raises(ValueError) as theirs:
        call(jnp, jax.lax)
    with pytest.raises(ValueError) as ours:
        call(wnp, wlax)
    words = str(theirs.value).split(",")[0][:60]
    assert words in str(ours.value), (str(theirs.value), str(ours.value))
