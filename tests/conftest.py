"""Shared test set-up: the slow-sweep flag and hypothesis profiles.

CI runs every test, but sweeps marked ``slow`` run on a sample unless ``--run-slow``
is given (or WEAKTRACE_FULL=1); hypothesis runs more examples under the "full" profile.
"""

from __future__ import annotations

import os

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


@pytest.fixture
def full(request: pytest.FixtureRequest) -> bool:
    """True when the whole sweep should run, not a sample of it."""
    return full_run(request.config)
