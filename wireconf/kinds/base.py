"""What the kinds share: the session's context, the inputs cases refer to (cassette → SDK object) and
how an adapter's exception becomes an outcome."""

from __future__ import annotations

import contextlib
import json
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from wireconf.cassettes.recording import RecordingPolicy
from wireconf.cassettes.store import CassetteError, CassetteStore, RecordedResponse
from wireconf.core.errors import CaseInputError
from wireconf.core.report_text import machine_free, short_path
from wireconf.core.stream_probe import StreamProbe, split_events
from wireconf.core.untyped import SDKObject
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import CaseBase, CassetteRef, InlineResponse, Response
from wireconf.judging.outcome import Outcome
from wireconf.kinds.sites import CaseSites
from wireconf.sdk.origins import Unparsed, remember
from wireconf.sdk.replay import SdkReplay, api_record, streaming_record

ADAPTER_ERRORS = (Exception, SystemExit)
"""What an adapter may raise as an outcome; KeyboardInterrupt still stops the run."""


@dataclass
class HarnessContext:
    """Shared per session: cassettes parsed once, SDK replay clients created once, the record mode."""

    cassettes: CassetteStore
    replay: SdkReplay
    recording: RecordingPolicy = field(default_factory=RecordingPolicy)
    on_written: Callable[[Path], None] | None = None
    """Told each cassette an exchange writes, as soon as it is written."""
    opened: list[Any] = field(default_factory=list)
    """The exchanges opened by the case running now (cancelled when it is abandoned)."""
    sites: CaseSites = field(default_factory=CaseSites)
    """The case's sites on the provider emulator (``wireconf.kinds.sites``), replaced per case."""
    reads_recorded: bool = False
    """The session's runtime parses its SDK inputs from the recorded responses itself
    (``adapter_contract.ReadsRecorded``): ``runtime_input`` gives them unparsed."""


_HARNESS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")
_REFERENCE = os.path.join(_HARNESS, "reference_impl", "")


def _harness_frame(filename: str) -> bool:
    """A frame of the harness's own code (``wireconf/``), not of the reference (``wireconf/reference_impl/``),
    which is an adapter like any other."""
    path = os.path.abspath(filename)
    return path.startswith(_HARNESS) and not path.startswith(_REFERENCE)


def adapter_traceback(exc: BaseException) -> str:
    """The traceback of an adapter's exception without the harness's own frames; an exception raised in
    a runtime process (``exec:``) carries that process's own traceback text."""
    remote = getattr(exc, "wireconf_traceback", None)
    if isinstance(remote, str) and remote:
        return machine_free(remote)
    frames = traceback.extract_tb(exc.__traceback__)
    kept = [f for f in frames if not _harness_frame(f.filename)] or frames
    for frame in kept:
        frame.filename = short_path(frame.filename)
    lines = traceback.format_list(kept[-12:]) + traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()


def raised(exc: BaseException, **extra: Any) -> Outcome[Any]:
    return Outcome(raised=exc, traceback=partial(adapter_traceback, exc), **extra)


def _recorded(
    ctx: HarnessContext, case: LoadedCase[CaseBase], source: Response
) -> tuple[RecordedResponse, str]:
    """The response ``source`` names and where it is, unchecked."""
    if isinstance(source, CassetteRef):
        try:
            interaction = ctx.cassettes.interaction(source.cassette, source.interaction)
            where = ctx.cassettes.load(source.cassette).where(source.interaction)
        except CassetteError as exc:
            raise CaseInputError(str(exc)) from exc
        recorded = interaction.response
    else:
        assert isinstance(source, InlineResponse)
        where = "the inline response"
        recorded = _inline_recorded(ctx, case.api, source)
    return recorded, where


_INLINE: dict[int, tuple[InlineResponse, str, RecordedResponse]] = {}
"""The recorded response of each inline ``response``, made once per process like a cassette's (its
checks and its parse key are then worked out once, its bytes hashed once): by the object, which is kept
here so that its id stays its own."""
_INLINE_KEPT = 4096


def _inline_recorded(ctx: HarnessContext, api: str, source: InlineResponse) -> RecordedResponse:
    kept = _INLINE.get(id(source))
    if kept is not None and kept[0] is source and kept[1] == api:
        return kept[2]
    if "body" in source.model_fields_set:
        body = json.dumps(source.body).encode("utf-8")
        headers = {"content-type": ["application/json"]}
    elif source.events is not None:
        body = ctx.replay.inline_sse(api, source.events)
        headers = {"content-type": ["text/event-stream"]}
    else:
        body = (source.sse or "").encode("utf-8")
        headers = {"content-type": ["text/event-stream"]}
    headers.update({k.lower(): [v] for k, v in source.headers.items()})
    recorded = RecordedResponse(source.status, headers, body)
    if len(_INLINE) >= _INLINE_KEPT:
        _INLINE.pop(next(iter(_INLINE)))
    _INLINE[id(source)] = (source, api, recorded)
    return recorded


def recorded_response(
    ctx: HarnessContext, case: LoadedCase[CaseBase], source: Response, stream: bool
) -> RecordedResponse:
    """The response ``source`` (the case's ``response``) names, from its cassette or written inline."""
    recorded, where = _recorded(ctx, case, source)
    if recorded.problem is not None:
        raise CaseInputError(f"the response of {where} {recorded.problem}")
    if stream != recorded.is_event_stream:
        wanted = "an event stream (text/event-stream)" if stream else "a non-streaming response"
        raise CaseInputError(f"{where} is not {wanted}; a {case.kind} case needs one")
    if not 200 <= recorded.status < 300:
        raise CaseInputError(
            f"{where} is an HTTP {recorded.status} error response: the SDK raises before any processor "
            f"sees it, so it cannot be the input of a {case.kind} case"
        )
    return recorded


