"""weaktrace.lint over a corpus of realistic, unmodified JAX programs
(tests/lint_programs/clean_*.py and bug_*.py), the 64-bit numpy values created inside a
function, concurrent lint calls, and SARIF logs checked against the official schema.

Each corpus module is ordinary JAX code plus a ``lint_target()`` returning the function
to lint, its arguments and lint's keyword arguments. ``clean_*`` modules must give no
finding at all; in ``bug_*`` modules the expected findings are the ``# expect: KIND[,
KIND]`` comments on the lines where lint must report them: the test reads them from the
source, never from a run.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import re
import threading
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import ShapeDtypeStruct as S
from jax import lax

import weaktrace as wt

ROOT = Path(__file__).resolve().parent
PROGRAMS = ROOT / "lint_programs"
KINDS = {"implicit-promotion", "x64-truncation", "weak-flip", "carry-change", "literal-overflow"}
CLEAN = sorted(p.stem for p in PROGRAMS.glob("clean_*.py"))
BUGGY = sorted(p.stem for p in PROGRAMS.glob("bug_*.py"))


def load(name: str):
    return importlib.import_module(f"tests.lint_programs.{name}")


def expected(module) -> set[tuple[str, int]]:
    """{(kind, line)} from the module's ``# expect: KIND, KIND`` comments."""
    found = set()
    path = Path(inspect.getsourcefile(module))
    for n, text in enumerate(path.read_text().splitlines(), start=1):
        m = re.search(r"# expect: ([\w\-, ]+)$", text)
        if m:
            found |= {(kind.strip(), n) for kind in m.group(1).split(",")}
    return found


def _valid_jax(fn, args) -> None:
    """The program runs under jax as written (jax's own x64 warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jax.eval_shape(fn, *args)


@functools.cache
def target(module):
    """The module's (function, arguments, lint keywords), made once (eager init is slow)."""
    return module.lint_target()


def lint_module(module):
    fn, args, kwargs = target(module)
    return wt.lint(fn, *args, **kwargs), (fn, args, kwargs)


def test_corpus_is_large_enough_and_plants_every_kind():
    assert len(CLEAN) >= 5 and len(BUGGY) >= 5
    planted = [expected(load(name)) for name in BUGGY]
    assert all(planted), "every bug_ program has expect markers"
    assert {k for marks in planted for k, _ in marks} == KINDS
    assert not any(expected(load(name)) for name in CLEAN)


@pytest.mark.parametrize("name", CLEAN)
def test_clean_program_has_no_findings(name):
    module = load(name)
    report, (fn, args, _) = lint_module(module)
    assert not report, f"false positives in {name}:\n{report}"
    assert report.program is not None and len(report.program.equations) > 0
    _valid_jax(fn, args)


@pytest.mark.parametrize("name", BUGGY)
def test_planted_bugs_are_found_at_their_lines(name):
    module = load(name)
    report, (fn, args, _) = lint_module(module)
    path = inspect.getsourcefile(module)
    assert {(f.kind, f.line) for f in report} == expected(module), str(report)
    assert all(f.file == path for f in report)
    assert all(f.message and f.function for f in report)
    _valid_jax(fn, args)


# Programs of tests/realistic/ (run there against jax with their imports swapped), linted
# as written: a clean one has no finding, the others exactly their `# expect:` lines.
REALISTIC = sorted(
    ["optax_chain", "ppo_loss", "nucleus_sampling", "kalman_filter", "nbody", "nerf_render",
     "fft_conv", "infonce", "moe_routing", "ctc_loss", "uint8_augment", "dp_sgd_ema",
     "bf16_loss_scale", "beam_search", "particle_filter", "sparse_coo", "gmm_em", "bit_hashing",
     "robust_stats", "random_dists", "heat_equation", "custom_grad_ops", "linear_recurrence",
     "pca_linalg", "init_inside_jit",
     # session 10: findings as marked, and clean ones over odeint, remat, fp8, typed keys
     "sinkhorn", "metric_losses", "unique_segments", "particle_resample", "lr_schedule",
     "stft_denoise", "lda_variational", "sir_odeint", "remat_stack", "hmc", "dpa_attention",
     "fp8_quant", "kv_cache_decode", "switch_policy", "typed_keys", "vq_vae", "viterbi",
     "flash_attention", "gumbel_straight_through", "rope_causal"]
)  # fmt: skip


