"""jax functions bound by name (``from jax.nn import relu``, ``from jax import grad``)
and called on traced values inside weaktrace.trace, with the import before and after
``import weaktrace`` (run in a fresh interpreter: import order matters).

jax's own functions never compute on weaktrace values: the ForeignFunctionError names
the weaktrace mirror. jax's transformations work inside a trace once weaktrace is
imported; a name bound before that is jax's unwrapped function, and the error says so
(it named a weaktrace.numpy mirror of nothing before)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

_SCRIPT = textwrap.dedent(
    """
    import json, sys
    if sys.argv[1] == "after":
        import weaktrace
    from jax import grad, jvp, vmap
    from jax.experimental.ode import odeint
    from jax.lax import cos
    from jax.nn import relu
    from jax.numpy import sin
    from jax.random import PRNGKey, normal
    from jax.scipy.special import erf
    import numpy as np
    import weaktrace as wt
    import weaktrace.numpy as wnp

    def run(f):
        try:
            out = wt.trace(f)(np.linspace(-1.0, 1.0, 4).astype("float32"))
            return ["ok", str(out.dtype)]
        except Exception as err:
            return [type(err).__name__, str(err)]

    got = {
        "grad": run(lambda a: grad(lambda b: wnp.sum(b * b))(a)),
        "jvp": run(lambda a: jvp(wnp.sin, (a,), (a,))[1]),
        "vmap": run(lambda a: vmap(wnp.sin)(a)),
        "odeint": run(lambda a: odeint(lambda y, t: -y, a, wnp.linspace(0.0, 1.0, 3))),
        "relu": run(lambda a: relu(a)),
        "sin": run(lambda a: sin(a)),
        "cos": run(lambda a: cos(a)),
        "erf": run(lambda a: erf(a)),
        "normal": run(lambda a: normal(PRNGKey(0), (4,)) + a),
    }
    print(json.dumps(got))
    """
)
_MIRROR = {"relu": "weaktrace.nn.relu", "sin": "weaktrace.numpy.sin",
           "cos": "weaktrace.lax.cos", "erf": "weaktrace.scipy.special.erf"}  # fmt: skip
_TRANSFORMS = {"grad": "jax.grad", "jvp": "jax.jvp", "vmap": "jax.vmap",
               "odeint": "jax.experimental.ode.odeint"}  # fmt: skip


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, list[str]]]:
    script = tmp_path_factory.mktemp("order") / "order.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    return {
        order: json.loads(
            subprocess.run(
                [sys.executable, str(script), order], env=env, capture_output=True, text=True,
                check=True,
            ).stdout.strip().splitlines()[-1]
        )
        for order in ("before", "after")
    }  # fmt: skip


@pytest.mark.parametrize("order", ["before", "after"])
def test_jax_functions_bound_by_name_name_their_mirror(outcomes: dict, order: str) -> None:
    for name, mirror in _MIRROR.items():
        kind, text = outcomes[order][name]
        assert kind == "ForeignFunctionError", (name, text)
        assert f"call {mirror} instead" in text.lower(), (name, text)
        assert f"{name}(a)" in text  # the user's line
    assert outcomes[order]["normal"] == ["ok", "float32"]  # a concrete key: jax's, as is


def test_transformations_bound_after_weaktrace_work_inside_a_trace(outcomes: dict) -> None:
    for name in _TRANSFORMS:
        assert outcomes["after"][name] == ["ok", "float32"], name


def test_transformations_bound_before_weaktrace_say_so(outcomes: dict) -> None:
    for name, full in _TRANSFORMS.items():
        kind, text = outcomes["before"][name]
        assert kind == "ForeignFunctionError", (name, text)
        assert f"`{name}` is {full} as it was before weaktrace was imported" in text, text
        assert "Import weaktrace first" in text
