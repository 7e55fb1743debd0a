"""What every kind driver shares: the outcome of one adapter call and the inputs cases refer to."""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cassettes.recording import RecordingPolicy
from harness.cassettes.store import CassetteError, CassetteStore, RecordedResponse
from harness.corpus.model import CassetteRef, InlineResponse
from harness.sdk.origins import remember
from harness.sdk.replay import SdkReplay
from harness.sdk.transport import StreamProbe, split_events

if TYPE_CHECKING:
    from harness.corpus.loader import LoadedCase


class CaseInputError(Exception):
    """The case's inputs cannot be prepared (missing cassette, error response, …): a harness error."""


class ContractError(Exception):
    """The adapter broke the adapter contract (a result of the wrong type, a method it lacks): no verdict."""


@dataclass
class Outcome:
    """What the adapter did with one case, before canonicalisation."""

    value: Any = None
    raised: BaseException | None = None
    traceback: str = ""
    yielded: list[Any] = field(default_factory=list)
    probe: StreamProbe | None = None
    variants: list[tuple[str, Outcome]] = field(default_factory=list)
    """Other methods judged against the same expectation (``process_async`` beside ``process``)."""
    context: Any = None
    """What a kind observed besides the value, for its own ``judge`` (e2e: the HTTP exchange)."""


ADAPTER_ERRORS = (Exception, SystemExit)
"""What an adapter may raise as an outcome; KeyboardInterrupt still stops the run."""

Call = Callable[[Any], Outcome]
"""Given the adapter object, run the case's adapter call and report its outcome."""


@dataclass
class HarnessContext:
    """Shared per session: cassettes parsed once, SDK replay clients created once, the record mode."""

    cassettes: CassetteStore
    replay: SdkReplay
    recording: RecordingPolicy = field(default_factory=RecordingPolicy)


def _short_path(filename: str) -> str:
    """A frame's file without the machine-specific prefix (venv, checkout), so that a failure reads the
    same on every machine and a findings page rebuilt elsewhere is byte-identical."""
    posix = filename.replace("\\", "/")
    marker = posix.rfind("/site-packages/")
    if marker >= 0:
        return posix[marker + 1 :]
    try:
        return str(Path(filename).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return filename


def adapter_traceback(exc: BaseException) -> str:
    """The traceback of an adapter's exception without the harness's own frames; an exception raised in
    a runtime process (``exec:``) carries that process's own traceback text."""
    remote = getattr(exc, "wireconf_traceback", None)
    if isinstance(remote, str) and remote:
        return remote
    frames = traceback.extract_tb(exc.__traceback__)
    kept = [f for f in frames if "/harness/" not in f.filename.replace("\\", "/")] or frames
    for frame in kept:
        frame.filename = _short_path(frame.filename)
    lines = traceback.format_list(kept[-12:]) + traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()


def raised(exc: BaseException, **extra: Any) -> Outcome:
    return Outcome(raised=exc, traceback=adapter_traceback(exc), **extra)


def recorded_response(ctx: HarnessContext, case: LoadedCase, stream: bool) -> RecordedResponse:
    """The response a case names, from its cassette or written inline."""
    source = case.model.response  # type: ignore[attr-defined]
    if isinstance(source, CassetteRef):
        try:
            interaction = ctx.cassettes.interaction(source.cassette, source.interaction)
        except CassetteError as exc:
            raise CaseInputError(str(exc)) from exc
        recorded = interaction.response
        where = f"interaction {source.interaction} of cassette {source.cassette}"
    else:
        assert isinstance(source, InlineResponse)
        where = "the inline response"
        if "body" in source.model_fields_set:
            body = json.dumps(source.body).encode("utf-8")
            headers = {"content-type": ["application/json"]}
        elif source.events is not None:
            body = ctx.replay.inline_sse(case.api, source.events)
            headers = {"content-type": ["text/event-stream"]}
        else:
            body = (source.sse or "").encode("utf-8")
            headers = {"content-type": ["text/event-stream"]}
        headers.update({k.lower(): [v] for k, v in source.headers.items()})
        recorded = RecordedResponse(source.status, headers, body)
    if stream != recorded.is_event_stream:
        wanted = "an event stream (text/event-stream)" if stream else "a non-streaming response"
        raise CaseInputError(f"{where} is not {wanted}; a {case.kind} case needs one")
    if not 200 <= recorded.status < 300:
        raise CaseInputError(
            f"{where} is an HTTP {recorded.status} error response: the SDK raises before any processor "
            f"sees it, so it cannot be the input of a {case.kind} case"
        )
    return recorded


def sdk_input(ctx: HarnessContext, case: LoadedCase, stream: bool) -> tuple[Any, StreamProbe | None]:
    """The official SDK's object for the case's response (a stream comes with its probe)."""
    recorded = recorded_response(ctx, case, stream)
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
