"""Print pip constraints that pin every dependency to the lowest version pyproject allows.

`.ci/package` installs the wheel with these, so the declared lower bounds are the
versions CI tests. A dependency without a `>=` bound is an error: CI could not test it.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

BOUND = re.compile(r"^([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)\s*(,.*)?$")


def main() -> int:
    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    for dep in project["project"]["dependencies"]:
        m = BOUND.match(dep.split(";")[0].strip())
        if m is None:
            print(f"oldest.py: dependency {dep!r} has no lower bound to test", file=sys.stderr)
            return 1
        print(f"{m.group(1)}=={m.group(2)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
