"""The exec client's parts, each alone: ``ExecAdapter`` has the members of the inline runner's seam
(``OutOfProcess``, plan §8.2) with their signatures; protocol 4's window; a restart's bound."""

from __future__ import annotations

import collections
import inspect
from contextlib import AbstractContextManager
from typing import Any, cast

from wireconf.cassettes.downloads import Downloads
from wireconf.exec_protocol.adapter import ExecAdapter
from wireconf.exec_protocol.ahead import Ahead
from wireconf.exec_protocol.calls import window
from wireconf.exec_protocol.routes import Routes, Sent
from wireconf.exec_protocol.supervisor import RESTART_FLOOR, Supervisor, restart_bound

SEAM = {
    "ready": ["timeout"],
    "time_limit": ["seconds"],
    "send_ahead": ["case", "call"],
    "has_sent_ahead": ["case"],
    "keep_ahead": ["cases"],
    "claimed": ["case"],
    "flush": [],
    "close": [],
}
"""``OutOfProcess``'s methods and their parameters (besides ``self``)."""


def test_the_adapter_has_every_member_of_the_out_of_process_seam():
    hints = inspect.get_annotations(ExecAdapter.__init__, eval_str=True)
    assert hints  # the constructor is typed; the attributes it sets are checked below by their source
    source = inspect.getsource(ExecAdapter.__init__)
    assert "self.network" in source and "self.sends_ahead" in source
    for name, params in SEAM.items():
        method = getattr(ExecAdapter, name)
        signature = inspect.signature(method)
        assert list(signature.parameters)[1:] == params, name
    limit = inspect.get_annotations(ExecAdapter.time_limit, eval_str=True)["return"]
    claimed = inspect.get_annotations(ExecAdapter.claimed, eval_str=True)["return"]
    assert limit == claimed == AbstractContextManager[None]


def _events(n: int) -> list[dict[str, Any]]:
    return [{"event": {"n": i}} for i in range(n)]


def test_a_window_holds_the_last_event_and_the_end():
    end = {"type": "end"}
    sent, held, released = window(
        [{"type": "events", "events": _events(3)}, {"type": "events", "events": _events(2)}, end]
    )
    assert sent == [{"type": "events", "events": [*_events(3), *_events(1)]}]
    assert held == [{"type": "events", "events": [{"event": {"n": 1}}]}, end] and released == 4
    # a stream of one event: an empty window, so that the runtime still has one to ack
    assert window([{"type": "events", "events": _events(1)}, end]) == (
        [{"type": "events", "events": []}],
        [{"type": "events", "events": _events(1)}, end],
        0,
    )
    assert window([end]) == ([{"type": "events", "events": []}], [end], 0)


def test_a_restart_is_bounded_by_the_first_start_scaled_by_the_load_never_below_the_floor():
    assert restart_bound(0.5, 1.0, 1.0) == RESTART_FLOOR
    assert restart_bound(5.0, 1.0, 1.0) == 15.0
    assert restart_bound(5.0, 1.0, 2.0) == 30.0  # twice as busy: twice as long
    assert restart_bound(5.0, 2.0, 1.0) == 15.0  # less busy: never shorter than the first start's
    assert restart_bound(5.0, 0.0, 3.0) == 15.0  # no load figure then: not scaled


def test_a_call_given_up_after_its_answer_came_waits_for_nothing():
    """A case skipped after its call went ahead, whose answer was read while an earlier call was: the
    call is answered (of its case, for a fault naming it later), not a call whose answer is awaited
    (the end of the case before it would wait for that answer until its time limit)."""
    routes = Routes()
    ahead = Ahead(cast(Supervisor, None), enabled=True)  # giving up a call writes nothing here
    answered, pending = (Sent("process", [], Downloads(), None, id=n, routes=routes) for n in (3, 4))
    for entry in (answered, pending):
        entry.case = "skipped"
        routes.ahead[entry.id] = entry
    routes.buffered[3] = collections.deque([{"type": "result", "id": 3, "value": None}])
    routes.buffered[4] = collections.deque([{"type": "yield", "id": 4, "item": "a"}])
    ahead._sent["skipped"] = [answered, pending]
    ahead.keep_ahead([])
    assert routes.answered == {3: "skipped"}
    assert list(routes.orphans) == [4] and not routes.ahead and not routes.buffered


def test_the_run_selection_reaches_the_runtime_environment_and_nothing_else_does():
    """``--kind``/``--api`` become ``WIRECONF_KINDS``/``WIRECONF_APIS`` of every runtime started; a run
    that selects every kind names none, not even one left in the user's own environment."""
    from wireconf.exec_protocol import launch

    user = {"PATH": "/bin", "WIRECONF_KINDS": "stream"}
    try:
        launch.set_selection(["wire", "process", "wire"], [])
        assert launch.selection(user) == {"PATH": "/bin", "WIRECONF_KINDS": "process,wire"}
        launch.set_selection([], ["openai.chat"])
        assert launch.selection(user) == {"PATH": "/bin", "WIRECONF_APIS": "openai.chat"}
    finally:
        launch.set_selection([], [])
    assert launch.selection(user) == {"PATH": "/bin"}


def test_the_python_helper_warms_up_only_the_selected_kinds_and_apis(monkeypatch):
    """The helper loads the SDKs of the selected capabilities only (none for a run of wire cases); with
    no selection, those of every capability it declares, as before."""
    import io

    from wireconf.exec_protocol import serve
    from wireconf.reference_impl.adapter import ReferenceAdapter

    assert serve.selected("process", "openai.chat", {})
    assert serve.selected("process", "openai.chat", {"WIRECONF_KINDS": "wire,process"})
    assert not serve.selected("stream", "openai.chat", {"WIRECONF_KINDS": "wire,process"})
    assert not serve.selected("process", "openai.chat", {"WIRECONF_APIS": "anthropic.messages"})

    warmed: list[str] = []
    monkeypatch.setattr("wireconf.sdk.replay.complete_models", warmed.append)
    monkeypatch.setattr("wireconf.sdk.replay.warm_up", lambda api: warmed.append(f"first call {api}"))
    server = serve.Server(ReferenceAdapter(), io.StringIO(), io.StringIO())
    caps = ["wire:openai.chat", "process:openai.chat", "stream:anthropic.messages", "concept:mcp-tools"]
    monkeypatch.setenv("WIRECONF_KINDS", "wire")
    server.warm_up(caps)
    assert warmed == []
    monkeypatch.setenv("WIRECONF_KINDS", "wire,stream")
    server.warm_up(caps)
    assert warmed == ["anthropic.messages", "first call anthropic.messages"]
