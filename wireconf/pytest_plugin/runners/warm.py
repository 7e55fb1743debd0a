"""What every runner does once per process before its cases, outside every case's time limit."""

from __future__ import annotations

import contextlib
import gc
import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from wireconf.core.untyped import YAML
from wireconf.kinds.concepts import needed_concepts
from wireconf.pytest_plugin import heap_freeze
from wireconf.pytest_plugin.case_host import is_runnable

if TYPE_CHECKING:
    from wireconf.kinds.base import HarnessContext
    from wireconf.kinds.kind import Kind
    from wireconf.pytest_plugin.case_host import CaseHost, RunnableCase


MCP_CLIENT = ("mcp", "mcp.client.stdio", "mcp.client.session")
"""The official MCP client, which a runtime that reaches the MCP server of a case's ``mcp`` tools most
likely uses: about a second of CPU to import, paid by the runner before any case's time limit starts,
and only when a selected case has such a tool (otherwise by no process)."""


def warm_imports(selected: Iterable[RunnableCase]) -> None:
    """Import what the selected cases' runtimes will import on their first call, outside every case's
    time limit (the SDKs are warmed up per api by ``wireconf.sdk.replay.warm_up``)."""
    if any("mcp-tools" in needed_concepts(i.loaded.kind, i.loaded.api, i.loaded.raw) for i in selected):
        for name in MCP_CLIENT:
            with contextlib.suppress(ImportError):  # a runtime without the client brings its own
                importlib.import_module(name)


def warm_up(session: CaseHost, item: RunnableCase) -> None:
    """Do once per process what every case would otherwise redo inside its time limit: import the SDKs,
    create their replay clients, parse (and check) the cassettes the selected cases use and have the SDK
    parse each recorded response once (its deferred model schemas, ``SdkReplay.warm``). The forked
    runner does it before its first fork, so that a runner process started after a kill, or by a later
    session of the same process, begins as warm as the first one; the inline runner (``exec:``) before
    its first case, while the runtime process warms up on the other core. An xdist worker (``shared``)
    runs only its share of the selected cases, so it leaves the cassettes to each case's preparation
    (within its budget) rather than parse every one of them."""
    selected = [i for i in item.session.items if is_runnable(i)]
    shared = hasattr(item.session.config, "workerinput")
    # what the warm-up builds (SDK modules, their models' schemas, parsed responses) lives as long as
    # the process: no collection while it allocates, and, where the session froze the heap after
    # collecting (``frozen_heap``), frozen with it (before the forked runner's fork copies it)
    enabled = gc.isenabled()
    gc.disable()
    try:
        _warm(session, selected, shared)
    finally:
        heap_freeze.refreeze()
        if enabled:
            gc.enable()


def _warm(session: CaseHost, selected: list[RunnableCase], shared: bool) -> None:
    from wireconf.cassettes.store import CassetteError
    from wireconf.kinds.base import warm_sdk_input
    from wireconf.kinds.registry import KINDS
    from wireconf.providers.registry import APIS, PROVIDER_OF
    from wireconf.sdk.replay import warm_up as warm_sdk

    # each case once: its context, its kind, whether the harness has an SDK parse its recorded inputs
    # (not where the runtime parses them itself, ``runtime_input``, and its kind's SDK input goes
    # nowhere else)
    cases: list[tuple[RunnableCase, HarnessContext, Kind[Any, Any] | None, bool]] = []
    for item in selected:
        ctx = session.context(item.corpus_root)
        kind = KINDS.get(item.loaded.kind)
        cases.append(
            (item, ctx, kind, not (ctx.reads_recorded and kind is not None and kind.unparsed_inputs))
        )
    for api in sorted({item.loaded.api for item, _, _, parsed in cases if parsed} & APIS.keys()):
        warm_sdk(api)
        session.replay.client(PROVIDER_OF[api])
    warm_imports(selected)
    if session.records or shared:  # recording changes cassettes: each case reads them fresh
        return
    checked: set[tuple[int, str]] = set()  # a cassette's responses checked once, not once per case
    for item, ctx, kind, parsed in cases:
        model = item.loaded.model
        source = _field(model, "response")
        name = _field(source, "cassette") or _field(model, "cassette")
        if isinstance(name, str) and (id(ctx), name) not in checked:
            checked.add((id(ctx), name))
            with contextlib.suppress(CassetteError, OSError):
                ctx.cassettes.load(name).problem()
        # a case without a response has none to parse
        if source is not None and parsed and item.loaded.api in APIS:
            warm_sdk_input(ctx, item.loaded, stream_input=kind is not None and kind.streams_only)


def _field(model: object, name: str) -> YAML:
    """A declared field of a case model or of one of its parts (pydantic models, which keep their fields'
    values in ``__dict__``), ``None`` where the model has no such field or is no model: a pydantic model
    asked for a name it lacks raises and catches an exception (some 2 µs, twice per case of a warm-up)."""
    return model.__dict__.get(name) if isinstance(model, BaseModel) else None
