"""Set-up shared by the peer suites."""

from __future__ import annotations

from collections.abc import Iterator

import jax
import pytest


@pytest.fixture(autouse=True, scope="session")
def _no_traceback_filtering() -> Iterator[None]:
    """The sweeps make jax (the oracle) and weaktrace's compiled calls raise tens of
    thousands of times; jax's traceback filtering walks every frame of each with
    os.path calls (about half of a sweep's time). The error classes, which is what the
    suites compare, are the same without it."""
    old = jax.config.jax_traceback_filtering
    jax.config.update("jax_traceback_filtering", "off")
    try:
        yield
    finally:
        jax.config.update("jax_traceback_filtering", old)


_CACHE_OPTIONS = {
    "jax_compilation_cache_dir": None,  # set per session, below
    "jax_persistent_cache_min_compile_time_secs": 0.0,
    "jax_persistent_cache_min_entry_size_bytes": 0,
}


@pytest.fixture(autouse=True, scope="module")
def _compilations_shared_between_the_two_sides(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """jax's persistent compilation cache, in a directory of this session, while a peer
    suite runs. The jax suite compiles every program twice, with jax.jit (the oracle) and
    with weaktrace.trace; where weaktrace lowers to the same XLA module as jax (the
    cache key is the module's fingerprint with the compile options), its compile is
    read back from the cache instead of done again (XLA's compiles were most of the
    compiled-value sweeps' time). weaktrace still lowers, loads and runs its own
    executable, and a module that differs in anything compiles on its own: nothing
    compared changes."""
    from jax._src import compilation_cache

    options = dict(_CACHE_OPTIONS)
    options["jax_compilation_cache_dir"] = str(tmp_path_factory.getbasetemp() / "xla-cache")
    old = {name: getattr(jax.config, name) for name in options}
    for name, value in options.items():
        jax.config.update(name, value)
    compilation_cache.reset_cache()  # jax decides once whether the cache is in use
    try:
        yield
    finally:
        for name, value in old.items():
            jax.config.update(name, value)
        compilation_cache.reset_cache()
