"""``--impl prompty-ts``: Prompty's TypeScript runtime (microsoft/prompty ``runtime/typescript``:
``@prompty/core``, ``@prompty/openai``, ``@prompty/anthropic``, ``@prompty/foundry``) through the corpus,
in a Node.js process that speaks the exec protocol (``server.mjs`` beside this file).

Build the runtime once (``wireconf prompty-ts build [CHECKOUT_OR_TARBALL]``, or set
``WIRECONF_PROMPTY_TS`` to a built ``runtime/typescript`` folder); without Node.js or a build, every
case is skipped with the reason. The server runs the runtime's own code, making the decisions the
Python ``prompty`` adapter makes where the runtimes share concepts:

- inputs become its own ``Agent`` (``Agent.load``) and ``Message`` (its constructor) objects;
- ``wire``: the provider's executor runs for real with a real SDK client at the case's endpoint (the
  harness's provider emulator) as the agent's reference connection; the request its SDK sent is judged;
- ``process`` / ``stream``: the provider's processor on what the executor hands it: the openai /
  @anthropic-ai/sdk objects (the versions its lockfile pins) read by those SDKs at the case's endpoint,
  which serves the recorded bytes, a stream wrapped in ``PromptyStream`` (images: unwrapped, as its
  executor returns it). Its hello says ``endpoints`` (exec protocol 4);
- ``e2e``: the executor then the processor, with a real SDK client at the case's endpoint as the
  reference connection, answered from the case's cassette; not for embeddings (``server.mjs`` says why).

Not declared: ``trace`` (the spans stay in Node.js), ``process_async`` (the TypeScript runtime has
one, asynchronous, ``process``), Gemini (no provider). A JavaScript ``Error`` (the base class itself)
is reported as ValueError, and SDK errors by their package's name: see ``results.mjs``.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from wireconf.adapters.prompty_ts.locate import locate
from wireconf.exec_protocol.client import ExecAdapter

NAME = "prompty-ts"
SERVER = Path(__file__).with_name("server.mjs")


class Unavailable:
    """What ``--impl prompty-ts`` is where Node.js or a built runtime is missing: no capabilities, and
    the reason, so that every case is skipped with it."""

    name = NAME
    version = "not built"

    def __init__(self, reason: str) -> None:
        self.unavailable = reason

    def capabilities(self) -> set[str]:
        return set()


def server_command(node: str, runtime: Path) -> str:
    """The exec command that serves ``runtime`` (the flag lets the server resolve the SDKs the way the
    runtime's own packages do)."""
    return shlex.join([node, "--experimental-import-meta-resolve", str(SERVER), str(runtime)])


def adapter() -> Any:
    """The adapter for ``--impl prompty-ts``: the runtime over exec, or ``Unavailable`` with why."""
    found = locate()
    if found.unavailable is not None or found.node is None or found.runtime is None:
        return Unavailable(found.unavailable or "not found")
    return ExecAdapter(server_command(found.node, found.runtime))
