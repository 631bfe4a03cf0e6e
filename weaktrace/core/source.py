"""Where in the user's code an operation happens: the innermost frame outside weaktrace."""

from __future__ import annotations

import os
import sys
from typing import Any

from weaktrace.ir.values import SourceInfo

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_IS_INTERNAL: dict[str, bool] = {}  # filename -> inside weaktrace? (one dict hit per frame)
_new_tuple = tuple.__new__  # builds the record without its Python-level __new__


def _internal(name: str) -> bool:
    inside = _IS_INTERNAL.get(name)
    if inside is None:
        inside = _IS_INTERNAL[name] = (
            name.startswith(_PACKAGE_DIR) and not name.endswith("__main__.py")  # the CLI demo
        ) or "contextlib" in name
    return inside


def users_frame(frame: Any) -> bool:
    """Whether `frame` runs the user's code (not weaktrace's, the CLI demo aside)."""
    return not _internal(frame.f_code.co_filename)


def user_source() -> SourceInfo | None:
    """file:line of the innermost frame outside weaktrace (a trace's equations take
    the line its running public call pinned, `weaktrace.core.trace.pinning`, instead)."""
    f = sys._getframe(1)
    internal = _IS_INTERNAL
    while f is not None:
        code = f.f_code
        name = code.co_filename
        inside = internal.get(name)
        if inside is None:
            inside = internal[name] = (
                name.startswith(_PACKAGE_DIR) and not name.endswith("__main__.py")  # the CLI demo
            ) or "contextlib" in name
        if not inside:
            return _new_tuple(SourceInfo, (name, f.f_lineno, code.co_name))
        f = f.f_back  # type: ignore[assignment]
    return None


def find_user_stacklevel() -> int:
    """The ``stacklevel`` of the innermost frame outside weaktrace, for warnings."""
    f, level = sys._getframe(1), 1
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
        f, level = f.f_back, level + 1  # type: ignore[assignment]
    return level
