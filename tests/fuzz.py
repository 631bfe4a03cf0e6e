"""Long differential campaign: ``python -m tests.fuzz --programs N --seed S [--x64 both]``.

Runs seeded random programs through jax (jax.numpy under jax.make_jaxpr) and
weaktrace (weaktrace.numpy under weaktrace.trace) and compares every output's
shape, dtype and weak_type, and whether both raise. Prints a count and the first
mismatch of each kind (grouped by the last operation), and exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time

from tests.programs import random_program
from tests.test_differential_trace import check_values, run_both


def classify(theirs: object, ours: object) -> str | None:
    if isinstance(theirs, Exception):
        return None if isinstance(ours, Exception) else "jax raised, we did not"
    if isinstance(ours, Exception):
        return f"we raised {type(ours).__name__}, jax did not"
    return None if ours == theirs else "avals differ"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--programs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--x64", choices=["on", "off", "both"], default="both")
    p.add_argument("--show", type=int, default=1, help="examples to print per kind")
    p.add_argument("--policy", choices=["jax", "numpy", "torch"], default="jax",
                   help="jax: against jax.numpy; numpy/torch: against that library")  # fmt: skip
    p.add_argument("--values", action="store_true",
                   help="also run both compiled and compare values (slower: compiles)")  # fmt: skip
    args = p.parse_args(argv)
    if args.policy != "jax":
        return policy_campaign(args)
    modes = {"on": [True], "off": [False], "both": [False, True]}[args.x64]
    rng = random.Random(args.seed)
    seen: dict[str, list[str]] = collections.defaultdict(list)
    counts: collections.Counter[str] = collections.Counter()
    start, checked = time.time(), 0
    for _ in range(args.programs):
        program = random_program(rng)
        for x64 in modes:
            theirs, ours = run_both(program, x64)
            checked += 1
            kind = classify(theirs, ours)
            if kind is None and args.values:
                try:
                    check_values(program, x64)
                except AssertionError as err:
                    kind, theirs, ours = "values differ", "", str(err).splitlines()[-1][:300]
            if kind is None:
                continue
            err = ours if isinstance(ours, Exception) else theirs
            detail = f"{type(err).__name__}: {str(err)[:70]}" if isinstance(err, Exception) else ""
            if kind == "values differ":
                detail = f"last op {program.steps[-1].op}"
            key = f"{kind}: {detail or 'last op ' + program.steps[-1].op}"
            counts[key] += 1
            if len(seen[key]) < args.show:
                seen[key].append(f"x64={x64}\n{program}\n  jax:  {theirs!r}\n  ours: {ours!r}")
    for key, n in counts.most_common():
        print(f"== {n} x {key}")
        for text in seen[key]:
            print(text)
    bad = sum(counts.values())
    print(f"{checked} program runs ({args.programs} programs x {len(modes)} modes), "
          f"{bad} mismatches, {time.time() - start:.0f}s")  # fmt: skip
    return 1 if bad else 0


def policy_campaign(args: argparse.Namespace) -> int:
    """Random programs under the numpy or torch policy, compiled by weaktrace, against the
    same program run eagerly by that library: dtypes, and values within tolerance."""
    from tests.test_policies import _check, random_policy_program

    rng = random.Random(args.seed)
    counts: collections.Counter[str] = collections.Counter()
    shown: dict[str, str] = {}
    start = time.time()
    for _ in range(args.programs):
        prog_args, steps = random_policy_program(rng)
        try:
            _check(args.policy, prog_args, steps)
        except AssertionError as err:
            key = f"mismatch, last op {steps[-1][0]}"
            counts[key] += 1
            shown.setdefault(key, str(err)[:600])
    for key, n in counts.most_common():
        print(f"== {n} x {key}\n{shown[key]}")
    bad = sum(counts.values())
    print(f"{args.programs} programs under policy {args.policy!r} (values compared), "
          f"{bad} mismatches, {time.time() - start:.0f}s")  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
