"""The reference, with an exit handler that writes the file named by ``WIRECONF_TEST_EXIT_MARK``: an
adapter whose clean-up must still run when the Python helper leaves without the interpreter's teardown."""

import atexit
import os
from pathlib import Path

from wireconf.reference_impl.adapter import ReferenceAdapter

MARK = "WIRECONF_TEST_EXIT_MARK"


def _mark() -> None:
    if MARK in os.environ:
        Path(os.environ[MARK]).write_text("exit handler ran", encoding="utf-8")


atexit.register(_mark)
adapter = ReferenceAdapter()
