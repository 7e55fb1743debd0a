"""How a JavaScript runtime is called in a reproduction: the AI SDK (``wireconf.adapters.ai_sdk``).

The AI SDK has no agent file: its adapter's ``inputs.mjs`` is the mapping an AI SDK user writes once
(the spec's agent and messages → ``generateText`` settings and ModelMessages, tools through ``tool()``
and ``jsonSchema()``). The script carries that file's functions as they are (its one import of the
exec client, for the error a case the AI SDK cannot express raises, replaced by a local class), the
case's agent and messages as JSON, and the call ``server.mjs`` makes per kind: the provider created on
the local server's base URL, ``generateText`` (wire, process) or ``streamText`` (stream), the result read
as the adapter reads it (tool calls as id, name and JSON arguments, else the structured output, else
the text; a stream's text deltas, then its tool calls).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wireconf.adapters.own_clients import PLACEHOLDER_KEY
from wireconf.repro.js_script import JsCall, Mode

INPUTS = Path(__file__).resolve().parent.parent / "adapters" / "ai_sdk" / "inputs.mjs"
PACKAGE_LOCK = INPUTS.with_name("package-lock.json")
SERVER = INPUTS.with_name("server.mjs")

PROVIDERS = {
    "openai.chat": ("@ai-sdk/openai", "createOpenAI", "openai", "chat", "/v1"),
    "openai.responses": ("@ai-sdk/openai", "createOpenAI", "openai", "responses", "/v1"),
    "anthropic.messages": ("@ai-sdk/anthropic", "createAnthropic", "anthropic", "messages", "/v1"),
    "gemini.generate_content": ("@ai-sdk/google", "createGoogleGenerativeAI", "google", "chat", "/v1beta"),
}
"""Per api, as ``server.mjs``'s ``MODELS``: the provider package, its factory, the providerOptions key,
the model method, and the api's base URL path (``Endpoint.api_base_url``'s)."""

REPLAY_PROMPT = [{"role": "user", "content": "wireconf replay"}]
"""``server.mjs``'s prompt for a response case (the AI SDK refuses an empty one)."""

JsTemplate = Callable[[str, dict[str, Any], list[dict[str, Any]] | None, Mode, bool, bool], JsCall]
"""``(api, agent, messages, mode, e2e, media)`` → the call (``media``: the input names media URLs)."""


def mapping_code() -> str:
    """``inputs.mjs``'s functions, standalone: no exports, the exec client's error class made local."""
    text = INPUTS.read_text(encoding="utf-8")
    text = re.sub(r'^import \{ Inexpressible \} from "@wireconf/exec";\n', "", text, flags=re.M)
    text = re.sub(r'^import \{[^}]*\} from "ai";\n', "", text, flags=re.M)
    text = re.sub(r"^export ", "", text, flags=re.M)
    return "class Inexpressible extends Error {}\n\n" + text


def categories_code() -> str:
    """``server.mjs``'s ``CATEGORIES``, as the adapter reads the AI SDK's errors in the spec's terms (a
    decision of that adapter: the class raised, and an APICallError's statusCode), its classes taken from
    "ai": what a script's ``category`` check reads the runtime's raise by."""
    text = SERVER.read_text(encoding="utf-8")
    start = text.index("\nconst CATEGORIES = [") + len("\nconst CATEGORIES = ")
    table = text[start : text.index("\n];\n", start) + 2]
    classes = ", ".join(dict.fromkeys(re.findall(r"^  \[(\w+),", table, flags=re.M)))
    return (
        "// the AI SDK's errors in the spec's terms, as wireconf's adapter reads them"
        " (adapters/ai_sdk/server.mjs)\n"
        f'const CATEGORIES = (({{ {classes} }}) => {table})(await import("ai"));'
    )


def pinned(*packages: str) -> tuple[str, ...]:
    """``name@version`` of each package as the adapter's lockfile pins it (the release judged)."""
    locked = json.loads(PACKAGE_LOCK.read_text(encoding="utf-8")).get("packages", {})
    out = []
    for name in packages:
        version = (locked.get(f"node_modules/{name}") or {}).get("version")
        out.append(f"{name}@{version}" if version else name)
    return tuple(out)


def download_code() -> str:
    """``server.mjs``'s ``downloadThrough``, as the adapter runs it: the AI SDK's default download (a URL
    the model does not take as it is, fetched with its URL checks and size limit) on a fetch of the
    caller's. A script whose case names media passes it as ``experimental_download``, on
    ``globalThis.fetch`` as the frame answers it: on Node the default's own fetch is bound when "ai"
    loads, before the script can answer anything."""
    text = SERVER.read_text(encoding="utf-8")
    start = text.index("\nfunction downloadThrough(") + 1
    comment = (
        "// the AI SDK's default download on the script's fetch (wireconf's adapters/ai_sdk/server.mjs)\n"
    )
    return comment + text[start : text.index("\n}\n", start) + 2]


