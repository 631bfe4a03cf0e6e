"""What `pip install` gives: one version, the license, py.typed and every data file in the
wheel, tests and docs in the sdist, and lower bounds that CI installs and tests."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import weaktrace

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


def test_version_has_one_source():
    assert "version" not in PROJECT and "version" in PROJECT["dynamic"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "weaktrace.__version__"
    assert Version(weaktrace.__version__)  # a valid version string
    try:
        installed = importlib.metadata.version("weaktrace")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("weaktrace is not installed, only importable")
    assert installed == weaktrace.__version__, "reinstall: pip install -e ."


def test_every_dependency_has_a_lower_bound_that_ci_pins():
    done = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "oldest.py")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    pins = dict(line.split("==") for line in done.stdout.split())
    for dep in map(Requirement, PROJECT["dependencies"]):
        lower = [s.version for s in dep.specifier if s.operator == ">="]
        assert lower and pins[dep.name] == lower[0], dep
        installed = Version(importlib.metadata.version(dep.name))
        assert installed >= Version(lower[0]), f"{dep.name} {installed} is below its bound"
    assert "bash .ci/package" in (ROOT / ".ci" / "run").read_text()


def test_license_and_classifiers():
    assert PROJECT["license"] == "Apache-2.0" and PROJECT["license-files"] == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text()
    classifiers = PROJECT["classifiers"]
    assert "Typing :: Typed" in classifiers
    minimum = PROJECT["requires-python"].removeprefix(">=")
    assert f"Programming Language :: Python :: {minimum}" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers), "SPDX license instead"


def test_extras_name_what_the_cli_and_docs_ask_for():
    extras = PROJECT["optional-dependencies"]
    names = {e: {Requirement(r).name for r in reqs} for e, reqs in extras.items()}
    assert "matplotlib" in names["draw"]  # `lattice --out` says: pip install "weaktrace[draw]"
    assert {"sphinx", "myst-nb", "furo"} <= names["docs"]
    assert "weaktrace" in names["test"] and any("docs" in r for r in extras["test"])
    assert {"build", "setuptools"} <= names["test"]


SKIP_DIRS = {".git", "__pycache__", "build", "dist", "_build", "_gen", ".pytest_cache",
             ".hypothesis", ".mypy_cache", ".ruff_cache", ".ipynb_checkpoints"}  # fmt: skip


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in SKIP_DIRS or n.startswith(".venv") or n.endswith(".egg-info")}


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    """The sdist, and the wheel built from it, from a copy of the source tree."""
    if importlib.util.find_spec("build") is None:
        pytest.skip('`build` is not installed: pip install -e ".[test]"')
    tmp = tmp_path_factory.mktemp("dist")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_ignore)
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp / "out"), str(src)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = (tmp / "out").glob("*.whl")
    (sdist,) = (tmp / "out").glob("*.tar.gz")
    return wheel, sdist


def test_wheel_holds_the_package_its_data_and_its_metadata(dists):
    wheel, _ = dists
    version = weaktrace.__version__
    assert wheel.name == f"weaktrace-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
        info = f"weaktrace-{version}.dist-info"
        meta = Parser().parsestr(whl.read(f"{info}/METADATA").decode())
        scripts = whl.read(f"{info}/entry_points.txt").decode()
    package = ROOT / "weaktrace"
    expected = {
        p.relative_to(ROOT).as_posix()
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    assert "weaktrace/py.typed" in expected
    assert expected <= names, f"missing from the wheel: {sorted(expected - names)}"
    assert f"{info}/licenses/LICENSE" in names
    assert meta["Version"] == version and meta["License-Expression"] == "Apache-2.0"
    assert set(meta.get_all("Classifier")) == set(PROJECT["classifiers"])
    requires = {str(Requirement(r)) for r in meta.get_all("Requires-Dist") if "extra" not in r}
    assert requires == {str(Requirement(r)) for r in PROJECT["dependencies"]}
    assert set(meta.get_all("Provides-Extra")) == set(PROJECT["optional-dependencies"])
    assert "weaktrace = weaktrace.__main__:main" in scripts


def test_sdist_holds_tests_docs_and_notebooks_and_no_build_debris(dists):
    _, sdist = dists
    top = sdist.name.removesuffix(".tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.removeprefix(f"{top}/") for n in tar.getnames()}
    for needed in ("pyproject.toml", "LICENSE", "README.md", "MANIFEST.in",
                   "weaktrace/py.typed", "tests/conftest.py", "docs/conf.py",
                   "docs/_ext/weaktrace_docs.py", "notebooks/01_quickstart.ipynb",
                   "benchmarks/RESULTS.md"):  # fmt: skip
        assert needed in names, needed
    debris = [n for n in names if "__pycache__" in n or "/_gen/" in n or n.startswith(".venv")]
    assert not debris, debris
