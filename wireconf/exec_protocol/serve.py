"""The runtime's side of the exec protocol for Python adapters: serve any in-process adapter over
stdin/stdout, so that a runtime that needs another Python (or another virtualenv) runs in its own.

    # in the runtime's environment (with wireconf installed there too):
    python -m wireconf.exec_protocol.serve mypkg.conformance:Adapter
    # in the harness's environment:
    pytest cases --impl "exec:/opt/py312/bin/python -m wireconf.exec_protocol.serve mypkg.conformance:Adapter"

The adapter receives exactly what it would receive in-process: canonical dicts, and official SDK
objects parsed by the SDK itself from the recorded responses the harness sends (``inputs: recorded``;
``--inputs json``: rebuilt from the provider's JSON of the harness's objects) (protocol 3, ``pipeline``:
a stream's events arrive in batches without being asked for and each ``yield`` says how many of them
the SDK had read, so incremental processing stays visible while the two processes work at once;
``--protocol 2`` pulls them event by event with ``next``, as a runtime of protocol 2 does). Its
results go back as JSON; a ToolCall-like object is sent as its ``id``, ``name`` and ``arguments``.
While a call runs, anything the adapter prints goes to stderr, so stdout stays the protocol's.
"""

from __future__ import annotations

import argparse
import atexit
import base64
import collections
import contextlib
import gc
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, NoReturn

from wireconf.adapter_contract import CONCEPT, Inexpressible, RuntimeOutcome
from wireconf.core.raise_site import Ownership, adapters_own
from wireconf.core.untyped import JSON, AdapterObject, AdapterResult, SDKObject
from wireconf.exec_protocol import PROTOCOL_VERSIONS, SELECTION_VARIABLES
from wireconf.exec_protocol.messages import (
    ProtocolError,
    decode,
    encode,
    error_payload,
    remote_exception,
    to_json,
    writing,
)
from wireconf.exec_protocol.records import Hello
from wireconf.kinds.event_loop import run_to_completion
from wireconf.kinds.registry import KINDS, METHODS
from wireconf.kinds.registry import OPTIONAL_METHODS as REGISTRY_OPTIONAL_METHODS

if TYPE_CHECKING:
    from wireconf.sdk.replay import SdkReplay

SPOKEN = 4
"""The newest protocol this helper speaks: 4, whose windows it acknowledges (`ack`) once read."""

ARGUMENTS: dict[str, tuple[str, ...]] = {name: method.params for name, (_, method) in METHODS.items()}
"""Each method of the contract → its arguments after ``api``, by name (the kinds' records)."""

OPTIONAL_METHODS = tuple(method.name for method in REGISTRY_OPTIONAL_METHODS)
"""Methods of the adapter contract that an adapter MAY have; the hello says which this one has."""

NOT_SERVABLE = tuple(
    f"{kind.name}:"
    for kind in KINDS.values()
    if kind.exec_protocol is None or (kind.method is not None and kind.method.http_client is not None)
)
"""Capabilities this helper does not serve: those that cannot cross a process (trace's spans stay on
the runtime's side) and those whose call hands over an SDK client (e2e: a Python adapter in another
process would need its HTTP bridged back, which this helper does not do), but for an adapter whose
method takes the case's endpoint and no client (``served_over_endpoints``)."""


def served_over_endpoints(adapter: AdapterObject, protocol: int) -> tuple[str, ...]:
    """The kinds of ``NOT_SERVABLE`` this helper serves ``adapter`` after all: under protocol 4 the call
    carries the case's endpoint, which the case's cassette answers, and no client: an ``execute(api,
    agent, messages, *, endpoint)`` (``kinds.e2e.takes_client``) sends its requests there itself,
    nothing to bridge."""
    if protocol < 4:
        return ()
    from wireconf.kinds.e2e import takes_client

    return tuple(
        f"{kind.name}:"
        for kind in KINDS.values()
        if kind.exec_protocol is not None
        and kind.method is not None
        and kind.method.http_client is not None
        and kind.method.takes_endpoint(adapter)
        and not takes_client(adapter)
    )


class _End(Exception):
    pass


