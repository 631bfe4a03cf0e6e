"""The README's examples and every docstring example run, and print what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import jax
import pytest

import weaktrace

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(weaktrace.__path__, "weaktrace.")
    if "__main__" not in m.name
)


def test_readme_examples():
    with jax.enable_x64(False):
        result = doctest.testfile(
            str(Path(__file__).parent.parent / "README.md"),
            module_relative=False,
            optionflags=FLAGS,
        )
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    with jax.enable_x64(False):
        result = doctest.testmod(importlib.import_module(name), optionflags=FLAGS)
    assert result.failed == 0
