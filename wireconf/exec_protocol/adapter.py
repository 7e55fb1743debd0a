"""``ExecAdapter``: the adapter object of an out-of-process runtime (``--impl exec:COMMAND``).

Its methods are generated from the kinds (``_bind``); each call is built (``calls``), run as one
conversation (``conversation``), or, while ``send_ahead`` captures a case's calls, only built
(``ahead``). The runtime's life is the supervisor's. It satisfies ``OutOfProcess`` (the inline runner's
seam): ``network``, ``sends_ahead``, ``ready``, ``time_limit``, ``send_ahead``, ``has_sent_ahead``,
``keep_ahead``, ``claimed``, ``flush``, ``close``; and ``ReadsRecorded`` (``reads_recorded``).

``WIRECONF_EXEC_TRANSCRIPT=FILE`` appends every message, both ways, to FILE as JSON lines
``{"from": "harness"|"runtime", "message": {...}}`` (the tests validate them against the schema).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import itertools
import os
import shlex
import shutil
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from typing import Any

from wireconf.core.errors import NotJudged
from wireconf.emulator.routes import Endpoint
from wireconf.exec_protocol import launch
from wireconf.exec_protocol.ahead import Ahead
from wireconf.exec_protocol.calls import build_call, is_sdk_object, written_by_harness
from wireconf.exec_protocol.conversation import STREAMED, converse
from wireconf.exec_protocol.http_bridge import HttpBridge
from wireconf.exec_protocol.messages import ProtocolError
from wireconf.exec_protocol.process import START_HINT, ExecError
from wireconf.exec_protocol.routes import Sent
from wireconf.exec_protocol.supervisor import Supervisor
from wireconf.kinds import sites
from wireconf.kinds.kind import AdapterMethod, Kind
from wireconf.kinds.registry import KINDS
from wireconf.providers.registry import PROVIDER_OF


class ExecAdapter:
    """An adapter whose calls run in another process (``--impl exec:COMMAND``)."""

    out_of_process = True
    """The harness runs this adapter's cases inline: the adapter bounds its own calls."""

    def __init__(self, command: str, cwd: str | None = None) -> None:
        self.command = command
        try:
            argv = shlex.split(command)
        except ValueError as exc:  # an unclosed quote, a trailing escape
            raise ExecError(
                f"exec:{command} is not a command line: {exc}",
                hint="quote it as a POSIX shell would (wireconf splits it with shlex, runs no shell)",
            ) from None
        if not argv:
            raise ExecError("exec: needs a command", hint="--impl exec:COMMAND, e.g. exec:node my_runtime.js")
        if shutil.which(argv[0], path=os.environ.get("PATH")) is None and not os.access(argv[0], os.X_OK):
            raise ExecError(f"cannot start {shlex.join(argv)}: no such program {argv[0]!r}", hint=START_HINT)
        self.argv = argv
        launched, self.network = launch.command_argv(command)
        self._supervisor = Supervisor(command, launched, cwd)
        hello = self._supervisor.hello
        self.name = str(hello["name"])
        self.version = str(hello["version"])
        self._capabilities = frozenset(str(c) for c in hello["capabilities"])
        self._recorded_inputs = hello.get("inputs") == "recorded"
        self._pipeline = hello.get("pipeline") is True
        self._windowed = self._pipeline and int(hello["protocol"]) >= 4
        """Protocol 4: a stream's last event and ``end`` wait for the runtime's ``ack``."""
        self._categories = hello.get("categories") is True
        self._endpoints = hello.get("endpoints") is True
        """Protocol 4's ``endpoints``: a call with an api carries the case's ``Endpoint`` (its methods
        declare ``endpoint``, so the kinds open a site for each case), not its SDK inputs."""
        self.reads_recorded = self._recorded_inputs and not self._endpoints
        """``ReadsRecorded``: every SDK input goes as its recorded response (no endpoint carries it), so
        the harness hands the calls the recorded responses unparsed (``kinds.base.runtime_input``)."""
        # Over endpoints too: each case's site is opened when it is prepared, and stays its own until
        # its call ends (``case_run``); but not a call whose items are streamed back (``_bind``).
        self.sends_ahead = hello.get("ahead") is True
        """Protocol 3's ``ahead``: the harness may write the next cases' calls while this one runs."""
        if self._endpoints:
            launch.serve_listeners(lambda listener, diag: sites.emulator().serve_listener(listener, diag))
        self._ahead = Ahead(self._supervisor, self.sends_ahead)
        # the methods of the contract, generated from the kinds; the optional ones exist on this proxy
        # only when the runtime has them, as in-process
        optional = set(hello.get("optional") or ())
        for kind in KINDS.values():
            if kind.exec_protocol is not None and kind.method is not None:
                setattr(self, kind.method.name, self._bind(kind, kind.method))
            for method in kind.optional_methods:
                if method.name in optional:
                    setattr(self, method.name, self._bind(kind, method))

    # -- the adapter contract ------------------------------------------------------------------------

    def capabilities(self) -> set[str]:
        return set(self._capabilities)

    @property
    def hello(self) -> dict[str, Any]:
        """The runtime's hello (its first process's)."""
        return self._supervisor.hello

    @property
    def restarts(self) -> int:
        return self._supervisor.restarts

    @property
    def late_faults(self) -> list[str]:
        """Messages naming a call of a case already reported (``ahead``): the run fails, naming each."""
        return list(self._ahead.late_faults)

    def _bind(self, kind: Kind[Any, Any], method: AdapterMethod) -> Callable[..., Any]:
        """The proxy of one adapter method, from its description: its arguments by name; an SDK object
        sent as its provider's JSON (named in ``sdk``); an SDK stream pulled event by event (named in
        ``stream``); an SDK client described, the runtime's HTTP sent through it (``HttpBridge``,
        protocol 2); the items of a method that yields streamed back as they come."""

        def call(*arguments: Any, endpoint: Endpoint | None = None) -> Any:
            api = arguments[0] if method.takes_api else None
            values = arguments[1:] if method.takes_api else arguments
            args: dict[str, Any] = {}
            sdk: list[str] = []
            stream: tuple[str, Iterable[object]] | None = None
            bridge: HttpBridge | None = None
            for name, value in zip(method.params, values, strict=True):
                if endpoint is not None and (
                    name == method.http_client or _given_as_sdk(method, name, value)
                ):
                    continue  # the runtime reads (and sends) them over HTTP at its endpoint
                if name == method.http_client:
                    provider = PROVIDER_OF.get(api) if api else None
                    bridge = HttpBridge(value, provider.version_path if provider else "")
                    args[name] = bridge.description
                elif name in method.sdk and isinstance(value, Mapping):
                    args[name] = value  # plain data (response_as: mapping), sent as it is, not in `sdk`
                elif name in method.sdk and not is_sdk_object(value):
                    stream = (name, value)
                else:
                    args[name] = value
                    if name in method.sdk:
                        sdk.append(name)
            inputs = (self._recorded_inputs and endpoint is None, self._pipeline, self._windowed)
            build = functools.partial(build_call, kind.name, api, method.name, args, sdk, stream, *inputs)
            if endpoint is not None:
                build = functools.partial(_with_endpoint, build, endpoint, self._supervisor)
            if self._ahead.capturing is not None:  # sent ahead: built now, answered when its case runs
                # not a stream read over HTTP: the hold-last-event gate on its site is released by the
                # items the harness reads, and those of a call sent ahead wait until its case runs
                if endpoint is None or not (method.yields or method.may_stream):
                    self._ahead.capturing.append(build()[0])
                return iter(()) if method.yields else None
            exchange = self._exchange(method.name, api, build, bridge)
            if method.yields:
                return exchange
            try:
                first = next(exchange)
            except StopIteration as done:
                return iter(()) if done.value is STREAMED else done.value
            if method.may_stream:  # a stream result: an iterator of the items the runtime yields
                return itertools.chain([first], exchange)
            exchange.close()
            raise ProtocolError(
                f"{method.name} is not a streaming method, but the runtime sent an item: {first!r}"
            )

        # only a runtime that says `endpoints` declares `endpoint`: for no other do the kinds open a site
        # (e2e's `execute` too: its site answers from the case's cassette, an incremental case's stream
        # held back by the emulator's gate; the runtime gets no client and sends no `http`)
        endpoints = self._endpoints and method.takes_api

        def plain(*arguments: Any) -> Any:
            return call(*arguments)

        if endpoints and method.http_client is not None and not method.awaited:  # (lane emu34c's hunk)
            return without_client(call, method)
        if not method.awaited:
            return call if endpoints else plain

        async def awaited(*arguments: Any, endpoint: Endpoint | None = None) -> Any:
            """The runtime awaits its own method; this side waits for the answer (the harness runs it
            on its own event loop in the case's worker thread)."""
            return call(*arguments, endpoint=endpoint)

        async def awaited_plain(*arguments: Any) -> Any:
            return call(*arguments)

        return awaited if endpoints else awaited_plain

    def _exchange(
        self,
        method: str,
        api: str | None,
        build: Callable[[], tuple[Sent, Iterator[Any] | None]],
        http: HttpBridge | None,
    ) -> Generator[Any, None, Any]:
        """One call of ``method``: the one sent ahead for it, or built now, run as a conversation."""
        entry = self._ahead.claim(method)
        events: Iterator[Any] | None = None
        if entry is None:
            with written_by_harness(method):
                entry, events = build()
        supervisor, categories = self._supervisor, self._categories
        return (yield from converse(supervisor, self._ahead, method, api, entry, events, http, categories))

    # -- OutOfProcess: the inline runner's seam -------------------------------------------------------

    def ready(self, timeout: float | None = None) -> None:
        """Make sure a process is running and free before a case, its restart's hello and warm awaited
        (bounded by its first start, never by ``timeout``, the case's limit, which starts after)."""
        self._supervisor.ready()

    def time_limit(self, seconds: float | None) -> contextlib.AbstractContextManager[None]:
        return self._supervisor.time_limit(seconds)

    def send_ahead(self, case: str, call: Callable[[Any], object]) -> None:
        """Write the calls ``case``'s run will make before it runs, so that the runtime works on them
        while the harness judges and reports the cases before it (``Ahead.send_ahead``)."""
        self._ahead.send_ahead(case, call, self)

    def has_sent_ahead(self, case: str) -> bool:
        return self._ahead.has_sent_ahead(case)

    def keep_ahead(self, cases: Iterable[str]) -> None:
        self._ahead.keep_ahead(cases)

    def claimed(self, case: str) -> contextlib.AbstractContextManager[None]:
        return self._ahead.claimed(case)

    def flush(self) -> None:
        self._ahead.flush()

    def close(self) -> None:
        self._supervisor.close()