class Server:
    """Reads calls on ``stdin``, runs them on ``adapter``, writes the replies on ``stdout``."""

    def __init__(
        self,
        adapter: AdapterObject,
        stdin: IO[str],
        stdout: IO[str],
        protocol: int = SPOKEN,
        recorded: bool = True,
    ) -> None:
        self.adapter = adapter
        self.stdin = stdin
        self.stdout = stdout
        self.protocol = protocol
        self.recorded = recorded
        """``inputs: recorded``: SDK arguments come as the recorded responses, which this process's SDK
        parses as the harness's would in-process (the same bytes, the same object); the harness then
        neither parses a stream's events nor writes SDK objects as JSON for it (``--inputs json``:
        the provider's JSON, rebuilt by the SDK)."""
        self.pipeline = protocol >= 3
        """Protocol 3's ``pipeline``: the harness sends a call's stream events unasked."""
        self._replay: SdkReplay | None = None
        self._last_call = 0
        self._streams: dict[int, Any] = {}
        self._later: collections.deque[dict[str, Any]] = collections.deque()
        """Protocol 4: messages of later calls read while a call waited for the rest of its stream."""
        self._windows: set[int] = set()
        """Protocol 4: the calls whose window (their first ``events``) came."""
        self._acked: set[int] = set()
        """Protocol 4: the calls whose held events were asked for (``ack``)."""
        self._pending: dict[int, list[Any]] = {}
        """Each streamed call's events, as the SDK reads them (their ``read`` goes with each yield)."""

    def send(self, message: dict[str, Any]) -> None:
        writing(message, "runtime")
        self.stdout.write(encode(message) + "\n")
        self.stdout.flush()

    def receive(self) -> dict[str, Any] | None:
        if self._later:
            return self._later.popleft()
        return self._read_line()

    def _read_line(self) -> dict[str, Any] | None:
        line = self.stdin.readline()
        while line and not line.strip():
            line = self.stdin.readline()
        return decode(line, "harness") if line else None

    def warm_up(self, caps: list[str]) -> None:
        """Create the SDK clients the declared capabilities need, complete the SDK models their
        objects are made of, and make one throwaway call of each api (``sdk.replay.warm_up``: the
        SDK's resource modules, imported on its first call, were imported in the first case of each
        api, a tenth of this process's CPU in the cases), before saying `warm`, so that none of it is
        charged to a case's time limit (the harness warms up at the same time, on the other core, and
        longer: this helper says `warm` before the harness needs it). Only those of the kinds and apis
        the run selected (``selected``): a run of wire cases only has no SDK object to rebuild, and
        importing the SDKs anyway was most of this process's CPU (2 s), beside the harness's own."""
        from wireconf.providers.registry import PROVIDER_OF
        from wireconf.sdk.replay import complete_models
        from wireconf.sdk.replay import warm_up as first_call

        apis = set()
        for cap in caps:
            kind, _, api = cap.partition(":")
            if kind == CONCEPT or not selected(kind, api):  # a concept is no kind: no SDK to warm up
                continue
            method = KINDS[kind].method
            if method is not None and method.sdk:  # its calls carry SDK objects
                apis.add(api)
        providers = {PROVIDER_OF[api].name: PROVIDER_OF[api] for api in apis}
        for name in sorted(providers):
            self._sdk().client(providers[name])
        for api in sorted(apis):
            complete_models(api)
            first_call(api)

    def serve(self) -> int:
        # the start-up allocates what lives as long as the process (the SDKs' modules and models, some
        # 300,000 objects): the collector, run again and again over them as they come, would cost a
        # fifth of the warm-up's CPU for next to no garbage (as the harness's warm-up,
        # wireconf/pytest_plugin/runners/warm.py); it resumes, over what the calls allocate, at `warm`
        collecting = gc.isenabled()
        gc.disable()
        served = served_over_endpoints(self.adapter, self.protocol)
        refused = tuple(prefix for prefix in NOT_SERVABLE if prefix not in served)
        caps = sorted(str(c) for c in self.adapter.capabilities() if not str(c).startswith(refused))
        # hello first, then the SDKs' imports (seconds): the harness goes on with its own start-up
        # meanwhile, and waits for `warm` before the first case's time limit starts
        hello = Hello(
            protocol=self.protocol,
            name=str(self.adapter.name),
            version=str(self.adapter.version),
            capabilities=caps,
            optional=[m for m in OPTIONAL_METHODS if callable(getattr(self.adapter, m, None))],
            warming=True,
            categories=True,
            inputs="recorded" if self.recorded else "json",
            # protocol 3: the next calls may come while this one runs; they wait on stdin, in order
            pipeline=self.pipeline,
            ahead=self.pipeline,
            # protocol 4: an adapter whose methods declare `endpoint` is pointed at the case's site
            endpoints=self.protocol >= 4
            and any(method.takes_endpoint(self.adapter) for _, method in METHODS.values()),
        )
        self.send({"type": "hello", **hello.model_dump(exclude_defaults=True)})
        self.warm_up(caps)
        # what the warm-up imported (the SDKs' modules and models, some 300,000 objects) lives as long as
        # the process: out of the collector's sight, it is neither walked by the collections the calls
        # trigger nor by the one at exit, which alone took a second of every stop (as in
        # wireconf/pytest_plugin/frozen_heap.py)
        gc.freeze()
        if collecting:
            gc.enable()
        self.send({"type": "warm"})
        while (message := self.receive()) is not None:
            if message["type"] == "stop":
                return 0
            if message["type"] in ("events", "end") and message.get("id", 0) <= self._last_call:
                continue  # the rest of a stream the call did not read to its end (protocol 3)
            if message["type"] != "call":
                print(
                    f"wireconf serve: ignoring a {message['type']!r} message outside a call", file=sys.stderr
                )
                continue
            self.run_call(message)
        return 0

    # -- one call ----------------------------------------------------------------------------------------

    def run_call(self, call: dict[str, Any]) -> None:
        call_id = self._last_call = call["id"]
        try:
            _, method = METHODS[call["method"]]
            try:
                args = self._arguments(call)
            except Exception as exc:  # its SDK refuses the input, before any adapter code: no verdict
                self.send(
                    {"type": "error", "id": call_id, "error": {**error_payload(exc), "origin": "input"}}
                )
                return
            function = getattr(self.adapter, method.name)
            given = {"endpoint": _endpoint(call["endpoint"])} if "endpoint" in call else {}
            if method.http_client is not None and given:  # the client stays in the harness: left out
                named = zip(ARGUMENTS[method.name], args, strict=True)
                args = [value for name, value in named if name != method.http_client]
            result = function(call["api"], *args, **given) if method.takes_api else function(*args, **given)
            if method.awaited:  # on one loop reused from call to call, as in-process
                result = run_to_completion(result)
            sdk_json = _sdk_json(call.get("api"))
            if method.may_stream and isinstance(result, Iterator):  # a stream: its items, as they come
                for item in result:
                    self.send({"type": "yield", "id": call_id, "item": result_json(item, sdk_json)})
                self.send({"type": "result", "id": call_id, "value": None, "streamed": True})
                return
            if method.yields:
                for item in result:
                    self.send(
                        {
                            "type": "yield",
                            "id": call_id,
                            "item": result_json(item, sdk_json),
                            **self._read(call_id),
                        }
                    )
                result = None
            self.send({"type": "result", "id": call_id, "value": result_json(result, sdk_json)})
        except Exception as exc:
            self.send({"type": "error", "id": call_id, "error": self._error(exc)})
        finally:
            self._streams.pop(call_id, None)
            self._acked.discard(call_id)
            self._windows.discard(call_id)

    def _error(self, exc: Exception) -> dict[str, Any]:
        """The error message's ``error``: the adapter's ``Inexpressible`` says so (the case is then
        unsupported), and an exception of the adapter's own code says ``origin: adapter`` and where
        (``wireconf.core.raise_site``: the case is then an error naming the adapter, no verdict)."""
        payload = error_payload(exc, categories=True)
        if isinstance(exc, Inexpressible):
            return {**payload, "inexpressible": True}
        at = adapters_own(exc, Ownership.of(self.adapter), (RuntimeOutcome,))
        return payload if at is None else {**payload, "origin": "adapter", "at": at}

    def _read(self, call_id: int) -> dict[str, int]:
        """Protocol 3: how many events of the call's stream the SDK had read (the harness's probe)."""
        stream = self._streams.get(call_id)
        return {"read": stream.read} if self.pipeline and stream is not None else {}

    def _arguments(self, call: dict[str, Any]) -> list[Any]:
        args = dict(call.get("args") or {})
        api = call["api"]
        for name in call.get("sdk") or []:
            args[name] = self._sdk_object(api, args[name])
        if call.get("stream"):
            args[call["stream"]] = self._sdk_stream(api, call["id"], args.get(call["stream"]))
        return [args.get(name) for name in ARGUMENTS[call["method"]]]

    # -- SDK objects, rebuilt by the SDKs themselves ---------------------------------------------------

    def _sdk(self) -> SdkReplay:
        if self._replay is None:
            from wireconf.sdk.replay import SdkReplay

            self._replay = SdkReplay()
        return self._replay

    def _sdk_object(self, api: str, data: Any) -> SDKObject:
        from wireconf.cassettes.store import RecordedResponse

        if self.recorded:  # a `Recorded`: status, headers and body as recorded
            body = _bytes(data["body"], data.get("encoding"))
            return self._sdk().response_object(api, RecordedResponse(data["status"], data["headers"], body))
        body = json.dumps(data).encode("utf-8")
        return self._sdk().response_object(
            api, RecordedResponse(200, {"content-type": ["application/json"]}, body)
        )

    def _sdk_stream(self, api: str, call_id: int, head: Any = None) -> SDKObject:
        if self.recorded:  # a `RecordedHead`; the events are the recorded bytes, as they came
            return self._recorded_stream(api, call_id, head)
        from wireconf.cassettes.store import RecordedResponse
        from wireconf.core.stream_probe import StreamProbe
        from wireconf.providers.registry import APIS

        sse = APIS[api].sse
        assert sse is not None, f"{api} has no event stream"
        frame = sse  # narrowed once, for the class below (mypy does not carry narrowing into it)
        trailer = frame([])
        server = self

        class PulledEvents(StreamProbe):
            """Events fetched from the harness one at a time, as the SDK reads them."""

            def chunks(self) -> Iterator[bytes]:
                while True:
                    try:
                        event = server.pull(call_id)
                    except _End:
                        self.read += 1  # protocol 3 counts the end as one pull, as `next` did
                        if trailer:
                            yield trailer
                        return
                    self.read += 1
                    framed = frame([event])
                    yield framed[: len(framed) - len(trailer)] if trailer else framed

        recorded = RecordedResponse(200, {"content-type": ["text/event-stream"]}, b"")
        events = self._streams[call_id] = PulledEvents(events=[])
        return self._sdk().stream_object(api, recorded, events)

    def _recorded_stream(self, api: str, call_id: int, head: Any) -> SDKObject:
        """``inputs: recorded``: the SDK reads the recorded stream's own bytes (``chunk``s), each counted
        as read when pulled, the end too (as ``PulledEvents``)."""
        from wireconf.cassettes.store import RecordedResponse
        from wireconf.core.stream_probe import StreamProbe

        server = self

        class PulledChunks(StreamProbe):
            def chunks(self) -> Iterator[bytes]:
                while True:
                    try:
                        item = server.pull(call_id)
                    except _End:
                        self.read += 1
                        return
                    self.read += 1
                    yield _bytes(item["chunk"], item.get("encoding"))

        recorded = RecordedResponse(head["status"], head["headers"], b"")
        events = self._streams[call_id] = PulledChunks(events=[])
        return self._sdk().stream_object(api, recorded, events)

    def pull(self, call_id: int) -> JSON:
        """The next event of the call's stream: asked for with ``next``, or (protocol 3) taken from the
        batches the harness sends unasked; ``end`` with an ``error`` raises it, as the SDK would."""
        if self.pipeline:
            return self._unasked(call_id)
        self.send({"type": "next", "id": call_id})
        message = self._message_of(call_id)
        if message["type"] == "end":
            raise _End
        if message["type"] != "event":
            raise ProtocolError(f"expected an event for call {call_id}, got {message}")
        return message if self.recorded else message["event"]  # recorded: its `chunk`

    def _unasked(self, call_id: int) -> Any:
        """The next event the harness sent unasked; protocol 4: once the window (the call's first
        ``events``) is read, ``ack`` asks for the rest (the last event and the ``end``, held till then)."""
        pending = self._pending.setdefault(call_id, [])
        while not pending:
            if self.protocol >= 4 and call_id in self._windows and call_id not in self._acked:
                self._acked.add(call_id)  # it read the whole window: the harness sends the rest
                self.send({"type": "ack", "id": call_id})
            message = self._message_of(call_id)
            if message["type"] == "end":
                self._pending.pop(call_id, None)
                if message.get("error"):
                    raise remote_exception(message["error"])
                raise _End
            if message["type"] != "events":
                raise ProtocolError(f"expected events for call {call_id}, got {message}")
            items = message["events"]  # recorded: each its `chunk`
            pending.extend(reversed(items if self.recorded else [item["event"] for item in items]))
            self._windows.add(call_id)
        return pending.pop()

    def _message_of(self, call_id: int) -> dict[str, Any]:
        """The next message of call ``call_id``. Protocol 4: the rest of its stream comes after its
        ``ack``, behind the calls the harness sent ahead meanwhile; those wait for their turn."""
        for i, message in enumerate(self._later):
            if message.get("id") == call_id:
                del self._later[i]
                return message
        while True:
            read = self._read_line()
            if read is None:
                raise SystemExit(0)  # the harness is gone
            if read.get("id") == call_id:
                return read
            if read["type"] in ("events", "end") and isinstance(read.get("id"), int) and read["id"] < call_id:
                continue  # the rest of a stream an earlier call did not read to its end
            if self.protocol < 4 or not isinstance(read.get("id"), int) or read["id"] < call_id:
                raise ProtocolError(f"expected a message of call {call_id}, got {read}")
            self._later.append(read)


