// Prompty's TypeScript runtime (@prompty/core, @prompty/openai, @prompty/anthropic) served over
// wireconf's exec protocol, version 2 with `inputs: recorded`.
//
//   node --experimental-import-meta-resolve server.mjs <built runtime/typescript folder>
//
// (`--impl prompty-ts` starts it: harness/adapters/prompty_ts/__init__.py.) What it runs, per kind:
// - wire: the provider's executor, `execute(agent, messages)`, for real, with a capturing client
//   registered as the agent's reference connection; the params it passes to the SDK method are the
//   request body.
// - process: the provider's processor, `processor.process(agent, response)`, as the pipeline's
//   `process()` step calls it, on the SDK's own response object, parsed from the recorded bytes.
// - stream: the same, on the stream the executor would hand over (a PromptyStream around the SDK
//   stream; images: the SDK's return value unwrapped), its bytes pulled from the harness as read.
// The SDKs are those the runtime resolves (its lockfile's versions), found from its own packages.
import path from "node:path";
import { pathToFileURL } from "node:url";

import { asRequestBody, capturingClient, RequestCaptured } from "./capture.mjs";
import { puller, receive, send } from "./channel.mjs";
import { loadAgent, loadMessage, providerOf } from "./inputs.mjs";
import { replayer } from "./replay.mjs";
import { asData, errorPayload } from "./results.mjs";

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

// stack frames name the runtime's files from its folder, and this server's by their place in wireconf
const PLACES = {
  [pathToFileURL(path.resolve(root)).href + "/"]: "",
  [new URL(".", import.meta.url).href]: "harness/adapters/prompty_ts/",
};

const CAPTURE = "wireconf-capture";
core.registerConnection(CAPTURE, capturingClient());

async function buildRequest(api, agent, messages) {
  const loaded = loadAgent(core, agent, CAPTURE);
  const executor = core.getExecutor(providerOf(api, loaded));
  try {
    await executor.execute(
      loaded,
      messages.map((m) => loadMessage(core, m)),
    );
  } catch (error) {
    if (error instanceof RequestCaptured) return asRequestBody(error.params);
    throw error;
  }
  throw new Error("Prompty's executor returned without calling its SDK client");
}

async function processResponse(api, agent, recorded) {
  const loaded = loadAgent(core, agent);
  const response = await replay.response(api, recorded);
  return asData(await core.getProcessor(providerOf(api, loaded)).process(loaded, response));
}

async function processStream(call) {
  const loaded = loadAgent(core, call.args.agent);
  const stream = await replay.stream(call.api, call.args[call.stream], puller(call.id));
  const result = await core.getProcessor(providerOf(call.api, loaded)).process(loaded, stream);
  if (result !== null && typeof result === "object" && Symbol.asyncIterator in result) {
    for await (const item of result) send({ type: "yield", id: call.id, item: asData(item) });
  } else {
    send({ type: "yield", id: call.id, item: asData(result) }); // not a stream of items: the one item
  }
  return null;
}

function setToolRegistry() {
  // @prompty/core keeps its name registry (registerTool) internal, and request building never reads
  // it: toolsToWire projects `kind: function` tools only. There is nothing to register; what the
  // runtime sends for a custom tool is its own behaviour.
  return null;
}

const METHODS = {
  build_request: (call) => buildRequest(call.api, call.args.agent, call.args.messages),
  process: (call) => processResponse(call.api, call.args.agent, call.args.response),
  process_stream: processStream,
  set_tool_registry: setToolRegistry,
};

const capabilities = [
  ...["wire", "process"].flatMap((kind) => replay.responseApis.map((api) => `${kind}:${api}`)),
  ...replay.streamApis.map((api) => `stream:${api}`),
].sort();

send({
  type: "hello",
  protocol: 2,
  inputs: "recorded",
  name: "prompty-ts",
  version: core.PKG_VERSION,
  capabilities,
  optional: ["set_tool_registry"],
});
for (;;) {
  const message = await receive();
  if (message === null || message.type === "stop") process.exit(0);
  if (message.type !== "call") continue;
  try {
    const method = METHODS[message.method];
    if (!method) throw new Error(`prompty-ts does not serve ${message.method}`);
    send({ type: "result", id: message.id, value: await method(message) });
  } catch (error) {
    send({ type: "error", id: message.id, error: errorPayload(error, PLACES) });
  }
}
