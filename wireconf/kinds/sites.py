"""A case's sites on the provider emulator: opened while its inputs are prepared, for an adapter whose
method asks for the case's ``Endpoint`` (a keyword-only ``endpoint``), closed when its call ends.

One emulator per process that runs cases (``emulator``), started by the first case that needs a site,
so that a run whose adapter never asks for an endpoint starts none: in the forked runner process (whose
network namespace has its loopback up: the emulator is all a runtime there can reach) or in the pytest
process for the thread and inline runners. The network guard admits exactly its address
(``NetworkGuard.admit``). An emulator inherited through a fork is never used (its thread did not
survive the fork, and its socket is in the parent's namespace): the child starts its own.

An adapter whose runtime keeps its HTTP clients per base URL (LangChain's chat models, LiteLLM's
OpenAI clients: built once per URL in production, where the URL is one) declares ``endpoint_seated =
True``: its endpoints are then the URL of one seat for the process's life (``wireconf.emulator.seat``),
which stands for the case's site while the case runs (taken when the site opens, released when it
closes; a second site of the same case has its own URL), so that the runtime's clients and their
connections are reused across cases as they are with one provider, not built anew for each case's
URL (a TLS context each: most of such a case's cost).

What the sites refused while the case ran, and what reached the emulator for no open site (a closed
site's URL: another case's) or failed in it, is the case's *error*, never a verdict (``CaseSites.close``).
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from wireconf.cassettes import netns
from wireconf.cassettes.network_guard import GUARD
from wireconf.core.errors import CaseInputError
from wireconf.core.stream_probe import StreamProbe
from wireconf.core.untyped import JSON, AdapterObject
from wireconf.emulator.routes import EmulatorError

if TYPE_CHECKING:
    from wireconf.emulator.answers import Responder
    from wireconf.emulator.routes import Endpoint
    from wireconf.emulator.seat import Seat
    from wireconf.emulator.server import Emulator
    from wireconf.emulator.site import Site


class Asking(Protocol):
    """An adapter method of the contract (``wireconf.kinds.kind.AdapterMethod``), as far as a site needs
    it: whether an adapter's method declares ``endpoint``."""

    def takes_endpoint(self, adapter: AdapterObject) -> bool: ...


_RUNNING: tuple[int, Emulator] | None = None
"""This process's emulator, with the pid of the process that started it."""
_LOCK = threading.Lock()
_SEAT: tuple[Emulator, Seat] | None = None
"""The seat of this process's emulator for a seated adapter's endpoints (``CaseSites``)."""

SEATED = "endpoint_seated"
"""The adapter attribute that asks for seated endpoints (one URL for the process's life)."""


def seat_of(serving: Emulator) -> Seat:
    """The seat of ``serving`` (this process's emulator), opened on first use."""
    global _SEAT
    with _LOCK:
        if _SEAT is None or _SEAT[0] is not serving:
            _SEAT = (serving, serving.open_seat())
        return _SEAT[1]


def emulator() -> Emulator:
    """This process's emulator, started (and admitted by the network guard) on first use."""
    global _RUNNING
    with _LOCK:
        running = _RUNNING
        if running is not None and running[0] == os.getpid():
            return running[1]
        from wireconf.emulator.server import Emulator

        started = Emulator(listener=netns.emulator_socket()).start()  # the port exec: runtimes listen at
        GUARD.admit(started.address)
        try:  # a namespace whose loopback is down reaches nothing, the emulator included
            socket.create_connection(started.address, timeout=5).close()
        except OSError as exc:
            started.close()
            raise EmulatorError(
                f"the provider emulator at {started.url} cannot be reached from this process ({exc}): "
                "its network namespace has no loopback up"
            ) from exc
        _RUNNING = (os.getpid(), started)
        return started


def running() -> Emulator | None:
    """This process's emulator if it has started one (never starts it)."""
    running = _RUNNING
    return running[1] if running is not None and running[0] == os.getpid() else None


