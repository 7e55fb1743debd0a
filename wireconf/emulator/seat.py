"""A seat: one URL for a runtime process's life, answering for whichever of its calls is current.

Some runtimes read their base URL once (an environment variable, a configuration file) and cannot be
pointed at a new site per call. A seat (``Emulator.open_seat``) has a token of its own, made like a
site's, and stands for the site of the runtime's current call: the harness moves it when a call
starts (``Seat.current``: in-process, the case's preparation; ``exec:``, when the harness starts
waiting for that call) and clears it when the call ends. A request that comes while no call is current
is a stray, kept on the emulator (``Emulator.strays``). Weaker than a per-case URL (a request a runtime
leaves running past its call is taken for the next call's), so calls carry their own sites and the
seat is the fallback for runtimes configured once (``wireconf.providers.runtime_environ``'s
base URLs).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from wireconf.emulator.routes import EmulatorError
from wireconf.emulator.site import PROXY_USER, Site, new_token


class Seat:
    """Built by ``Emulator.open_seat``, ended by ``Emulator.close_seat``."""

    def __init__(self, server: str) -> None:
        self.token = new_token()
        self.origin = f"{server}/{self.token}"
        """Where the provider's origin stands for the runtime's every call."""
        self.proxy = f"http://{PROXY_USER}:{self.token}@{server.removeprefix('http://')}"
        self._current: Site | None = None
        self._lock = threading.Lock()

    @property
    def current(self) -> Site | None:
        """The site of the call the runtime is on, or ``None`` between calls."""
        with self._lock:
            return self._current

    def take(self, site: Site) -> None:
        """The runtime's call on ``site`` starts: the seat answers for it."""
        with self._lock:
            if self._current is not None and self._current is not site:
                raise EmulatorError(
                    "a seat answers for one call at a time: the previous call's site was not released"
                )
            self._current = site

    def release(self, site: Site) -> None:
        """The call on ``site`` ended: requests to the seat are strays until the next call."""
        with self._lock:
            if self._current is site:
                self._current = None

    @contextlib.contextmanager
    def seated(self, site: Site) -> Iterator[Site]:
        """The seat answers for ``site`` for the block."""
        self.take(site)
        try:
            yield site
        finally:
            self.release(site)
