"""Cost of weaktrace.lint against jax.make_jaxpr on the same ~1,000-equation programs.

    python -m benchmarks.bench_lint

Target (issue 15): lint <= 1.5x make_jaxpr "with both x64 traces included": the
baseline is make_jaxpr with x64 off plus make_jaxpr with x64 on. lint itself traces
once (x64 off; 64-bit inputs, constants and requested dtypes are found without a
second trace), imports the jaxpr and runs its rules; the ratio against a single
make_jaxpr is printed too. Each run traces a fresh function on both sides (both
cache by function); lint also bypasses jax's trace caches (so its hooks see every
operation), which the baseline does not.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import weaktrace as wt


def chain(n: int) -> Callable[..., Any]:
    """n operations of a typical numeric body (about 1.8 equations each)."""

    def f(x: Any, y: Any) -> Any:
        for i in range(n):
            k = i % 6
            if k == 0:
                x = x * (1.0 + i * 1e-6)
            elif k == 1:
                x = x + y
            elif k == 2:
                x = jnp.tanh(x)
            elif k == 3:
                x = jnp.maximum(x, i % 7)
            elif k == 4:
                x = x - y * 0.5
            else:
                x = jax.nn.relu(x) @ jnp.eye(x.shape[-1], dtype=x.dtype)
        return x

    return f


def transformer_step() -> tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]:
    from tests.lint_programs import transformer as t

    params = t.init_params(jax.random.key(0))
    tokens = jnp.zeros((2, t.SEQ), jnp.int32)
    step = t.train_step.__wrapped__  # the plain function: a fresh wrapper each run
    return step, (params, t.adam_init(params), tokens, tokens), {"state_argnums": (0, 1)}


def count_equations(closed: Any) -> int:
    def walk(jaxpr: Any) -> int:
        n = len(jaxpr.eqns)
        for e in jaxpr.eqns:
            for v in e.params.values():
                for p in v if isinstance(v, tuple) else (v,):
                    inner = getattr(p, "jaxpr", p)
                    if hasattr(inner, "eqns"):
                        n += walk(inner)
        return n

    return walk(closed.jaxpr)


def best(fns: list[Callable[[], Any]], repeat: int) -> list[float]:
    """Each function's best CPU time (the process's, all threads), the functions timed
    in alternation: on the shared machine wall time also counts other processes."""
    times = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            gc.collect()
            t0 = time.process_time()
            fn()
            times[i] = min(times[i], time.process_time() - t0)
    return times


def fresh(f: Callable[..., Any]) -> Callable[..., Any]:
    def g(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)

    return g


def measure(name: str, f: Callable[..., Any], args: tuple[Any, ...], kw: dict[str, Any],
            repeat: int) -> tuple[str, int, float, float, float]:  # fmt: skip
    def baseline_off() -> None:
        with jax.enable_x64(False):
            jax.make_jaxpr(fresh(f))(*args)

    def baseline() -> None:
        baseline_off()
        with jax.enable_x64(True):
            jax.make_jaxpr(fresh(f))(*args)

    def lint() -> None:
        wt.lint(fresh(f), *args, **kw)

    eqns = count_equations(jax.make_jaxpr(f)(*args))
    lint()
    baseline()  # warm both sides
    ours, both, one = best([lint, baseline, baseline_off], repeat)
    return name, eqns, ours, both, one


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=7)
    a = p.parse_args(argv)
    x = jax.ShapeDtypeStruct((4, 8), np.float32)
    rows = [measure("chain of 560 ops", chain(560), (x, x), {}, a.repeat)]
    rows.append(measure("transformer train step", *transformer_step(), repeat=a.repeat))
    print(f"{'program':24s} {'eqns':>6s} {'lint':>9s} {'2x jaxpr':>9s} {'ratio':>6s} "
          f"{'1x jaxpr':>9s} {'ratio':>6s}")  # fmt: skip
    for name, n, ours, both, one in rows:
        print(f"{name:24s} {n:6d} {ours * 1e3:7.1f}ms {both * 1e3:7.1f}ms {ours / both:5.2f}x "
              f"{one * 1e3:7.1f}ms {ours / one:5.2f}x")  # fmt: skip
    print("target: lint <= 1.5x (make_jaxpr x64 off + make_jaxpr x64 on)")


if __name__ == "__main__":
    main()