def recorded_uri(ctx: HarnessContext, source: Response) -> str | None:
    """The URI of the request a cassette response answered (where an api's version is read from:
    Gemini's), or ``None`` for an inline one."""
    if not isinstance(source, CassetteRef):
        return None
    try:
        return ctx.cassettes.interaction(source.cassette, source.interaction).request.uri
    except CassetteError:
        return None


def sdk_input(
    ctx: HarnessContext, case: LoadedCase[CaseBase], source: Response, stream: bool
) -> tuple[SDKObject, StreamProbe | None]:
    """The official SDK's object for the response ``source`` names (a stream comes with its probe)."""
    recorded = recorded_response(ctx, case, source, stream)
    built = _PREBUILT.pop(_prebuilt_key(case, recorded), None) if stream else None
    probe: StreamProbe | None
    if built is not None and built[0] is recorded:
        _, sdk_object, probe = built
    else:
        probe = StreamProbe(split_events(recorded.body)) if stream else None
        try:
            if probe is not None:
                sdk_object = ctx.replay.stream_object(case.api, recorded, probe)
            else:
                sdk_object = ctx.replay.response_object(case.api, recorded)
        except Exception as exc:
            raise CaseInputError(f"the SDK could not parse the recorded response: {exc!r}") from exc
    remember(sdk_object, recorded, probe)  # for runtimes whose own SDK parses the bytes (exec:)
    return sdk_object, probe


def runtime_input(
    ctx: HarnessContext, case: LoadedCase[CaseBase], source: Response, stream: bool
) -> tuple[SDKObject, StreamProbe | None]:
    """The SDK input of a case's runtime call (of a kind whose ``unparsed_inputs`` says it goes nowhere
    else): ``sdk_input``'s object, or, for a runtime that parses recorded responses itself
    (``ctx.reads_recorded``), the recorded response as it is (``Unparsed``), checked as ``sdk_input``
    checks it before any parsing, a stream with the probe that counts the events the runtime is sent.
    The runtime's own SDK parses it, so the harness imports none (about 2 s of CPU per session)."""
    if not ctx.reads_recorded:
        return sdk_input(ctx, case, source, stream)
    recorded = recorded_response(ctx, case, source, stream)
    # CaseInputError for an api no provider declares (or, for a stream, one with no streaming call)
    streaming_record(case.api) if stream else api_record(case.api)
    probe = StreamProbe(split_events(recorded.body)) if stream else None
    return Unparsed(recorded, probe), probe


_PREBUILT: dict[tuple[str, str, int], tuple[RecordedResponse, SDKObject, StreamProbe]] = {}
"""An SDK stream object (and its probe) built ahead for a case, unread, by case and recorded response:
``sdk_input`` takes it (once) instead of making the SDK's streaming call for the case. A stream is read
once, so each is a case's own; built in the pytest process before the runner process is forked
(``warm_sdk_input``), every fork (a runner started after a kill, a later session's) takes its own
unread copy, while the pytest process's stays unread. The recorded response is kept with it, so that
its id names no other. The SDK's streaming call is its request path
(the request built, sent through the replay transport, the response wrapped): about 0.5 ms in a
warm loop, 1 ms in a case, a stream case's largest harness cost."""
_PREBUILT_KEPT = 4096


def _prebuilt_key(case: LoadedCase[CaseBase], recorded: RecordedResponse) -> tuple[str, str, int]:
    """A case's stream input: its id, its api and the very recorded response (the cassette store keeps
    one object per interaction; a recorded response parsed anew is another input)."""
    return (case.id, case.api, id(recorded))


def _prebuild(ctx: HarnessContext, case: LoadedCase[CaseBase], recorded: RecordedResponse) -> None:
    key = _prebuilt_key(case, recorded)
    kept = _PREBUILT.get(key)
    if kept is not None and kept[0] is recorded:
        return
    probe = StreamProbe(split_events(recorded.body))
    sdk_object = ctx.replay.stream_object(case.api, recorded, probe)
    if len(_PREBUILT) >= _PREBUILT_KEPT:
        _PREBUILT.pop(next(iter(_PREBUILT)))
    _PREBUILT[key] = (recorded, sdk_object, probe)


def warm_sdk_input(ctx: HarnessContext, case: LoadedCase[CaseBase], stream_input: bool = False) -> None:
    """Have the SDK parse the recorded response a case's ``response`` names, once per process, before
    any case runs (``SdkReplay.warm``): best effort, since the case itself reports any problem. With
    ``stream_input`` (a kind whose input is the SDK's stream), the case's unread stream is built too
    (``_PREBUILT``)."""
    source = getattr(case.model, "response", None)
    if not isinstance(source, CassetteRef | InlineResponse):
        return
    try:
        recorded, _ = _recorded(ctx, case, source)
        if recorded.problem is not None or not 200 <= recorded.status < 300:
            return
    except Exception:  # the case's own preparation says what is wrong with its input
        return
    with contextlib.suppress(Exception):  # a stream the SDK raises on while it is read, and the like
        ctx.replay.warm(case.api, recorded)
    if stream_input and recorded.is_event_stream:  # built unread: its error comes as the case reads it
        with contextlib.suppress(Exception):
            _prebuild(ctx, case, recorded)
