"""An out-of-process runtime (served by ``wireconf.exec_protocol.serve``) that crashes and then hangs
when it is restarted, besides holding the GIL once and returning a blocking Mapping once.

Its first wire call ends the process. The next start then hangs before saying hello: once, or on
every start when ``$WIRECONF_HOSTILE_RESTART`` is ``always``. Markers live in ``$WIRECONF_HOSTILE_DIR``.
"""

from __future__ import annotations

import os
import time

from tests.fakes.hostile import AllThree, _dir, first_time

if (_dir() / "exit").exists() and (
    os.environ.get("WIRECONF_HOSTILE_RESTART") == "always" or first_time("restart-hang")
):
    time.sleep(600)  # imported by the serve helper before its hello: the restart hangs

adapter = AllThree()
