"""How Prompty's TypeScript runtime is called in a reproduction (``wireconf.adapters.prompty_ts``).

The runtime is a built ``runtime/typescript`` folder of a Prompty checkout, not an npm release: the
script takes that folder as its argument and imports its packages (``@prompty/core``, ``openai``,
``anthropic``) and the SDKs they resolve, as the adapter's ``server.mjs`` does. It carries the adapter's
``inputs.mjs`` functions as they are (the agent through Prompty's own ``Agent.load``, messages through
its ``Message``) and the call per kind: ``wire``, the provider's executor with an SDK client at the
local server as the agent's reference connection; ``process`` / ``stream``, the processor on what the
SDK reads from the local server (``replay.mjs``'s calls: the executor's SDK method, a stream wrapped in
the ``PromptyStream`` the executor returns).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from wireconf.adapters.own_clients import PLACEHOLDER_KEY
from wireconf.repro.js_script import JsCall, Mode

HERE = Path(__file__).resolve().parent.parent / "adapters" / "prompty_ts"

RESPONSES = {
    "openai.chat": "c.chat.completions.create({ model: MODEL, messages: [] })",
    "openai.embeddings": 'c.embeddings.create({ model: MODEL, input: "x", encoding_format: "float" })',
    "openai.images": 'c.images.generate({ model: MODEL, prompt: "x" })',
    "openai.responses": 'c.responses.create({ model: MODEL, input: "x" })',
    "anthropic.messages": "c.messages.create({ model: MODEL, max_tokens: 1, messages: [] })",
}
STREAMS = {
    "openai.chat": "wrap(c, await c.chat.completions.create({ model: MODEL, messages: [], stream: true }))",
    "openai.responses": 'wrap(c, await c.responses.create({ model: MODEL, input: "x", stream: true }))',
    "openai.images": 'c.images.generate({ model: MODEL, prompt: "x", stream: true })',
    "anthropic.messages": "wrap(c, c.messages.stream({ model: MODEL, max_tokens: 1, messages: [] }))",
}
"""``replay.mjs``'s SDK calls per api: what Prompty's executors call and hand their processors."""

PRELUDE = """import path from "node:path";
import { pathToFileURL } from "node:url";

const root = process.argv[2];
if (!root) {
  console.log("usage: node --experimental-import-meta-resolve <this file> <prompty's runtime/typescript>");
  process.exit(2);
}
const packageUrl = (name) => pathToFileURL(path.join(root, "packages", name, "dist", "index.js")).href;
const core = await import(packageUrl("core"));
await import(packageUrl("openai"));
await import(packageUrl("anthropic"));
const OpenAI = (await import(await import.meta.resolve("openai", packageUrl("openai")))).default;
const anthropicSdk = await import.meta.resolve("@anthropic-ai/sdk", packageUrl("anthropic"));
const Anthropic = (await import(anthropicSdk)).default;
const MODEL = "wireconf-replay";
const wrap = (client, stream) => new core.PromptyStream(`${client.constructor.name}Executor`, stream);

function data(value) {
  // a ToolCall as its id, name and arguments; a Prompty model object as its save() form
  if (Array.isArray(value)) return value.map(data);
  if (value !== null && typeof value === "object") {
    if ("name" in value && "arguments" in value) {
      return { id: value.id ?? null, name: value.name, arguments: value.arguments };
    }
    if (typeof value.save === "function") return value.save();
  }
  return value === undefined ? null : value;
}
"""


def inputs_code() -> str:
    """``inputs.mjs``'s functions, standalone (no exports)."""
    return re.sub(r"^export ", "", (HERE / "inputs.mjs").read_text(encoding="utf-8"), flags=re.M)


def prompty_ts(api: str, agent: dict[str, Any], messages: list[dict[str, Any]] | None, mode: Mode) -> JsCall:
    """The executor (wire) or the processor on the SDK's reading of the local server (process, stream)."""
    provider = api.split(".")[0]
    client = (
        f'new OpenAI({{ apiKey: "{PLACEHOLDER_KEY}", baseURL: baseURL + "/v1", maxRetries: 0 }})'
        if provider == "openai"
        else f'new Anthropic({{ apiKey: "{PLACEHOLDER_KEY}", baseURL, maxRetries: 0 }})'
    )
    prelude = "\n".join(
        [
            PRELUDE,
            f"const API = {json.dumps(api)};",
            f"const AGENT = {json.dumps(agent, indent=1, ensure_ascii=False)};",
            f"const MESSAGES = {json.dumps(messages or [], indent=1, ensure_ascii=False)};",
            "",
            "// the adapter's mapping of wireconf's inputs (wireconf's adapters/prompty_ts/inputs.mjs)",
            inputs_code(),
        ]
    )
    body = [f"const c = {client};"]
    if mode == "request":
        body += [
            'core.registerConnection("wireconf-repro", c);',
            'const agent = loadAgent(core, AGENT, "wireconf-repro");',
            "const messages = MESSAGES.map((m) => loadMessage(core, m));",
            "await core.getExecutor(providerOf(API, agent)).execute(agent, messages);",
        ]
    else:
        calls = STREAMS if mode == "stream" else RESPONSES
        body += [
            "const agent = loadAgent(core, AGENT);",
            f"const response = await {calls[api]};",
            "const result = await core.getProcessor(providerOf(API, agent)).process(agent, response);",
        ]
        if mode == "stream":
            body += [
                "const isStream = result && typeof result[Symbol.asyncIterator] === 'function';",
                "return (async function* () {",
                "  for await (const item of isStream ? result : [result]) yield data(item);",
                "})();",
            ]
        else:
            body += ["return data(result);"]
    needs = "a built Prompty TypeScript runtime (runtime/typescript after npm ci && npm run build)"
    run = "node --experimental-import-meta-resolve <this file> <runtime/typescript>"
    return JsCall(needs, prelude, "\n".join(body), run)
