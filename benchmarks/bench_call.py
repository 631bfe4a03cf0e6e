"""Compiled calls: weaktrace vs jax.jit in the same run.

    python -m benchmarks.bench_call [--quick]

1. cached call overhead (target, issue 11: ratio <= 1.05), both sides timed in alternation;
2. first call = trace + lower + compile, on chains of fresh literals (target: ratio
   <= 1.0 at 10 and 100 ops, <= 0.9 at 1000);
3. steady-state execution of a 20-op elementwise chain on float32[16M] (target: ratio
   1.00 +- 0.05), as GB/s against a numpy copy of the same bytes, with and without donation.
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
from benchmarks.bench_trace import chain
from benchmarks.common import paired


def cached_calls() -> None:
    print("1. cached call overhead (best per-call time, alternating)")
    x8 = jnp.ones(8, jnp.float32)
    four = [jnp.ones(8, jnp.float32) * i for i in range(4)]
    ten = {f"a{i}": jnp.ones(8, jnp.float32) for i in range(10)}
    cases = {
        "f32[8] array": (lambda xnp: lambda x: x + 1, (x8,)),
        "Python float": (lambda xnp: lambda x: x + 1, (1.5,)),
        "4 arrays": (lambda xnp: lambda a, b, c, d: a + b + c + d, tuple(four)),
        "dict of 10 arrays": (lambda xnp: lambda d: xnp.sum(d["a0"]) + d["a9"], (ten,)),
    }
    print(f"   {'case':20s} {'weaktrace':>10s} {'jax.jit':>10s} {'ratio':>7s}")
    for name, (make, args) in cases.items():
        ours, ref = wt.trace(make(wnp)), jax.jit(make(jnp))
        env = {"ours": ours, "ref": ref, "args": args}
        t_ours, t_ref = paired("ours(*args)", "ref(*args)", env, env, number=5_000)
        print(f"   {name:20s} {t_ours * 1e6:8.2f}us {t_ref * 1e6:8.2f}us {t_ours / t_ref:6.2f}x")
    print("   target (issue 11): ratio <= 1.05")


def first_calls(sizes: list[int]) -> None:
    print("2. first call: trace + lower + compile + run (fresh program, no cache hits)")
    x, y = np.ones((8,), np.float32), np.ones((8,), np.int8)
    print(f"   {'ops':>6s} {'weaktrace':>10s} {'jax.jit':>10s} {'ratio':>7s}")
    for n in sizes:
        repeat = 3 if n <= 100 else 2
        ours = ref = float("inf")
        for _ in range(repeat):  # alternate, fresh functions each time
            gc.collect()
            t0 = time.perf_counter()
            jax.block_until_ready(wt.trace(chain(wnp, n))(x, y))
            ours = min(ours, time.perf_counter() - t0)
            gc.collect()
            t0 = time.perf_counter()
            jax.block_until_ready(jax.jit(chain(jnp, n))(x, y))
            ref = min(ref, time.perf_counter() - t0)
        print(f"   {n:>6d} {ours * 1e3:8.1f}ms {ref * 1e3:8.1f}ms {ours / ref:6.2f}x")
    print("   target: ratio <= 1.0 at 10 and 100 ops, <= 0.9 at 1000")


def elementwise(xnp: Any) -> Any:
    def f(x: Any) -> Any:
        for i in range(20):
            x = x * 1.0001 + 0.5 if i % 2 == 0 else xnp.maximum(x - 0.25, -1.0)
        return x

    return f


def steady_state(size: int) -> None:
    print(f"3. steady state: 20-op elementwise chain on float32[{size}]")
    host = np.random.default_rng(0).standard_normal(size).astype(np.float32)
    nbytes = 2 * host.nbytes  # read once, write once
    copy = min(_time(lambda: np.copyto(np.empty_like(host), host)) for _ in range(5))
    print(f"   numpy copy of the same bytes: {nbytes / copy / 1e9:6.1f} GB/s (bandwidth ceiling)")
    for donate in (False, True):
        kw = {"donate_argnums": 0} if donate else {}
        ours, ref = wt.trace(elementwise(wnp), **kw), jax.jit(elementwise(jnp), **kw)
        times = {}
        for name, fn in (("weaktrace", ours), ("jax.jit", ref)):
            x = jnp.asarray(host)
            x = jax.block_until_ready(fn(x))  # compile, then chain outputs into inputs
            best = float("inf")
            for _ in range(7):
                t0 = time.perf_counter()
                x = jax.block_until_ready(fn(x))
                best = min(best, time.perf_counter() - t0)
            times[name] = best
        t_ours, t_ref = times["weaktrace"], times["jax.jit"]
        rate = {k: f"{v * 1e3:7.2f}ms ({nbytes / v / 1e9:5.1f} GB/s)" for k, v in times.items()}
        print(f"   donate={donate!s:5s} weaktrace {rate['weaktrace']}  jax.jit {rate['jax.jit']}"
              f"  ratio {t_ours / t_ref:5.3f}")  # fmt: skip
    print("   target: ratio 1.00 +- 0.05")


def _time(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    args = p.parse_args()
    x64 = jax.config.read("jax_enable_x64")
    print(f"jax {jax.__version__}, backend {jax.default_backend()}, x64={x64}")
    cached_calls()
    first_calls([10, 100] if args.quick else [10, 100, 1000])
    steady_state(1 << 20 if args.quick else 1 << 24)


if __name__ == "__main__":
    main()
