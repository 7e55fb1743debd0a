"""The checkout is ruff clean: ``ruff check`` and ``ruff format --check`` at the configuration
``pyproject.toml`` declares (``[tool.ruff]``) find nothing, so a stop cannot land a long line or an
unsorted import that the style says never lands (one did: nothing but a person checked it)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def _ruff() -> str:
    beside = Path(sys.executable).with_name("ruff")
    found = str(beside) if beside.is_file() else shutil.which("ruff")
    assert found, "ruff is not installed: .venv/bin/pip install -e '.[dev]'"
    return found


def test_ruff_check_finds_nothing() -> None:
    done = subprocess.run(
        [_ruff(), "check", "--output-format", "concise", "."],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_would_change_nothing() -> None:
    done = subprocess.run(
        [_ruff(), "format", "--check", "."], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
