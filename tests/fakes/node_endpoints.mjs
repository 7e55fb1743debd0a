// A runtime in Node on @wireconf/exec that says `endpoints` (protocol 4): it reaches the provider only
// through the base URL each call carries (`call.endpoint.api_base_url`), with plain `fetch`, as a
// runtime pointed at a base URL does in production. OpenAI Chat Completions: it builds a request
// (wire), parses a response (process) and reads a stream of events as they come (stream).
//
// With WIRECONF_FAKE_STRAYS=1 it reaches past its cases instead (tests/integration/test_exec_endpoints.py):
// call 2 posts to call 1's URL (another case's, closed since), call 3 to a path that is not its api,
// call 4 downloads a URL its case does not name, call 5 tries a host of the internet directly.
// WIRECONF_FAKE_BUFFER=1: a stream's body is read whole before anything is yielded (not incremental).
// WIRECONF_FAKE_BRIDGE=1: process sends its request through the harness (`http`), which a runtime that
// says `endpoints` may not. WIRECONF_FAKE_CRASH_AT=N (with WIRECONF_FAKE_CRASH_FILE): the N-th call
// kills this process, once; the restarted one serves on. WIRECONF_FAKE_JSON=1: the same runtime on the
// JSON path instead (no `endpoints`: the response and the stream's events as the provider's JSON, the
// request body returned), for benchmarks/exec_endpoints.py to compare the two side by side.
// WIRECONF_FAKE_AHEAD=1: the hello says `ahead` (and `pipeline`): the next cases' calls come early.
import fs from "node:fs";

import { serve } from "../../wireconf/exec_protocol/js/index.js";

const STRAYS = process.env.WIRECONF_FAKE_STRAYS === "1";
const BUFFER = process.env.WIRECONF_FAKE_BUFFER === "1";
const BRIDGE = process.env.WIRECONF_FAKE_BRIDGE === "1";
const JSON_PATH = process.env.WIRECONF_FAKE_JSON === "1";
const AHEAD = process.env.WIRECONF_FAKE_AHEAD === "1";
const CRASH_AT = Number(process.env.WIRECONF_FAKE_CRASH_AT ?? 0);
const CRASH_FILE = process.env.WIRECONF_FAKE_CRASH_FILE;
let handled = 0;

function maybeCrash() {
  handled += 1;
  if (CRASH_AT && handled === CRASH_AT && !fs.existsSync(CRASH_FILE)) {
    fs.writeFileSync(CRASH_FILE, "crashed");
    process.kill(process.pid, "SIGKILL");
  }
}
let calls = 0;
let previous = null;

/** The spec's messages as Chat Completions messages (text only: enough for the test). */
function chatMessages(messages = []) {
  return messages.map((message) => ({
    role: message.role,
    content: (message.content ?? []).map((part) => part.value ?? "").join(""),
  }));
}

async function post(call, body, base = call.endpoint.api_base_url, path = "/chat/completions") {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${call.endpoint.key}` },
    body: JSON.stringify(body),
  });
}

async function buildRequest(call) {
  const { agent, messages } = call.args;
  const body = { model: agent.model.id, messages: chatMessages(messages) };
  if (JSON_PATH) return body;
  calls += 1;
  const base = STRAYS && calls === 2 && previous ? previous : call.endpoint.api_base_url;
  previous = call.endpoint.api_base_url;
  if (STRAYS && calls === 3) await post(call, {}, base, "/files");
  if (STRAYS && calls === 4) await call.downloadFetch()("http://example.com/secret");
  if (STRAYS && calls === 5) {
    const reached = await fetch("http://93.184.215.14/", { signal: AbortSignal.timeout(3000) }).then(
      () => true,
      () => false,
    );
    if (reached) throw new Error("reached the internet");
  }
  const response = await post(call, body, base);
  await response.arrayBuffer();
  return null; // the request it sent is judged
}

/** The spec's result of a completion: its tool calls, else its text. */
function resultOf(completion) {
  const message = completion.choices[0].message;
  if (message.tool_calls?.length) {
    return message.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
  }
  return message.content;
}

async function processResponse(call) {
  maybeCrash();
  if (JSON_PATH) return resultOf(call.args.response);
  const body = { model: call.args.agent.model.id, messages: [] };
  const response = BRIDGE
    ? await call.bridgeFetch()(`${call.endpoint.api_base_url}/chat/completions`, { method: "POST", body: JSON.stringify(body) })
    : await post(call, body);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return resultOf(await response.json());
}

/** Each server-sent event's data, as the body's bytes arrive (never the whole body first). */
async function* sseData(response) {
  const decoder = new TextDecoder();
  let buffer = "";
  const body = BUFFER ? [new Uint8Array(await response.arrayBuffer())] : response.body;
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
      if (data) yield data;
    }
  }
}

/** The stream's chunks: read over HTTP at the endpoint, or (JSON path) the events the harness sends. */
async function* chunks(call) {
  if (JSON_PATH) {
    yield* call.events();
    return;
  }
  const response = await post(call, { model: call.args.agent.model.id, messages: [], stream: true });
  for await (const data of sseData(response)) {
    if (data === "[DONE]") return;
    yield JSON.parse(data);
  }
}

async function* processStream(call) {
  const calls = new Map();
  for await (const chunk of chunks(call)) {
    const delta = chunk.choices?.[0]?.delta ?? {};
    if (delta.content) yield delta.content;
    for (const part of delta.tool_calls ?? []) {
      const kept = calls.get(part.index) ?? { id: "", name: "", arguments: "" };
      kept.id ||= part.id ?? "";
      kept.name += part.function?.name ?? "";
      kept.arguments += part.function?.arguments ?? "";
      calls.set(part.index, kept);
    }
  }
  yield* calls.values();
}

await serve({
  hello: {
    name: "node-endpoints",
    version: "0.1.0",
    endpoints: !JSON_PATH,
    pipeline: JSON_PATH || AHEAD,
    ahead: AHEAD,
    capabilities: ["wire:openai.chat", "process:openai.chat", "stream:openai.chat"],
  },
  handlers: { build_request: buildRequest, process: processResponse, process_stream: processStream },
});