def _given_as_sdk(method: AdapterMethod, name: str, value: Any) -> bool:
    """An SDK argument the harness parsed (a response, a stream of events): not plain data
    (``response_as: mapping``, sent as it is)."""
    return name in method.sdk and not isinstance(value, Mapping)


def without_client(call: Callable[..., Any], method: AdapterMethod) -> Callable[..., Any]:
    """``call`` (a proxy of ``method``, which takes an SDK client) declared without the client: over
    endpoints the runtime is never handed it, so the kind builds none (``kinds.e2e.takes_client``
    reads this signature); ``call`` gets ``None`` in its place."""
    at = method.params.index(str(method.http_client)) + (1 if method.takes_api else 0)

    def proxy(*arguments: Any, endpoint: Endpoint | None = None) -> Any:
        return call(*arguments[:at], None, *arguments[at:], endpoint=endpoint)

    named = (*(("api",) if method.takes_api else ()), *(p for p in method.params if p != method.http_client))
    positional = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY) for name in named]
    keyword = inspect.Parameter("endpoint", inspect.Parameter.KEYWORD_ONLY, default=None)
    # inspect.signature reads __signature__ (PEP 362), which typeshed does not declare on a function
    proxy.__signature__ = inspect.Signature([*positional, keyword])  # type: ignore[attr-defined]
    return proxy


HAND_OVER_WAIT = 10.0
"""Seconds a call waits for the runtime's launcher to hand its namespace's listener over (it does so
before the runtime starts, so it has come by the runtime's hello)."""


def _with_endpoint(
    build: Callable[[], tuple[Sent, Iterator[Any] | None]], endpoint: Endpoint, supervisor: Supervisor
) -> tuple[Sent, Iterator[Any] | None]:
    """A call built with ``endpoint`` in it (protocol 4, ``endpoints``); ``NotJudged`` when the runtime's
    process cannot reach the emulator (its namespace got no listener): its requests would fail for a
    reason of the harness's, never the runtime's."""
    process = supervisor.process
    if process is not None:
        why = launch.hand_over(process.popen).reaches_emulator(HAND_OVER_WAIT)
        if why:
            raise NotJudged(f"the runtime's process cannot reach the provider emulator: {why}")
    entry, events = build()
    entry.messages[0]["endpoint"] = dataclasses.asdict(endpoint)
    return entry, events
