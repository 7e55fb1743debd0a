"""``--impl ai-sdk``: the Vercel AI SDK (``ai`` with ``@ai-sdk/openai``, ``@ai-sdk/anthropic``,
``@ai-sdk/google``, pinned in ``package-lock.json`` beside this file) through the corpus, in a Node.js
process that speaks the exec protocol on ``@wireconf/exec`` (``server.mjs``: the mapping alone).

Install it once with ``wireconf ai-sdk build`` (from the npm registry, into the cache), or set
``WIRECONF_AI_SDK`` to an install folder; without Node.js or an install every case is skipped with the
reason. The runtime gets what its users write: ``generateText`` / ``streamText`` with ``messages`` in
its ModelMessage format, function tools through ``tool()`` and ``jsonSchema()``, providers created with
``createOpenAI({baseURL, apiKey})`` (and ``createAnthropic``, ``createGoogleGenerativeAI``) at the case's
endpoint on the harness's provider emulator (exec protocol 4's ``endpoints``), which serves the recorded
response (e2e: the case's cassette) and keeps the request sent (``inputs.mjs`` maps the spec's agent and
messages, ``server.mjs`` says what runs per kind).

Declared: wire, process, stream and e2e for OpenAI Chat Completions and Responses, Anthropic Messages
and Gemini generateContent. Not declared: embeddings and images (``embed`` / ``generateImage`` take no
messages or agent options), ``trace`` (the spans stay in Node.js), and every optional concept (the AI
SDK has function tools only, and no message metadata).
"""

from __future__ import annotations

import shlex
import shutil
from typing import Any

from wireconf.adapters import prompty_ts
from wireconf.adapters.ai_sdk.build import installed, server
from wireconf.exec_protocol.client import ExecAdapter

NAME = "ai-sdk"
NODE_HINT = "install Node.js >= 18 (Debian: apt-get install nodejs npm)"


class Unavailable(prompty_ts.Unavailable):
    """``--impl ai-sdk`` where Node.js or the install is missing: no capabilities, and the reason."""

    name = NAME
    version = "not installed"


def adapter() -> Any:
    """The adapter for ``--impl ai-sdk``: the AI SDK over exec, or ``Unavailable`` with why."""
    node = shutil.which("node")
    if node is None:
        return Unavailable(f"node (Node.js) is not on PATH: {NODE_HINT}")
    root, problem = installed()
    if root is None:
        return Unavailable(problem or "not installed")
    return ExecAdapter(shlex.join([node, str(server(root))]))