def ai_sdk(
    api: str,
    agent: dict[str, Any],
    messages: list[dict[str, Any]] | None,
    mode: Mode,
    e2e: bool = False,
    media: bool = False,
) -> JsCall:
    """``generateText`` / ``streamText`` with the settings ``inputs.mjs`` maps the agent to, on the
    provider created at the local server (``server.mjs``'s ``request``, numbered ids for the ones the
    provider makes up); for an ``e2e`` case's request, called as ``server.mjs``'s ``execute`` calls it."""
    package, factory, options, method, path = PROVIDERS[api]
    written = "messagesOf(MESSAGES)" if messages is not None else "REPLAY_PROMPT"
    download = [
        'import { DownloadError } from "ai";',
        "import {",
        "  DEFAULT_MAX_DOWNLOAD_SIZE, fetchWithValidatedRedirects, readResponseWithSizeLimit,",
        '} from "@ai-sdk/provider-utils";',
    ]
    prelude = "\n".join(
        [
            'import { generateText, jsonSchema, Output, streamText, tool } from "ai";',
            *(download if media else []),
            f'import {{ {factory} }} from "{package}";',
            "",
            f"const AGENT = {json.dumps(agent, indent=1, ensure_ascii=False)};",
            f"const MESSAGES = {json.dumps(messages or [], indent=1, ensure_ascii=False)};",
            f"const REPLAY_PROMPT = {json.dumps(REPLAY_PROMPT)};",
            "",
            "// the mapping an AI SDK user writes once (wireconf's adapters/ai_sdk/inputs.mjs)",
            mapping_code(),
            "const toolCall = (c) =>",
            "  ({ id: c.toolCallId, name: c.toolName, arguments: JSON.stringify(c.input) });",
            *([download_code()] if media else []),
            categories_code(),
        ]
    )
    body = [
        "let next = 0;",
        "const generateId = () => `ai-sdk-generated-${next++}`;",
        f'const apiKey = "{PLACEHOLDER_KEY}";',
        f'const provider = {factory}({{ apiKey, baseURL: baseURL + "{path}", generateId }});',
        f"const model = provider.{method}(AGENT.model.id);",
        f"const messages = {written};",
        f'const settings = {{ model, messages, maxRetries: 0, ...settingsOf(AGENT, "{options}") }};',
        *(
            # a function of its own: the AI SDK swaps globalThis.fetch itself for its default's fetch
            ["settings.experimental_download = downloadThrough((url, init) => globalThis.fetch(url, init));"]
            if media
            else []
        ),
    ]
    if mode == "stream":
        body += [
            "return (async function* () {",
            "  const calls = [];",
            "  for await (const part of streamText(settings).fullStream) {",
            '    if (part.type === "text-delta") yield part.text;',
            '    else if (part.type === "tool-call") calls.push(toolCall(part));',
            '    else if (part.type === "error") {',
            "      if (part.error instanceof Error) throw part.error;",
            "      // the error the response reports, as the adapter's streamError reads it",
            "      const reported = new Error(JSON.stringify(part.error));",
            '      throw Object.assign(reported, { category: "provider-error" });',
            "    }",
            "  }",
            "  yield* calls;",
            "})();",
        ]
    elif e2e:  # as the adapter's execute: streamText when the agent asks for a stream, read to its end
        body += [
            "const streamed = () => streamText({ ...settings, onError() {} }).fullStream;",
            "if (wantsStream(AGENT)) for await (const part of streamed()) void part;",
            "else await generateText(settings);",
        ]
    else:
        body += ["const result = await generateText(settings);"]
        if mode == "result":
            body += [
                "if (result.toolCalls.length) return result.toolCalls.map(toolCall);",
                "return AGENT.outputs?.length ? result.output : result.text;",
            ]
    needs = "npm install " + " ".join(pinned("ai", package))
    return JsCall(needs, prelude, "\n".join(body))


def _prompty_ts(
    api: str,
    agent: dict[str, Any],
    messages: list[dict[str, Any]] | None,
    mode: Mode,
    e2e: bool = False,
    media: bool = False,
) -> JsCall:
    from wireconf.repro.prompty_ts_template import prompty_ts

    del e2e, media  # not an e2e runtime here (JS_E2E); its downloads go through the frame's fetch
    return prompty_ts(api, agent, messages, mode)


JS_TEMPLATES: dict[str, JsTemplate] = {"ai-sdk": ai_sdk, "prompty-ts": _prompty_ts}
"""The JavaScript runtimes a reproduction can call, by the adapter's name."""

JS_CATEGORIES = frozenset({"ai-sdk"})
"""The JavaScript runtimes whose scripts read a raise in the spec's error categories as their adapter
does (``categories_code``): a ``wrong-error`` difference is reproduced for those."""

JS_E2E = frozenset({"ai-sdk"})
"""The JavaScript runtimes whose template also calls them as their adapter's ``execute`` does (an
``e2e`` case's request)."""
