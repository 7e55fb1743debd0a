"""The replay transport: recorded responses served to a real SDK client, keyed per request.

Each prepared response gets a key; the SDK call carries it in an ``x-wireconf-replay`` header and the
transport answers that request, and only that one, with it. Keys keep the shared client safe when a
timed-out call is abandoned mid-stream, and with SDKs whose streams send their request lazily
(google-genai sends it on the first ``next()``).

Streams are served one event per transport chunk through a ``StreamProbe``, which counts the events
the SDK has read; that is how the harness sees whether a runtime processes a stream incrementally.
"""

from __future__ import annotations

import itertools
import threading
from types import ModuleType
from typing import Any

from wireconf.cassettes.store import RecordedResponse
from wireconf.core.errors import NotJudged
from wireconf.core.stream_probe import StreamProbe

REPLAY_HEADER = "x-wireconf-replay"


class ReplayTransport:
    """Serves prepared responses to the requests that carry their key."""

    def __init__(self, http: ModuleType) -> None:
        self.http = http
        self._prepared: dict[str, Any] = {}
        self._keys = itertools.count(1)
        self._lock = threading.Lock()
        self.transport = http.MockTransport(self._serve)

        class ReplayStream(http.SyncByteStream):  # type: ignore[misc, name-defined]  # the module's own
            def __init__(self, probe: StreamProbe) -> None:
                self.probe = probe

            def __iter__(self) -> Any:
                return self.probe.chunks()

        self._stream_class = ReplayStream
        """A response body that is a probe's events, one per chunk: one class per HTTP module, made here
        rather than for every stream (a class costs tens of microseconds to make)."""

    def _serve(self, request: Any) -> Any:
        key = request.headers.get(REPLAY_HEADER)
        with self._lock:
            response = self._prepared.pop(key, None)
        if response is None:
            raise NotJudged(
                f"wireconf replay: no response prepared for {request.method} {request.url}",
                hint="the runtime sent a request the case did not record (a second call, or one after its "
                "stream ended); a recorded response answers one request",
            )
        return response

    def prepare(self, recorded: RecordedResponse, probe: StreamProbe | None = None) -> dict[str, str]:
        """Prepare one response; returns the headers the SDK call must send to receive it."""
        headers = [(k, v) for k, values in recorded.headers.items() for v in values]
        if probe is not None:
            response = self.http.Response(recorded.status, headers=headers, stream=self._stream_class(probe))
        else:
            response = self.http.Response(recorded.status, headers=headers, content=recorded.body)
        key = str(next(self._keys))
        with self._lock:
            self._prepared[key] = response
        return {REPLAY_HEADER: key}