@pytest.mark.parametrize("name", REALISTIC)
def test_realistic_programs_have_exactly_their_marked_findings(name):
    module = importlib.import_module(f"tests.realistic.{name}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = wt.lint(module.run, *module.inputs(np.random.default_rng(0)))
    path = inspect.getsourcefile(module)
    assert {(f.kind, f.line) for f in report} == expected(module), str(report)
    assert all(f.file == path for f in report)


def _walk(program):
    yield program
    for sub in program.sub_programs():
        yield from _walk(sub)


@pytest.mark.parametrize("name", CLEAN + BUGGY)
def test_every_equation_points_at_the_program_source(name):
    # nested jits, custom_jvp/vjp calls, remat, loop bodies and branches included
    module = load(name)
    report, _ = lint_module(module)
    path = inspect.getsourcefile(module)
    eqns = [e for p in _walk(report.program) for e in p.equations]
    assert eqns and all(e.source_info is not None for e in eqns)
    assert {e.source_info.file for e in eqns} == {path}


@pytest.mark.parametrize("name", BUGGY[:2] + CLEAN[:1])
def test_caller_x64_mode_and_a_second_lint_give_the_same_report(name):
    fn, args, kwargs = target(load(name))  # made with x64 off
    first = wt.lint(fn, *args, **kwargs)
    with jax.enable_x64(True):
        again = wt.lint(fn, *args, **kwargs)
    assert str(again) == str(first)
    assert str(wt.lint(fn, *args, **kwargs)) == str(first)
    assert not jax.config.jax_enable_x64


# ------------------------------------------- 64-bit numpy values made inside the function
# Each builder puts a numpy value of dtype `d` where jax turns it into a jax value without
# the user naming a dtype; with x64 off jax canonicalizes it to 32 bits. The expected
# line is the builder's only body line.


def _asarray(x, d):
    return x, jnp.asarray(np.ones((), d))


def _array(x, d):
    return x, jnp.array(np.ones(3, d))


def _full(x, d):
    return x, jnp.full(x.shape, np.ones((), d)[()])


def _where(x, d):
    return jnp.where(x > 0, x.astype(d), np.ones((), d)[()])


def _concatenate(x, d):
    return jnp.concatenate([x.astype(d), np.ones(2, d)])


def _lax_mul(x, d):
    return lax.mul(x.astype(d), np.ones((), d)[()])


def _at_set(x, d):
    return x.astype(d).at[0].set(np.ones((), d)[()])


def _ufunc(x, d):
    return jnp.maximum(x.astype(d), np.zeros(3, d))


BUILDERS = [_asarray, _array, _full, _where, _concatenate, _lax_mul, _at_set, _ufunc]
WIDE = [np.float64, np.int64, np.uint64, np.complex128]


def _first_body_line(fn) -> int:
    return inspect.getsourcelines(fn)[1] + 1


def _x64_lines(report) -> set[int]:
    return {f.line for f in report if f.kind == "x64-truncation"}


def test_numpy_64_bit_values_made_inside_the_function_are_found(full):
    cases = [(b, d) for b in BUILDERS for d in WIDE]
    for builder, d in cases if full else cases[::3]:
        x = S((3,), jnp.float32)
        # the oracle: jax with x64 off gives the value another (32-bit) dtype
        assert jax.dtypes.canonicalize_dtype(d) != np.dtype(d)
        report = wt.lint(lambda x, b=builder, d=d: b(x, d), x)
        assert _x64_lines(report) == {_first_body_line(builder)}, (builder.__name__, d, report)


# 64-bit dtypes requested by name, also inside jax's own jitted helpers (jnp.sum)


def _sum_dtype(x, d):
    return jnp.sum(x, dtype=d)


def _mean_dtype(x, d):
    return jnp.mean(x, dtype=d)


def _cumsum_dtype(x, d):
    return jnp.cumsum(x, dtype=d)


def _arange_dtype(x, d):
    return x, jnp.arange(3, dtype=d)


def _astype_dtype(x, d):
    return x.astype(d)


REQUESTED = [_sum_dtype, _mean_dtype, _cumsum_dtype, _arange_dtype, _astype_dtype]


def test_requested_64_bit_dtypes_are_found_once_at_their_line(full):
    cases = [(b, d) for b in REQUESTED for d in WIDE if not (b is _arange_dtype and d is WIDE[-1])]
    for builder, d in cases if full else cases[::3]:
        report = wt.lint(lambda x, b=builder, d=d: b(x, d), S((3,), jnp.float32))
        found = [f.line for f in report if f.kind == "x64-truncation"]
        assert found == [_first_body_line(builder)], (builder.__name__, d, report)


# the same values with the dtype named by the user: explicit, not findings


def _asarray_explicit(x, d):
    return x + jnp.asarray(np.ones((), d), dtype=x.dtype)


def _full_explicit(x, d):
    return x + jnp.full(x.shape, np.ones((), d)[()], dtype=x.dtype)


def _full_like(x, d):
    return x + jnp.full_like(x, np.ones((), d)[()])


def _convert(x, d):
    return x + lax.convert_element_type(np.ones(3, d), x.dtype)


def _astype(x, d):
    return x + jnp.astype(np.ones(3, d), x.dtype)


def _random_key(x, d):
    return x + jax.random.normal(jax.random.key(np.ones((), d).astype(np.int32)[()]), x.shape)


def _jax_made(x, d):
    # jax's own numpy values: jnp.bincount's int64 weights, jnp.unique's fill
    i = x.astype(np.ones((), d).astype(np.int32).dtype)
    return jnp.bincount(i, length=4), jnp.unique(i, size=2), jnp.histogram(x, bins=3)[0]


EXPLICIT = [
    _asarray_explicit,
    _full_explicit,
    _full_like,
    _convert,
    _astype,
    _random_key,
    _jax_made,
]


@pytest.mark.parametrize("builder", EXPLICIT, ids=lambda b: b.__name__)
def test_numpy_64_bit_values_cast_explicitly_are_not_findings(builder):
    report = wt.lint(lambda x: builder(x, np.float64), S((3,), jnp.float32))
    assert not report, str(report)


# ----------------------------------------------------------------------- threads


def test_concurrent_lint_calls_from_two_threads_match_serial_runs():
    names = [BUGGY[0], BUGGY[-1], CLEAN[0]]
    serial = {name: str(lint_module(load(name))[0]) for name in names}
    results: dict[tuple[int, str], str] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(3)

    done = threading.Event()

    def worker(k: int, order: list[str]) -> None:
        try:
            start.wait()
            for name in order * 2:
                results[(k, name)] = str(lint_module(load(name))[0])
        except BaseException as err:  # reported below
            errors.append(err)

    def bystander() -> None:
        # plain jax code in a third thread while lint's hooks are installed: it must
        # run as usual, and its 64-bit numpy values, warnings and conds must not end
        # up in the linting thread's report
        try:
            start.wait()
            for _ in range(500):
                if done.is_set():
                    break
                jaxpr = jax.make_jaxpr(lambda x: lax.cond(x > 0, lambda: x, lambda: -x))(1.0)
                assert jaxpr.out_avals[0].dtype == jnp.float32
                jax.make_jaxpr(lambda x: lax.mul(x, np.float64(2.0)) + np.zeros(3))(1.0)
        except BaseException as err:
            errors.append(err)

    threads = [
        threading.Thread(target=worker, args=(0, names)),
        threading.Thread(target=worker, args=(1, names[::-1])),
        threading.Thread(target=bystander),
    ]
    for t in threads:
        t.start()
    for t in threads[:2]:
        t.join(timeout=600)
    done.set()
    threads[2].join(timeout=600)
    assert not errors, errors
    assert len(results) == 2 * len(names)
    for (_, name), text in results.items():
        assert text == serial[name], name


def test_hooks_are_removed_after_lint_also_when_the_function_fails():
    from jax._src import core
    from jax._src.lax import lax as jlax

    before = (core.Primitive.bind, jlax._convert_element_type, jax.lax.cond, jax.lax.switch)
    with pytest.raises(TypeError):
        wt.lint(lambda x, y: x + y, S((3,), jnp.float32), S((4,), jnp.float32))
    fn, args, kwargs = target(load(BUGGY[0]))
    wt.lint(fn, *args, **kwargs)
    after = (core.Primitive.bind, jlax._convert_element_type, jax.lax.cond, jax.lax.switch)
    assert after == before


# ------------------------------------------------------------------------ SARIF

# The official OASIS SARIF 2.1.0 schema (see tests/data/README.md for its source).
SCHEMA = ROOT / "data" / "sarif-schema-2.1.0.json"


def _validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator.check_schema(schema)
    checker = jsonschema.Draft4Validator.FORMAT_CHECKER
    return jsonschema.Draft4Validator(schema, format_checker=checker)


@pytest.mark.parametrize("name", BUGGY + CLEAN[:1])
def test_sarif_logs_validate_against_the_official_schema(name):
    validator = _validator()
    report, _ = lint_module(load(name))
    log = json.loads(report.to_sarif())
    errors = [e.message for e in validator.iter_errors(log)]
    assert not errors, errors
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
            for r in results] == [(f.kind, f.line) for f in report]  # fmt: skip


