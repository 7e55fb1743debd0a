"""The complete example of docs/adapters.md works as written: its files are copied out of the page and
run through the corpus, in-process and over exec: with the Python helper."""

from __future__ import annotations

import re
import shlex
import sys

import pytest

from tests.conftest import REPO
from tests.runtime_envs import in_process

GUIDE = REPO / "docs" / "adapters.md"
FILE_BLOCK = re.compile(r"```python\n# file: (\S+)[^\n]*\n(.*?)```", re.S)


@pytest.fixture
def example(tmp_path, monkeypatch):
    files = FILE_BLOCK.findall(GUIDE.read_text(encoding="utf-8"))
    assert {name for name, _ in files} == {
        "tiny_runtime.py",
        "tiny_adapter.py",
        "prompty_chat_adapter.py",
        "base_url_adapter.py",
    }
    for name, code in files:
        (tmp_path / name).write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("how", ["in-process", "exec"])
def test_the_guide_example_passes_what_it_declares(example, corpus, run_corpus, how):
    impl = "tiny_adapter:Adapter"
    if how == "exec":
        impl = f"exec:{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve {impl}"
    run = run_corpus(f"--impl={impl}")
    declared = {c.id for c in corpus.cases() if (c.kind, c.api) == ("process", "openai.chat")}
    assert declared and run.with_outcome("passed") == declared
    assert run.with_outcome("unsupported") == {c.id for c in corpus.cases()} - declared


def test_the_guide_base_url_adapter_passes_what_it_declares(example, corpus, run_corpus):
    """The guide's shortest adapter over ``endpoint`` (async, the SDK pointed at the case's site)."""
    run = run_corpus("--impl=base_url_adapter:Adapter", "--kind=process", "--api=openai.chat")
    declared = {c.id for c in corpus.cases() if (c.kind, c.api) == ("process", "openai.chat")}
    assert declared and run.with_outcome("passed") == declared


PROMPTY_KINDS = ("process", "stream")


@in_process("prompty", "prompty")
def test_the_worked_prompty_example_gives_the_project_adapters_verdicts(example, corpus, run_corpus):
    """The guide's adapter for a real runtime (prompty's processing step) judges exactly what it
    declares, and agrees case by case with the project's own prompty adapter."""
    declared = {c.id for c in corpus.cases() if c.api == "openai.chat" and c.kind in PROMPTY_KINDS}
    selection = ["--api=openai.chat", *(f"--kind={k}" for k in PROMPTY_KINDS)]
    example_run = run_corpus("--impl=prompty_chat_adapter:Adapter", *selection)
    project_run = run_corpus("--impl=prompty", *selection)
    assert set(example_run.outcomes) == declared
    assert example_run.with_outcome("error") == set()
    assert example_run.with_outcome("failed"), "prompty 2.1 deviates on some of these cases"
    assert example_run.outcomes == project_run.outcomes
