"""Runtimes reached by their base URL (issue 34, item 2): an adapter method that declares a keyword-only
``endpoint`` gets the case's site on the provider emulator, for every kind that has an api.

The reference served over endpoints (``tests/fakes/endpoint_reference.py``: the official SDKs pointed at
``endpoint``, the SDK objects it is handed never read) gets the reference's own verdicts; an async-only
runtime is judged without a sync wrapper or a private attribute; what a runtime sends outside its case
is refused, is the case's error, and reaches no network."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.fakes.endpoint_reference import PAUSE
from wireconf.emulator.answers import HOLD_STALL
from wireconf.kinds.registry import open_corpus

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "cases"

SELECTION = [
    # wire: the apis whose SDK sends the built body as it is (OpenAI's SDK adds `encoding_format:
    # base64` to an embeddings call, google-genai an empty `generationConfig`: what those SDKs send
    # differs from the body the reference builds, and the endpoint judges what was sent)
    "wire/openai.chat",
    "wire/openai.responses",
    "wire/anthropic.messages",
    "wire/openai.images",
    "process/openai.chat",
    "process/anthropic.messages",
    "process/gemini.generate_content",
    "process/openai.embeddings",
    "stream/openai.chat",
    "stream/gemini.generate_content",
    "e2e/openai.chat",
    "e2e/anthropic.messages",
    "e2e/gemini.generate_content",
    "trace",
]

INCREMENTAL = frozenset(
    case.id for case in open_corpus(CASES).cases() if getattr(case.model, "incremental", False) is True
)
"""The corpus's ``incremental`` cases: judged over HTTP by the emulator's hold-last-event gate."""


def test_the_reference_over_endpoints_gets_the_references_verdicts(run_corpus, run_corpus_apart, monkeypatch):
    targets = [str(CASES / path) for path in SELECTION]
    reference = run_corpus("--impl=reference", *targets[1:], target=Path(targets[0]))
    # in a process of its own: in this worker's, after some earlier tests (not found yet), every gated
    # stream was read whole before the runtime yielded (two of seven full runs, with either gate)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    adapter = "tests.fakes.endpoint_reference:adapter"
    over = run_corpus_apart(f"--impl={adapter}", *targets[1:], target=Path(targets[0]))

    assert reference.outcomes and set(over.outcomes) == set(reference.outcomes)
    assert reference.with_outcome("passed") == set(reference.outcomes)
    # an incremental stream case's last event is held until the runtime yields (the emulator's gate),
    # and so is an incremental e2e case's first event stream: judged, and the reference, which
    # processes as it reads, passes them
    assert over.with_outcome("passed") == set(reference.outcomes)
    incremental = {c for c in reference.outcomes if c in INCREMENTAL}
    assert {c.partition(".")[0] for c in incremental} == {"stream", "e2e"}


@pytest.mark.parametrize("served", ["in-process", "exec"])
def test_a_runtime_that_works_longer_than_the_clocks_stall_before_its_first_item_is_incremental(
    run_corpus_apart, served, monkeypatch
):
    """The gate waits for the runtime to settle (``wireconf.emulator.settle``), not for a time: the
    reference that works longer than ``HOLD_STALL`` before each stream's first item passes every
    incremental stream case, in this process and over ``exec:`` (the runtime in a namespace of its own,
    whose socket diagnostics its launcher hands over with the emulator's listener)."""
    assert PAUSE > HOLD_STALL
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # the helper imports the adapter from tests.fakes
    adapter = "tests.fakes.endpoint_reference:paused"
    impl = (
        adapter
        if served == "in-process"
        else f"exec:{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve {adapter}"
    )
    run = run_corpus_apart(f"--impl={impl}", "-k", "real-text", target=CASES / "stream" / "openai.chat")
    judged = set(run.outcomes) & INCREMENTAL
    assert judged and judged <= run.with_outcome("passed"), {c: run.longreprs.get(c) for c in judged}


def test_an_async_only_runtime_is_judged_on_process_and_e2e(run_corpus):
    targets = [CASES / "process" / "openai.chat", CASES / "e2e" / "openai.chat"]
    run = run_corpus("--impl=tests.fakes.endpoint_reference:async_only", str(targets[1]), target=targets[0])

    passed = run.with_outcome("passed")
    assert any(case.startswith("process.") for case in passed)
    assert any(case.startswith("e2e.") for case in passed)
    assert run.with_outcome("error") == set()
    # it reads a stream whole before it processes it (`[chunk async for chunk in answer]`): over HTTP the
    # gate holds the stream's last event, the items come only after it, and it is judged not incremental
    failed = run.with_outcome("failed")
    assert failed and failed <= INCREMENTAL
    assert all("not incremental" in run.longreprs[case] for case in failed)


@pytest.mark.parametrize("runner", ["process", "thread"])
def test_requests_outside_the_case_are_its_errors_and_reach_no_network(run_corpus, runner):
    """Call 1 sends its request (a verdict on it); call 2 uses call 1's URL (that case's site is closed),
    call 3 posts to a path that is not the case's api, call 4 asks the proxy for a URL its case does not
    name: each an error naming the request, none a verdict."""
    run = run_corpus(
        "--impl=tests.fakes.endpoint_strays:adapter",
        f"--case-runner={runner}",
        "-p",
        "no:randomly",
        target=CASES / "wire" / "openai.chat" / "messages.yaml",
    )
    first, second, third, fourth = list(run.outcomes)[:4]

    assert run.outcomes[first] in ("passed", "failed")  # judged: the request it sent
    assert {run.outcomes[case] for case in (second, third, fourth)} == {"error"}
    assert "no open site has this token" in run.longreprs[second]
    assert "not the openai.chat endpoint" in run.longreprs[third]
    assert "http://example.com/secret" in run.longreprs[fourth]
    assert "not a media URL the case names" in run.longreprs[fourth]
