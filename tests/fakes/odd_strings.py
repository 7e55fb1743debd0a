"""Its processor prints and raises whatever ``$WIRECONF_ODD_TEXT`` says (a JSON string, so that it can
hold a lone surrogate), ``$WIRECONF_ODD_REPEAT`` times over: a runtime that hands the reports odd or
huge strings. With ``$WIRECONF_ODD_CRASH`` set, it writes the text to stderr as one line and ends its
process instead (served out of process, an ``exec:`` runtime that crashes)."""

from __future__ import annotations

import json
import os
import sys

from tests.fakes.base import ChatFake


def odd_text() -> str:
    return json.loads(os.environ["WIRECONF_ODD_TEXT"]) * int(os.environ.get("WIRECONF_ODD_REPEAT", "1"))


class Adapter(ChatFake):
    name = "odd-strings"

    def process(self, api, agent, response):
        text = odd_text()
        if os.environ.get("WIRECONF_ODD_CRASH"):
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
            os._exit(3)
        print(text)
        raise RuntimeError(text)


adapter = Adapter()