def in_another_process(adapter: AdapterObject) -> bool:
    """Whether ``adapter``'s runtime runs in another process (an ``exec:`` one: the members of
    ``adapter_contract.OutOfProcess``, read by name, as this layer does not import the contract)."""
    return callable(getattr(adapter, "send_ahead", None)) and callable(getattr(adapter, "time_limit", None))


class CaseSites:
    """The sites of the case being prepared and run, and the emulator's strays and failures since it
    began. ``adapter`` is the session's: a site is opened only for a method of it that asks."""

    def __init__(self, adapter: AdapterObject = None) -> None:
        self.adapter = adapter
        self.sites: list[Site] = []
        self._seated: tuple[Seat, Site] | None = None
        self._seats = getattr(adapter, SEATED, False) is True
        self._remote = in_another_process(adapter)
        current = running()
        self._marks = (len(current.strays), len(current.failures)) if current is not None else (0, 0)
        self._emulator = current

    def asks(self, method: Asking) -> bool:
        """Whether the adapter's ``method`` asks for the case's endpoint (else nothing is opened, no
        emulator started, nothing built for one)."""
        return self.adapter is not None and method.takes_endpoint(self.adapter)

    def open(
        self, api: str, responder: Responder, messages: JSON = None, recorded_uri: str | None = None
    ) -> tuple[Endpoint, Site]:
        """A site of ``api``, opened now, for this case (``messages``: its input, whose media URLs the
        site's downloads answer)."""
        try:
            serving = emulator()
        except EmulatorError as exc:
            raise CaseInputError(str(exc)) from exc
        if self._remote:
            serving.hurry()  # its runtime waits on the answers from another process
        if self._emulator is not serving:  # started by this case: nothing before it is its
            self._emulator, self._marks = serving, (len(serving.strays), len(serving.failures))
        site = serving.open_site(api, responder, messages, recorded_uri)
        self.sites.append(site)
        if self._seats and self._seated is None:
            seat = seat_of(serving)
            if seat.current is None:  # else: an abandoned case's, released when it closes
                seat.take(site)
                self._seated = (seat, site)
                return site.endpoint((seat.origin, seat.proxy)), site
        return site.endpoint(), site

    def close(self) -> list[str]:
        """Close every site of the case; what the case is charged with: each request a site refused,
        and each request that reached the emulator for no open site (another case's URL, a closed
        one) or that the emulator failed on, since the case began."""
        serving = self._emulator
        problems: list[str] = []
        if self._seated is not None:
            seat, seated = self._seated
            seat.release(seated)
            self._seated = None
        for site in self.sites:
            if serving is not None:
                serving.close_site(site)
            problems += [str(refused) for refused in site.refused]
        self.sites = []
        if serving is not None:
            # from where the last case to close stopped: with calls sent ahead, the next cases' sites
            # were opened before this case ran, and a stray is charged to one case, the first to close
            strays, failures = (
                max(mark, charged) for mark, charged in zip(self._marks, serving.charged, strict=True)
            )
            problems += [f"{stray} (no open site of this case)" for stray in serving.strays[strays:]]
            problems += [
                f"the provider emulator failed (a wireconf bug): {failure}"
                for failure in serving.failures[failures:]
            ]
            self._marks = serving.charged = (len(serving.strays), len(serving.failures))
        return problems


class SiteProbes(Sequence[StreamProbe]):
    """The probe a stream case's yields are counted on: the site's, once the runtime has read the
    stream over HTTP, else the one of the SDK object it was also given."""

    def __init__(self, site: Site, given: StreamProbe) -> None:
        self.site, self.given = site, given

    def _current(self) -> StreamProbe:
        return self.site.probes[0] if self.site.probes else self.given

    def __len__(self) -> int:
        return 1

    def __getitem__(self, index: int) -> StreamProbe:  # type: ignore[override]  # one probe, by index
        if index not in (0, -1):
            raise IndexError(index)
        return self._current()
