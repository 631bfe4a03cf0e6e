"""Where in the user's code an operation happens: the innermost frame outside weaktrace."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from weaktrace.ir.values import SourceInfo

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_IS_INTERNAL: dict[str, bool] = {}  # filename -> inside weaktrace? (one dict hit per frame)
_new_tuple = tuple.__new__  # builds the record without its Python-level __new__


class _Pin(threading.local):
    """The user's line of the public call now running (set by `entry`), per thread:
    every equation that call records has that line, without walking the stack."""

    src: SourceInfo | None = None


_PIN = _Pin()


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


def pinning(depth: int) -> _Pin | None:
    """Pin the line of the frame `depth` levels above the caller, if nothing is pinned
    and that frame is the user's; returns the pin to clear (``pin.src = None``) when
    the public call returns, or None when there is nothing to clear."""
    pin = _PIN
    if pin.src is not None:
        return None
    f = sys._getframe(depth + 1)
    code = f.f_code
    inside = _IS_INTERNAL.get(code.co_filename)  # `_internal`, its cache read inline
    if inside or (inside is None and _internal(code.co_filename)):
        return None
    pin.src = _new_tuple(SourceInfo, (code.co_filename, f.f_lineno, code.co_name))
    return pin


@contextmanager
def unpinned() -> Iterator[None]:
    """Around a call back into user code (a loop body, a branch): its equations take
    their own lines."""
    pin = _PIN
    saved, pin.src = pin.src, None
    try:
        yield
    finally:
        pin.src = saved


def user_source() -> SourceInfo | None:
    """file:line of the innermost frame outside weaktrace."""
    src = _PIN.src
    if src is not None:
        return src
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