def selected(kind: str, api: str, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the run selected ``kind`` and ``api``, as the harness names its selection in the
    runtime's environment (``WIRECONF_KINDS``, ``WIRECONF_APIS``: ``launch.set_selection``); a variable
    absent selects every one. A call outside the selection is still answered (its SDK loaded then)."""
    for variable, name in zip(SELECTION_VARIABLES, (kind, api), strict=True):
        chosen = environ.get(variable)
        if chosen is not None and name not in chosen.split(","):
            return False
    return True


def _bytes(text: str, encoding: str | None) -> bytes:
    """Recorded bytes as they cross: UTF-8 text, or base64 with ``encoding: base64``."""
    return base64.b64decode(text) if encoding == "base64" else text.encode("utf-8")


def _endpoint(data: dict[str, Any]) -> Any:
    """The call's ``endpoint`` (protocol 4, ``endpoints``) as the adapter's methods take it in-process."""
    from wireconf.emulator.routes import Endpoint

    return Endpoint(**data)


def _sdk_json(api: str | None) -> Callable[[Any], Any] | None:
    """How the provider of ``api`` writes its SDK objects as JSON (its record's ``sdk_json``)."""
    from wireconf.providers.registry import PROVIDER_OF

    provider = PROVIDER_OF.get(api or "")
    return provider.sdk_json if provider is not None else None


def result_json(value: AdapterResult, sdk_json: Callable[[Any], Any] | None = None) -> JSON:
    """A result as JSON: data as is, a ToolCall-like object as its three fields, an SDK object as its
    provider's JSON; anything else cannot be sent, which the harness is told as an error."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): result_json(v, sdk_json) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [result_json(v, sdk_json) for v in value]
    if hasattr(value, "name") and hasattr(value, "arguments") and not isinstance(value, type):
        return {f: result_json(getattr(value, f, None), sdk_json) for f in ("id", "name", "arguments")}
    return to_json(value, sdk_json)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m wireconf.exec_protocol.serve",
        description="Serve a wireconf adapter over the exec protocol (stdin/stdout JSON lines).",
    )
    parser.add_argument("impl", help="the adapter: an entry point name, module:attribute or module")
    parser.add_argument(
        "--protocol",
        type=int,
        choices=[v for v in PROTOCOL_VERSIONS if 2 <= v <= SPOKEN],
        default=SPOKEN,
        help="the protocol version to speak (2: no pipeline, a stream's events pulled one by one)",
    )
    parser.add_argument(
        "--inputs",
        choices=["recorded", "json"],
        default="recorded",
        help="SDK arguments as the recorded responses, parsed here by the SDK (default), or as the "
        "provider's JSON of the objects the harness parsed",
    )
    args = parser.parse_args(argv)
    from wireconf.runtimes.python_impl import ImplError, load_python

    try:
        adapter = load_python(args.impl).adapter
    except ImplError as exc:
        print(f"wireconf serve: {exc}", file=sys.stderr)
        return 2
    protocol_out = sys.stdout
    sys.stdout = sys.stderr  # what the adapter prints must not corrupt the protocol
    return Server(adapter, sys.stdin, protocol_out, args.protocol, args.inputs == "recorded").serve()


def _exit(code: int) -> NoReturn:
    """Leave without the interpreter's teardown (every module cleared, then a last collection: about
    0.2 s after a corpus run, which the harness waits for at its stop); the adapter's exit handlers
    (``atexit``, ``logging``'s flush) still run, and the output is flushed."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__):  # sys.__stdout__: the protocol's
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    os._exit(code)


if __name__ == "__main__":
    _exit(main())
