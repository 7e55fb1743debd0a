"""The package type-checks: mypy, at the strictness ``pyproject.toml`` declares (``[tool.mypy]``), finds
no error in ``wireconf`` (the reference implementation included), and every ``# type: ignore`` says
which error it silences and why.

mypy runs in a subprocess (not ``mypy.api.run``): it sets process-wide state (recursion limit, garbage
collector) that the rest of the run should not inherit, and its memory is given back when it ends. Its
cache is the checkout's ``.cache/mypy`` (ignored by git): on a clean clone the first run analyses the
SDKs the package imports too; later runs re-check only what changed.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib

from tests.conftest import REPO

IGNORE = re.compile(r"#\s*type:\s*ignore(?P<codes>\[[^\]]*\])?(?P<after>.*)$")


def test_mypy_finds_no_error() -> None:
    assert importlib.util.find_spec("mypy"), "mypy is not installed: .venv/bin/pip install -e '.[dev]'"
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"mypy (config: pyproject.toml [tool.mypy]):\n{done.stdout}{done.stderr}"
    assert "Success: no issues found" in done.stdout, done.stdout


def test_the_declared_strictness_is_strict() -> None:
    """Loosening the checker is a decision made in review, not a side effect of a config edit."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["wireconf"]
    assert config.get("strict") is True
    loosened = {"check_untyped_defs", "disallow_untyped_defs", "no_implicit_optional"} & {
        key for key, value in config.items() if value is False
    }
    assert not loosened, f"pyproject.toml [tool.mypy] turns off {sorted(loosened)}"
    assert "ignore-without-code" in config.get("enable_error_code", [])
    for override in config.get("overrides", []):
        assert set(override) <= {"module", "ignore_missing_imports"}, (
            f"a per-module override may only name modules without stubs: {override}"
        )


def test_every_type_ignore_names_its_code_and_reason() -> None:
    unexplained = []
    for path in sorted((REPO / "wireconf").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            found = IGNORE.search(line)
            if found is None:
                continue
            reason = found["after"].strip().lstrip("#").strip() or lines[number - 2].strip().startswith("#")
            if not found["codes"] or not reason:
                unexplained.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not unexplained, "a `# type: ignore[code]` says why, on its line or the line above:\n" + "\n".join(
        unexplained
    )
