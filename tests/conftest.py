"""Shared test set-up: the slow-sweep flag and hypothesis profiles.

CI runs every test, but sweeps marked ``slow`` run on a sample unless ``--run-slow``
is given (or WEAKTRACE_FULL=1); hypothesis runs more examples under the "full" profile.
"""

from __future__ import annotations

import os
import zlib
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, settings

# CI draws the same examples every run (a red CI is then a regression, not a new draw);
# --run-slow explores at random, and thousands of examples more.
settings.register_profile(
    "ci",
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "full", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow", action="store_true", help="run exhaustive sweeps in full, not a sample"
    )


def full_run(config: pytest.Config) -> bool:
    return bool(config.getoption("--run-slow")) or os.environ.get("WEAKTRACE_FULL") == "1"


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile("full" if full_run(config) else "ci")
    config.addinivalue_line(
        "markers",
        "ci_sample(k): CI runs one parametrization in k of this test (a fixed choice), "
        "--run-slow runs them all",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``@pytest.mark.ci_sample(k)``: of a parametrized test's cases, CI keeps one in k:
    every k-th in a fixed shuffled order (each case's place is a hash of its id, so every CI
    run checks the same cases and parameters such as the x64 mode stay mixed);
    ``--run-slow`` keeps them all."""
    if full_run(config):
        return
    groups: dict[tuple[str, str], list[pytest.Item]] = defaultdict(list)
    for item in items:
        if item.get_closest_marker("ci_sample") is not None:
            groups[(item.nodeid.split("::")[0], getattr(item, "originalname", item.name))].append(
                item
            )
    for members in groups.values():
        if len(members) == 1:
            continue  # one case asked for by name: run it
        marker = members[0].get_closest_marker("ci_sample")
        assert marker is not None
        k = int(marker.args[0])
        skip = pytest.mark.skip(reason=f"CI runs 1 in {k} of these cases (--run-slow: all)")
        order = sorted(members, key=lambda item: zlib.crc32(item.nodeid.encode()))
        for i, item in enumerate(order):
            if i % k:
                item.add_marker(skip)


@pytest.fixture
def full(request: pytest.FixtureRequest) -> bool:
    """True when the whole sweep should run, not a sample of it."""
    return full_run(request.config)
