"""Tracing cost per operation: weaktrace.trace vs jax.make_jaxpr on the same programs.

    python -m benchmarks.bench_trace [--max-ops 100000]

Programs are chains of n operations mixing arrays and fresh Python scalar literals,
written once against a numpy-like module. Target (issue 11): at most 0.2x JAX's
per-equation time, and linear growth up to 100,000 equations.
"""

from __future__ import annotations

import argparse
import gc
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import weaktrace as wt
import weaktrace.numpy as wnp


def chain(xnp: Any, n: int) -> Any:
    def f(x: Any, y: Any) -> Any:
        for i in range(n):
            k = i % 5
            if k == 0:
                x = x * (1.0 + i * 1e-6)  # a fresh weak literal each time
            elif k == 1:
                x = x + y
            elif k == 2:
                x = xnp.sin(x)
            elif k == 3:
                x = xnp.maximum(x, i % 7)
            else:
                x = x - y * 0.5
        return x

    return f


def timed(fn: Any, repeat: int, inner: int = 1) -> float:
    """Best CPU time of one call of `fn`, over `repeat` samples of `inner` calls each,
    after one warm-up call (the machine is shared: CPU time is what other processes
    disturb least; small programs are timed in batches, one call being too short)."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        for _ in range(inner):
            fn()
        best = min(best, (time.process_time() - t0) / inner)
    return best


def measure(n: int, x: Any, y: Any, repeat: int, with_jax: bool) -> tuple[float, float, int, int]:
    """Best times for a fresh n-op program (jax.make_jaxpr caches by function, and a
    cache hit is not tracing; weaktrace's .trace never caches)."""
    inner = max(1, 2_000 // n)
    ours = timed(lambda: wt.trace(chain(wnp, n)).trace(x, y), repeat, inner)
    n_ours = len(wt.trace(chain(wnp, n)).trace(x, y).program.equations)
    if not with_jax:
        return ours, float("nan"), n_ours, 0
    ref = timed(lambda: jax.make_jaxpr(chain(jnp, n))(x, y), repeat, inner)
    return ours, ref, n_ours, len(jax.make_jaxpr(chain(jnp, n))(x, y).eqns)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--max-ops", type=int, default=100_000)
    p.add_argument("--jax-100k", action="store_true", help="also time jax at 100,000 ops")
    args = p.parse_args()
    x, y = np.ones((8,), np.float32), np.ones((8,), np.int8)
    print(f"jax {jax.__version__}; per-operation tracing time, best of several runs")
    print(f"{'ops':>8} {'weaktrace':>12} {'jax':>12} {'ratio':>7} {'wt eqns':>8} {'jax eqns':>8}")
    sizes = [n for n in (10, 100, 1000, 10_000, 100_000) if n <= args.max_ops]
    for n in sizes:
        repeat = 7 if n <= 1000 else 3 if n <= 10_000 else 1
        with_jax = n <= 10_000 or args.jax_100k
        ours, ref, n_ours, n_ref = measure(n, x, y, repeat, with_jax)
        ratio = ref / ours if with_jax else float("nan")
        print(f"{n:>8} {ours / n * 1e6:>10.2f}us {ref / n * 1e6:>10.2f}us "
              f"{ratio:>6.1f}x {n_ours:>8} {n_ref:>8}")  # fmt: skip
    print(
        "target (issue 11): weaktrace <= 0.2x jax per equation (ratio >= 5x); flat "
        "per-op time from 10 to 100,000 ops (linear growth)"
    )


if __name__ == "__main__":
    main()
