// Prompty's TypeScript runtime (@prompty/core, @prompty/openai, @prompty/anthropic, @prompty/foundry)
// served over wireconf's exec protocol, version 4, whose hello says `endpoints`: each call carries the
// case's endpoint on the harness's provider emulator, and the runtime's SDK clients are pointed at it.
//
//   node --experimental-import-meta-resolve server.mjs <built runtime/typescript folder>
//
// (`--impl prompty-ts` starts it: wireconf/adapters/prompty_ts/__init__.py.) What it runs, per kind:
// - wire: the provider's executor, `execute(agent, messages)`, for real, with a real SDK client at the
//   endpoint as the agent's reference connection; the request the SDK sent there is judged.
// - process: the provider's processor, `processor.process(agent, response)`, as the pipeline's
//   `process()` step calls it, on the SDK's own response object, read from the endpoint's recorded bytes.
// - stream: the same, on the stream the executor would hand over (a PromptyStream around the SDK
//   stream; images: the SDK's return value unwrapped), read from the endpoint as the SDK reads it.
// - e2e: the executor then the processor, as run() calls them, with a real SDK client at the endpoint
//   as the agent's reference connection; the endpoint answers from the case's cassette.
// The SDKs are those the runtime resolves (its lockfile's versions), found from its own packages.
// The protocol itself is @wireconf/exec's (wireconf/exec_protocol/js); this file is the mapping alone.
import path from "node:path";
import { pathToFileURL } from "node:url";

import { isStream, serve } from "../../exec_protocol/js/index.js";
import { loadAgent, loadMessage, providerOf } from "./inputs.mjs";
import { replayer } from "./replay.mjs";
import { errorOptions, represent } from "./results.mjs";

const root = process.argv[2];
if (!root) {
  process.stderr.write("usage: node --experimental-import-meta-resolve server.mjs <runtime/typescript>\n");
  process.exit(2);
}
const packageUrl = (name) => pathToFileURL(path.join(root, "packages", name, "dist", "index.js")).href;

const core = await import(packageUrl("core"));
await import(packageUrl("openai")); // registers the "openai" executor and processor
await import(packageUrl("anthropic")); // registers "anthropic"
await import(packageUrl("foundry")); // registers "foundry" and "azure" (as Python Prompty serves both)
// the SDK modules those packages import (same resolution, same instances)
const sdks = {
  OpenAI: (await import(await import.meta.resolve("openai", packageUrl("openai")))).default,
  Anthropic: (await import(await import.meta.resolve("@anthropic-ai/sdk", packageUrl("anthropic")))).default,
};
const replay = replayer(sdks, core);
const SDK_ERRORS = [
  [sdks.OpenAI.OpenAIError, "openai"],
  [sdks.Anthropic.AnthropicError, "anthropic"],
];

// stack frames name the runtime's files from its folder, and this server's by their place in wireconf
const PLACES = {
  [pathToFileURL(path.resolve(root)).href + "/"]: "",
  [new URL(".", import.meta.url).href]: "wireconf/adapters/prompty_ts/",
  [new URL("../../exec_protocol/js/", import.meta.url).href]: "wireconf/exec_protocol/js/",
};

const AT = "wireconf-endpoint";

async function buildRequest(call) {
  // the agent's reference connection: a real SDK client at the case's endpoint
  core.registerConnection(AT, replay.client(call.api, { endpoint: call.endpoint }));
  const loaded = loadAgent(core, call.args.agent, AT);
  await core.getExecutor(providerOf(call.api, loaded)).execute(
    loaded,
    call.args.messages.map((m) => loadMessage(core, m)),
  );
  return null; // the request its SDK sent is judged
}

async function processResponse(call) {
  const loaded = loadAgent(core, call.args.agent);
  // a `response_as: mapping` case's response is plain data in `args` (the decoded JSON body)
  const client = replay.client(call.api, { endpoint: call.endpoint });
  const response = "response" in call.args ? call.args.response : await replay.response(call.api, client);
  return core.getProcessor(providerOf(call.api, loaded)).process(loaded, response);
}

async function processStream(call) {
  const loaded = loadAgent(core, call.args.agent);
  const stream = await replay.stream(call.api, replay.client(call.api, { endpoint: call.endpoint }));
  const result = await core.getProcessor(providerOf(call.api, loaded)).process(loaded, stream);
  return isStream(result) ? result : [result]; // not a stream of items: the one item
}

const E2E = "wireconf-e2e";

/** What the pipeline's run() does after rendering: the executor, then the processor, with an SDK
 * client at the endpoint (answered from the case's cassette) as the reference connection. A stream
 * result is streamed back item by item. */
async function execute(call) {
  const { agent, messages } = call.args;
  core.registerConnection(E2E, replay.client(call.api, { endpoint: call.endpoint }));
  const loaded = loadAgent(core, agent, E2E);
  const provider = providerOf(call.api, loaded);
  const response = await core.getExecutor(provider).execute(
    loaded,
    messages.map((m) => loadMessage(core, m)),
  );
  return core.getProcessor(provider).process(loaded, response);
}

function setToolRegistry() {
  // @prompty/core keeps its name registry (registerTool) internal, and request building never reads
  // it: toolsToWire projects `kind: function` tools only. There is nothing to register; what the
  // runtime sends for a custom tool is its own behaviour.
  return null;
}

const METHODS = {
  build_request: buildRequest,
  process: processResponse,
  process_stream: processStream,
  set_tool_registry: setToolRegistry,
  execute,
};

// e2e:openai.embeddings is not declared: the runtime's openai SDK (4.x) adds encoding_format "base64"
// to every embeddings request and decodes every answer as base64, while the recorded answers are the
// float arrays their clients asked for; no recording answers the request this runtime sends, so a
// verdict on the result would judge the mismatch, not the runtime. Its request building is judged by
// the wire cases, its processing by the process cases.
const NO_E2E = new Set(["openai.embeddings"]);
// Every optional concept of the spec (wireconf/adapter_contract.py CONCEPTS), as the Python prompty
// adapter declares them: this is the spec's own runtime, so a concept it lacks (it drops mcp tools,
// its loader refuses prompty and openapi tools without a connection) is a deviation to judge, not a
// case to leave unsupported.
const CONCEPTS = [
  "api-type",
  "custom-tools",
  "mcp-tools",
  "message-metadata",
  "openapi-tools",
  "prompty-tools",
  "tool-bindings",
];
const capabilities = [
  ...["wire", "process"].flatMap((kind) => replay.responseApis.map((api) => `${kind}:${api}`)),
  ...replay.streamApis.map((api) => `stream:${api}`),
  ...replay.responseApis.filter((api) => !NO_E2E.has(api)).map((api) => `e2e:${api}`),
  ...CONCEPTS.map((name) => `concept:${name}`),
].sort();

await serve({
  hello: {
    endpoints: true,
    name: "prompty-ts",
    version: core.PKG_VERSION,
    capabilities,
    optional: ["set_tool_registry"],
  },
  handlers: METHODS,
  errors: errorOptions(PLACES, SDK_ERRORS),
  represent,
});
