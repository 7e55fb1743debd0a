"""Building one call's messages: its arguments as JSON (SDK objects as their provider's JSON, or as the
recorded responses they were parsed from), and its stream's events, pulled or sent in batches."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from wireconf.cassettes.downloads import Downloads, refused
from wireconf.core.errors import NotJudged, WireconfError
from wireconf.core.stream_probe import StreamProbe
from wireconf.core.untyped import AdapterResult
from wireconf.exec_protocol.http_bridge import HttpBridge
from wireconf.exec_protocol.messages import chunk_json, error_payload, recorded_json, to_json
from wireconf.exec_protocol.routes import Sent
from wireconf.providers.registry import PROVIDER_OF
from wireconf.sdk.origins import Origin, Unparsed, origin_of


def build_call(
    kind: str,
    api: str | None,
    method: str,
    args: dict[str, Any],
    sdk: list[str],
    stream: tuple[str, Iterable[object]] | None,
    recorded_inputs: bool,
    pipeline: bool,
    windowed: bool = False,
) -> tuple[Sent, Iterator[Any] | None]:
    """A call's messages (with id 0 until written): the call and, under ``pipeline``, its stream's
    events in batches (protocol 4, ``windowed``: all but the last in one message, the last and the
    ``end`` held until the runtime's ``ack``); else the events, pulled with ``next`` as the call runs."""
    sdk_json = sdk_json_of(api)
    downloads = Downloads(args.get("messages"))
    probe = probe_of(stream[1]) if stream is not None else None
    events: Iterator[Any] | None
    if recorded_inputs:
        args, events = as_recorded(args, sdk, stream)
    else:
        events = iter(stream[1]) if stream is not None else None
    message = {
        "type": "call",
        "id": 0,
        "kind": kind,
        "api": api,
        "method": method,
        "args": to_json(args, sdk_json),
        "sdk": sdk,
        "stream": stream[0] if stream is not None else None,
    }
    entry = Sent(method, [message], downloads, probe)
    if pipeline and events is not None:  # protocol 3: the events go without being asked
        sent = list(batches(events, sdk_json, probe, entry.marks))
        if windowed:
            sent, entry.held, entry.window = window(sent)
        entry.messages.extend({"id": 0, **batch} for batch in sent)
        entry.held = [{"id": 0, **batch} for batch in entry.held]
        events = None  # the runtime asks for none of them
    return entry, events


def sdk_json_of(api: str | None) -> Callable[[Any], Any] | None:
    """How the provider of ``api`` writes its SDK objects as JSON."""
    return PROVIDER_OF[api].sdk_json if api in PROVIDER_OF else None


def http_answer(
    request: dict[str, Any], downloads: Downloads, http: HttpBridge | None
) -> tuple[dict[str, Any], Iterator[bytes] | None]:
    """The ``response`` fields for an ``http`` request: a download of a media URL the call's input
    names gets its fixture (``wireconf.cassettes.downloads``), any other request goes through the e2e
    bridge when the call has one, else it is refused as a network attempt (kept: the case is an error)."""
    method, url = str(request.get("method", "GET")), str(request.get("url", ""))
    found = downloads.lookup(url) if method.upper() in ("GET", "HEAD") else None
    if found is not None:
        headers: dict[str, list[str]] = {}
        for name, value in found.headers:
            headers.setdefault(name, []).append(value)
        return recorded_json(found.status, headers, found.body), None
    if http is not None:
        return http.send(request)
    return {"error": str(refused(url))}, None


@contextlib.contextmanager
def written_by_harness(method: str) -> Iterator[None]:
    """Writing a call's input as JSON is the harness's work: what fails in it (an SDK object pydantic
    cannot dump, a warning made an error by ``-W error``) leaves the case unjudged, never a verdict on
    the runtime, which has not been called."""
    try:
        yield
    except WireconfError:
        raise
    except Exception as exc:
        raise NotJudged(
            f"the harness could not write the input of {method} as JSON for the runtime: {exc!r}"
        ) from exc


BATCH_EVENTS = 64
"""Stream events per ``events`` message (protocol 3): a few lines for a stream, none of them huge."""


def event_json(event: Any, sdk_json: Callable[[Any], Any] | None) -> dict[str, Any]:
    """One stream event as it crosses: raw bytes (recorded inputs, an e2e body) as a ``chunk``, an SDK
    event as the provider's JSON."""
    return chunk_json(event) if isinstance(event, bytes) else {"event": to_json(event, sdk_json)}


def batches(
    events: Iterator[Any], sdk_json: Callable[[Any], Any] | None, probe: StreamProbe | None, marks: list[int]
) -> Iterator[dict[str, Any]]:
    """A call's stream as protocol 3 sends it: ``events`` messages of up to ``BATCH_EVENTS`` each, then
    ``end``, which carries the error the harness's SDK raised reading the recorded stream (an error
    event), for the runtime's SDK to raise where it reads on. ``marks`` gets where ``probe`` stood
    before the first event and after each pull (the end counted as one): a runtime that says it had
    pulled ``k`` is where the harness's probe would be had it pulled them one by one."""
    batch: list[dict[str, Any]] = []
    end: dict[str, Any] = {"type": "end"}
    marks.append(probe.read if probe is not None else 0)
    while True:
        try:
            event = next(events)
        except StopIteration:
            break
        except Exception as exc:
            end["error"] = error_payload(exc, categories=True)  # its category too, to raise as it came
            break
        finally:
            marks.append(probe.read if probe is not None else 0)
        batch.append(event_json(event, sdk_json))
        if len(batch) == BATCH_EVENTS:
            yield {"type": "events", "events": batch}
            batch = []
    if batch:
        yield {"type": "events", "events": batch}
    yield end


def window(sent: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """Protocol 4: a stream's ``batches`` as the one ``events`` message sent with the call (its events
    but the last; empty for a stream of one), those held until the runtime's ``ack`` (the last event
    and the ``end``), and how many events go before it. The runtime acks once it has read that
    message's events: one message, so that it cannot ack while more of them are on their way."""
    events = [event for batch in sent[:-1] for event in batch["events"]]
    end = sent[-1]
    last = [{"type": "events", "events": events[-1:]}] if events else []
    return [{"type": "events", "events": events[:-1]}], [*last, end], max(0, len(events) - 1)


def probe_of(stream: object) -> StreamProbe | None:
    """The probe that counts the events of a stream the harness parsed (``None`` for any other)."""
    origin = origin_of(stream)
    return origin.probe if origin is not None else None


def recorded_origin(sdk_object: object, name: str) -> Origin:
    """Where the harness got ``sdk_object`` from; ``NotJudged`` for an object it did not parse itself."""
    origin = origin_of(sdk_object)
    if origin is None:
        raise NotJudged(
            f"the runtime asked for recorded inputs, but `{name}` ({type(sdk_object).__name__}) was not "
            "parsed by the harness from a recorded response"
        )
    return origin


def as_recorded(
    args: dict[str, Any], sdk: list[str], stream: tuple[str, Iterable[object]] | None
) -> tuple[dict[str, Any], Iterator[bytes] | None]:
    """``inputs: recorded`` (protocol 2): each SDK argument as the response it was parsed from, and a
    streamed argument as its head in ``args`` with its events pulled from the same probe the SDK object
    reads (each one counted as read, as in-process), as raw bytes."""
    args = dict(args)
    for name in sdk:
        recorded = recorded_origin(args[name], name).recorded
        args[name] = recorded_json(recorded.status, recorded.headers, recorded.body)
    if stream is None:
        return args, None
    name, sdk_stream = stream
    origin = recorded_origin(sdk_stream, name)
    assert origin.probe is not None, f"`{name}` is not a stream"
    args[name] = recorded_json(origin.recorded.status, origin.recorded.headers, None)
    return args, origin.probe.chunks()


def is_sdk_object(value: AdapterResult) -> bool:
    """An SDK response (a pydantic model, or the unparsed recorded response that stands for one) rather
    than a stream of events."""
    if isinstance(value, Unparsed):
        return value.probe is None
    return hasattr(type(value), "model_fields")
