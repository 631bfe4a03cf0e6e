"""Tracing a scan-based program: weaktrace.trace vs jax.make_jaxpr (issue 12 target:
<= 0.25x jax's time). An RNN-like step scanned over a sequence, its body n operations
long; both sides trace the body once.

    python -m benchmarks.bench_control
"""

from __future__ import annotations

import gc
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.numpy as wnp


def program(xnp: Any, xlax: Any, n: int) -> Any:
    def f(h0: Any, xs: Any, w: Any) -> Any:
        def step(h: Any, x: Any) -> Any:
            for i in range(n):
                h = xnp.tanh(h * w + x * (0.5 + i * 1e-6))
            return h, h.sum()

        return xlax.scan(step, h0, xs)

    return f


def best(fn: Any, repeat: int) -> float:
    out = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        fn()
        out = min(out, time.process_time() - t0)
    return out


def main() -> None:
    h0, xs, w = np.zeros(8, np.float32), np.ones((16, 8), np.float32), np.float32(0.9)
    print(f"jax {jax.__version__}; scan tracing, CPU time, best of 7")
    print(f"{'body ops':>9} {'weaktrace':>11} {'jax':>11} {'ratio':>7}")
    for n in (10, 100, 1000):
        ours = best(lambda n=n: wt.trace(program(wnp, wlax, n)).trace(h0, xs, w), 7)
        ref = best(lambda n=n: jax.make_jaxpr(program(jnp, lax, n))(h0, xs, w), 7)
        print(f"{n:>9} {ours * 1e3:>9.2f}ms {ref * 1e3:>9.2f}ms {ours / ref:>7.3f}")
    print("target: ratio <= 0.25")


if __name__ == "__main__":
    main()
