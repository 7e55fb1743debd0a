"""An ``exec:`` runtime (served by the Python helper) that starts a daemon when it loads (a double
fork and ``setsid``: reparented, in a session of its own, out of any process group the harness could
kill), writes its pid to ``$WIRECONF_DAEMON_DIR/daemon``, and then never answers its first call (it
writes ``$WIRECONF_DAEMON_DIR/calling`` and sleeps): a runtime busy in a case, with a daemon, when
pytest is killed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.fakes.base import ChatFake

_DIR = Path(os.environ["WIRECONF_DAEMON_DIR"])
_DAEMON = (
    "import os, sys, time\n"
    "if os.fork(): os._exit(0)\n"  # the first child ends: the daemon is reparented
    "os.setsid()\n"
    "open(sys.argv[1], 'w').write(str(os.getpid()))\n"
    "time.sleep(600)\n"
)
subprocess.run([sys.executable, "-c", _DAEMON, str(_DIR / "daemon")], start_new_session=True, check=True)


class HangsWithADaemon(ChatFake):
    name = "hangs-with-a-daemon"

    def build_request(self, api, agent, messages):
        (_DIR / "calling").write_text(str(os.getpid()), encoding="utf-8")
        time.sleep(600)
        return super().build_request(api, agent, messages)


adapter = HangsWithADaemon()
