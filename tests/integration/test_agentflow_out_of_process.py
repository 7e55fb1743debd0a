"""Agentflow needs Python >= 3.12, so on this project's 3.11 it can only run out of process. The path it
takes (``exec:`` + the Python serve helper + ``wireconf.adapters.agentflow``) gives the same verdicts as
in-process: proven with the fake written from seed 004, served from another process."""

from __future__ import annotations

import shlex
import sys

from tests.conftest import REPO
from tests.runtime_envs import in_process

FAKE = "tests.fakes.agentflow_llm:adapter"


@in_process("litellm", "litellm")  # the fake agentflow calls LiteLLM, which runs in its own environment
def test_agentflow_served_over_exec_gives_the_in_process_verdicts(run_corpus, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    in_process = run_corpus(f"--impl={FAKE}", "-k", "convert")
    served = run_corpus(
        f"--impl=exec:{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve {FAKE}", "-k", "convert"
    )
    for outcome in ("passed", "failed", "error"):
        assert served.with_outcome(outcome) == in_process.with_outcome(outcome), outcome
    assert served.with_outcome("passed") and served.with_outcome("failed")
    case = "convert.openai.chat.real-stream-tool-call-from-fragments"
    assert "convert/no-empty-partials" in served.longreprs[case]
