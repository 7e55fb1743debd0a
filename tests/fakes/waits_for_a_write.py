"""A runtime whose call waits until a file exists (``$WIRECONF_TEST_WAIT_FOR``), then answers through
the SDK client as ``sdk_echo`` does: a case that is still running when another process writes that
file, so that a test can make two runs overlap on purpose. It only reads the file system."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from tests.fakes.sdk_echo import Adapter as SdkEcho

WAIT_SECONDS = 120


class Adapter(SdkEcho):
    name = "waits-for-a-write"

    def execute(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], client: Any) -> Any:
        target = Path(os.environ["WIRECONF_TEST_WAIT_FOR"])
        deadline = time.monotonic() + WAIT_SECONDS
        while not target.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)  # the write's inotify events are queued before this case's look
        return super().execute(api, agent, messages, client)


adapter = Adapter()