def test_the_schema_check_can_fail():
    validator = _validator()
    report, _ = lint_module(load(BUGGY[0]))
    log = json.loads(report.to_sarif())
    result = log["runs"][0]["results"][0]
    broken = [
        dict(log, version="2.0.0"),
        dict(log, runs=[dict(log["runs"][0], results=[dict(result, level="fatal")])]),
        dict(log, runs=[dict(log["runs"][0], results=[dict(result, ruleIndex=-2)])]),
        dict(log, runs=[{"results": []}]),
    ]
    for bad in broken:
        assert list(validator.iter_errors(bad)), bad


# ------------------------------------------------ true division: jax is the oracle

DIV_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.float16,
              jnp.bfloat16, np.float32, np.complex64]  # fmt: skip


def _divide(x, y):
    return x / y


def test_true_division_is_a_finding_exactly_when_the_operand_dtypes_differ(full):
    # x / y makes integers floating whatever the operands; lint reports the division
    # only when jax's promotion joins two different dtypes (i32 / f32, i8 / u8)
    pairs = [(a, b) for a in DIV_DTYPES for b in DIV_DTYPES]
    for a, b in pairs if full else pairs[::7]:
        report = wt.lint(_divide, S((3,), a), S((3,), b))
        joined = jnp.result_type(a, b)
        expected = joined != jnp.dtype(a) or joined != jnp.dtype(b)
        got = [f for f in report if f.kind == "implicit-promotion"]
        assert bool(got) == expected, (a, b, str(report))
        assert all(f.line == _first_body_line(_divide) for f in got)


