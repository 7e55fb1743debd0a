"""A stream case's SDK stream built ahead, in the pytest process's warm-up (``kinds.base._PREBUILT``):
the case takes it instead of making the SDK's streaming call (its request path: about 1 ms of a stream
case), each stream is read by one case only, and a runner process forked after the warm-up takes its
own unread copy while the pytest process's stays unread (issue 33: the harness's own cost per case)."""

from __future__ import annotations

import copy
import os
import pickle

import anthropic
import pytest

from tests.conftest import CASES, REPO
from wireconf.cassettes.store import CassetteStore
from wireconf.kinds import base
from wireconf.kinds.base import HarnessContext, sdk_input, warm_sdk_input
from wireconf.kinds.registry import open_corpus
from wireconf.sdk import replay
from wireconf.sdk.replay import SdkReplay


@pytest.fixture
def stream_case():
    """A stream case of the corpus on an openai api (its SDK sends the request in the streaming call)."""
    return next(c for c in open_corpus(CASES).cases() if c.kind == "stream" and c.api.startswith("openai"))


@pytest.fixture
def ctx(monkeypatch):
    monkeypatch.setattr(base, "_PREBUILT", {})
    return HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())


@pytest.fixture
def streaming_calls(ctx, monkeypatch):
    """The SDK streaming calls made, by case api."""
    made: list[str] = []
    original = ctx.replay.stream_object

    def counted(api, recorded, probe):
        made.append(api)
        return original(api, recorded, probe)

    monkeypatch.setattr(ctx.replay, "stream_object", counted)
    return made


def _read(stream) -> list[str]:
    return [pickle.dumps(event).hex() for event in stream]


def test_a_prebuilt_stream_is_the_case_input_once(ctx, stream_case, streaming_calls):
    warm_sdk_input(ctx, stream_case, stream_input=True)
    warmed = len(streaming_calls)  # the prebuilt stream, and the warm-up's read once per process
    assert warmed >= 1
    first, probe = sdk_input(ctx, stream_case, stream_case.model.response, stream=True)
    assert len(streaming_calls) == warmed  # taken, not built
    second, second_probe = sdk_input(ctx, stream_case, stream_case.model.response, stream=True)
    assert len(streaming_calls) == warmed + 1  # read once: the next input is built anew
    assert first is not second and probe is not second_probe
    events = _read(first)
    assert events and events == _read(second)  # the same events as the SDK's own streaming call gives
    assert probe is not None and probe.read == probe.total  # its probe counted what the SDK read


def test_without_stream_input_nothing_is_prebuilt(ctx, stream_case, streaming_calls):
    warm_sdk_input(ctx, stream_case)
    warmed = len(streaming_calls)
    sdk_input(ctx, stream_case, stream_case.model.response, stream=True)
    assert len(streaming_calls) == warmed + 1  # the case's own call


def test_a_recorded_response_read_anew_is_not_given_another_s_stream(
    ctx, stream_case, streaming_calls, monkeypatch
):
    """A cassette read anew (its file changed: the store parses it again) gives another recorded response
    object, and the stream built for the earlier one is not its input."""
    warm_sdk_input(ctx, stream_case, stream_input=True)
    warmed = len(streaming_calls)
    recorded, where = base._recorded(ctx, stream_case, stream_case.model.response)
    anew = copy.copy(recorded)
    monkeypatch.setattr(base, "_recorded", lambda ctx, case, source: (anew, where))
    sdk_input(ctx, stream_case, stream_case.model.response, stream=True)
    assert len(streaming_calls) == warmed + 1


def test_a_forked_runner_takes_its_own_copy(ctx, stream_case, streaming_calls):
    """The runner process takes the prebuilt stream; the pytest process's stays unread, for the next
    runner process (one forked after a kill, or by a later session)."""
    warm_sdk_input(ctx, stream_case, stream_input=True)
    for _ in range(2):
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # the runner process: take it, read it, say whether no streaming call was made
            try:
                calls = len(streaming_calls)
                stream, _ = sdk_input(ctx, stream_case, stream_case.model.response, stream=True)
                taken = len(_read(stream)) > 0 and len(streaming_calls) == calls
                os.write(writer, b"1" if taken else b"0")
            finally:
                os._exit(0)
        os.close(writer)
        assert os.read(reader, 1) == b"1"
        os.close(reader)
        os.waitpid(pid, 0)
    assert len(base._PREBUILT) == 1  # still there, unread, in this process


RAISES_WHILE_READ = "stream.anthropic.messages.error-event-raises-after-text"
"""A stream case whose recorded stream ends with an error event: the SDK raises as it reads it."""


@pytest.fixture
def raising_case(monkeypatch):
    monkeypatch.setattr(replay, "_STREAMS_READ", set())  # this process has read no stream yet
    return next(c for c in open_corpus(CASES).cases() if c.id == RAISES_WHILE_READ)


def test_a_stream_the_sdk_raises_on_is_prebuilt_too(ctx, raising_case, streaming_calls):
    """The warm-up's read of it raises; the case's own stream is still built ahead, unread (the error is
    the case's, when its runtime reads it), and the case takes it instead of the SDK's streaming call."""
    warm_sdk_input(ctx, raising_case, stream_input=True)
    warmed = len(streaming_calls)
    stream, _ = sdk_input(ctx, raising_case, raising_case.model.response, stream=True)
    assert len(streaming_calls) == warmed  # taken, not built
    with pytest.raises(anthropic.APIStatusError, match="overloaded"):  # the SDK's own, as it reads
        _read(stream)


def test_a_stream_the_sdk_raises_on_is_read_once_per_process(ctx, raising_case, streaming_calls):
    """``SdkReplay.warm`` reads each recorded stream once per process, one it raises on too: a later
    warm-up (a runner forked after a kill, the next session of the process) does not read it again."""
    warm_sdk_input(ctx, raising_case, stream_input=True)
    first = len(streaming_calls)
    warm_sdk_input(ctx, raising_case, stream_input=True)  # its prebuilt stream is there, unread
    assert len(streaming_calls) == first
