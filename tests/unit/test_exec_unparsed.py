"""An ``exec:`` runtime that parses its inputs itself (``inputs: recorded``, ``ReadsRecorded``) is
handed the recorded responses unparsed (``kinds.base.runtime_input``): no SDK in the harness parses
them, neither per case nor in the warm-up, while what crosses (the bytes, a stream pulled one event per
``next`` through the counting probe) and a case's input errors stay as they were; a kind whose SDK
object the harness reads itself (trace) and any runtime that does not say so keep the SDK's objects."""

from __future__ import annotations

import shlex
import sys

import pytest

from tests.conftest import CASES, REPO
from tests.unit.test_runner_warm import _Host, _Item
from wireconf.adapter_contract import reads_recorded
from wireconf.cassettes.store import CassetteStore, RecordedResponse
from wireconf.core.errors import CaseInputError, NotJudged
from wireconf.exec_protocol.client import ExecAdapter
from wireconf.kinds import base
from wireconf.kinds.base import HarnessContext, recorded_response, runtime_input
from wireconf.kinds.registry import open_corpus
from wireconf.pytest_plugin.runners import warm
from wireconf.sdk import replay
from wireconf.sdk.origins import Unparsed
from wireconf.sdk.replay import SdkReplay

CHAT = "openai/chat__01__opentelemetry-python-contrib__test_chat_completion_with_content_i0"
RUNTIME = f"{shlex.quote(sys.executable)} {REPO / 'tests' / 'fakes' / 'recorded_runtime.py'}"


class _NoParsing(SdkReplay):
    """A replay whose SDKs must not be asked for anything."""

    def response_object(self, api: str, recorded: RecordedResponse) -> object:
        raise AssertionError(f"an SDK parsed a {api} response")

    def stream_object(self, api: str, recorded: RecordedResponse, probe: object) -> object:
        raise AssertionError(f"an SDK parsed a {api} stream")

    def warm(self, api: str, recorded: RecordedResponse) -> None:
        raise AssertionError(f"an SDK warmed up on a {api} response")


@pytest.fixture
def remote():
    adapter = ExecAdapter(RUNTIME)
    yield adapter
    adapter.close()


def _ctx(reads: bool, sdk: SdkReplay | None = None) -> HarnessContext:
    return HarnessContext(CassetteStore(REPO / "cassettes"), sdk or _NoParsing(), reads_recorded=reads)


def _case(corpus, case_id):
    return next(c for c in corpus.cases() if c.id == case_id)


def test_a_runtime_that_says_inputs_recorded_reads_recorded_responses(remote):
    assert reads_recorded(remote)
    assert not reads_recorded(object())  # an in-process adapter gets the SDK's objects


def test_process_gets_the_recorded_bytes_no_sdk_parsed(remote, corpus):
    ctx = _ctx(reads=True)
    case = _case(corpus, "process.openai.chat.real-plain-text")
    response, probe = runtime_input(ctx, case, case.model.response, stream=False)
    recorded = recorded_response(ctx, case, case.model.response, stream=False)
    got = remote.process("openai.chat", {}, response)
    assert probe is None
    assert got == {"status": recorded.status, "headers": recorded.headers, "body": recorded.body.decode()}


def test_a_stream_is_pulled_through_the_probe_no_sdk_parsed(remote, corpus):
    case = _case(corpus, "stream.openai.chat.real-text-deltas")
    events, probe = runtime_input(_ctx(reads=True), case, case.model.response, stream=True)
    assert probe is not None and probe.read == 0
    seen = [(item, probe.read) for item in remote.process_stream("openai.chat", {}, events)]
    assert [item for item, _ in seen] == [event.decode() for event in probe.events]
    assert [read for _, read in seen] == list(range(1, probe.total + 1))  # read only as pulled


def test_an_unparsed_input_is_checked_as_a_parsed_one(corpus):
    """A non-streaming response given to a stream case is the case's input error, parsed or not."""
    case = _case(corpus, "stream.openai.chat.real-text-deltas")
    plain = _case(corpus, "process.openai.chat.real-plain-text")
    for ctx in (_ctx(reads=True), _ctx(reads=False, sdk=SdkReplay())):
        with pytest.raises(CaseInputError, match="is not an event stream"):
            runtime_input(ctx, case, plain.model.response, stream=True)


def test_other_runtimes_get_the_sdks_objects(corpus):
    case = _case(corpus, "process.openai.chat.real-plain-text")
    with pytest.raises(CaseInputError, match="an SDK parsed"):  # the SDK's parse was asked for
        runtime_input(_ctx(reads=False), case, case.model.response, stream=False)


def test_the_warm_up_imports_and_parses_no_sdk_for_such_a_runtime(monkeypatch):
    """Only the apis of the cases whose SDK objects the harness reads itself (trace, e2e) are warmed up."""
    warmed: list[str] = []
    parsed: list[str] = []
    monkeypatch.setattr(replay, "warm_up", warmed.append)
    monkeypatch.setattr(base, "warm_sdk_input", lambda ctx, case, stream_input=False: parsed.append(case.id))
    cases = [c for c in open_corpus(CASES).cases() if c.kind in ("process", "stream", "wire", "trace")]
    unparsed = [_Item(c, CASES, c.id) for c in cases if c.kind != "trace"]
    traced = [_Item(c, CASES, c.id) for c in cases if c.kind == "trace"]
    assert unparsed and traced

    class _Reads(_Host):
        def context(self, corpus_root):
            return _ctx(reads=True, sdk=self.replay)

    host = _Reads(REPO / "cassettes")
    monkeypatch.setattr(host.replay, "client", lambda provider: pytest.fail("an SDK client was made"))
    warm._warm(host, unparsed, shared=False)
    assert (warmed, parsed) == ([], [])
    monkeypatch.undo()
    monkeypatch.setattr(replay, "warm_up", warmed.append)
    monkeypatch.setattr(base, "warm_sdk_input", lambda ctx, case, stream_input=False: parsed.append(case.id))
    warm._warm(host, unparsed + traced, shared=False)
    with_response = [i for i in traced if getattr(i.loaded.model, "response", None) is not None]
    assert sorted(warmed) == sorted({i.loaded.api for i in traced})
    assert parsed == [i.nodeid for i in with_response]


def test_a_recording_the_runtimes_sdk_cannot_parse_is_the_cases_error_as_in_process():
    """The Python helper's SDK parses the recorded bytes the harness no longer parses: bytes the SDK
    refuses are, as in-process (``sdk_input``'s ``CaseInputError``), an error of the case (``NotJudged``),
    never the runtime's outcome."""
    broken = RecordedResponse(200, {"content-type": ["application/json"]}, b"{not json")
    with pytest.raises(ValueError):
        SdkReplay().response_object("openai.chat", broken)  # in-process: the harness's SDK refuses it
    helper = ExecAdapter(f"{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve reference")
    try:
        assert reads_recorded(helper)
        with pytest.raises(NotJudged, match="runtime's SDK could not parse the recorded input"):
            helper.process("openai.chat", {}, Unparsed(broken))
        recorded = CassetteStore(REPO / "cassettes").interaction(CHAT, 0).response
        assert helper.process("openai.chat", {}, Unparsed(recorded)) == "This is a test."  # it goes on
    finally:
        helper.close()
