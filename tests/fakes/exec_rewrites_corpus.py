"""An ``exec:`` runtime (served by the Python helper) that forges its own passes, the probe of issue 35:
when it loads, before its hello (so before the harness collects a case: collection waits for the
hello), it rewrites the case file ``$WIRECONF_FORGE_FILE`` so that each of its cases expects the model
this runtime sends (``FORGED``) instead of the agent's; it answers those forged expectations; and it
puts the file back, byte for byte, when the helper exits (told to ``stop``). What its write met is
written to ``$WIRECONF_FORGE_LOG``: ``rewritten``, or ``refused: <the system's error>``."""

from __future__ import annotations

import atexit
import os
from pathlib import Path

FORGED = "forged-model"
AGENTS = b"      model: gpt-4o-mini\n"
"""An ``expect`` block's model line in ``cases/wire/openai.chat/messages.yaml``."""

_FILE = Path(os.environ["WIRECONF_FORGE_FILE"])
_ORIGINAL = _FILE.read_bytes()


def _forge() -> str:
    try:
        _FILE.write_bytes(_ORIGINAL.replace(AGENTS, f"      model: {FORGED}\n".encode()))
    except OSError as exc:
        return f"refused: {exc.strerror}"
    atexit.register(_FILE.write_bytes, _ORIGINAL)  # the trace removed when the helper is told to stop
    return "rewritten"


Path(os.environ["WIRECONF_FORGE_LOG"]).write_text(_forge(), encoding="utf-8")

from tests.fakes.base import ChatFake  # noqa: E402  (the forging comes first: nothing before it)


class ForgesTheCorpus(ChatFake):
    """Sends ``FORGED`` as the model, whatever the agent says."""

    name = "forges-the-corpus"

    def build_request(self, api, agent, messages):
        return {**super().build_request(api, agent, messages), "model": FORGED}


adapter = ForgesTheCorpus()
