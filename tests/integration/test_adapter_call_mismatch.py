"""A call the adapter's method cannot take (``wireconf.core.raise_site``: a ``TypeError`` raised by the
harness's call itself) is the case's error naming the adapter, never a failure charged to a rule: the
runtime never ran. In-process and through the Python exec helper (run as ``python -m``, its frames'
module ``__main__``)."""

from __future__ import annotations

import shlex
import sys

import pytest

from tests.conftest import CASES, REPO

HELPER = f"exec:{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve"


@pytest.mark.parametrize("served", ["in-process", "exec"])
def test_a_method_that_cannot_take_the_contracts_arguments_is_an_error_not_a_verdict(
    run_corpus, monkeypatch, served
):
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    adapter = "tests.fakes.signature_mismatch:adapter"
    impl = adapter if served == "in-process" else f"{HELPER} {adapter}"
    run = run_corpus(f"--impl={impl}", "-k", "mapping-text", target=CASES / "process" / "openai.chat")

    assert run.outcomes and set(run.outcomes.values()) == {"error"}
    for case in run.outcomes:
        assert "not a verdict on the runtime" in run.longreprs[case]
        assert "does not take the arguments the contract passes" in run.longreprs[case]