def test_integer_arrays_divided_by_a_python_int_are_not_findings_by_a_float_are():
    for d in (np.int8, np.uint8, np.int32):
        assert not wt.lint(lambda x: x / 3, S((3,), d)), d
        # the weak float changes the array's dtype, as in i8 * 0.5
        assert wt.lint(lambda x: x / 2.5, S((3,), d)).kinds() == ["implicit-promotion"], d


# ------------------------------------------------------- 64-bit arguments: the def line


def _takes(x, y):
    return x + y


@pytest.mark.parametrize("d", WIDE, ids=lambda d: np.dtype(d).name)
def test_64_bit_numpy_arguments_are_found_at_the_def_line(d):
    def_line = inspect.getsourcelines(_takes)[1]
    y = S((3,), jnp.float32)
    for x in (np.ones((), d)[()], np.ones(3, d), S((3,), d)):  # numpy scalar, array, struct
        assert jax.dtypes.canonicalize_dtype(np.dtype(d)) != np.dtype(d)  # jax makes it 32-bit
        report = wt.lint(_takes, x, y)
        assert _x64_lines(report) == {def_line}, (type(x), d, report)
    for x in (1.0, 1, 1j, np.ones(3, np.float32)):  # weak Python scalars, 32-bit values
        assert not _x64_lines(wt.lint(_takes, x, y)), x
