import assert from "node:assert/strict";
import { test } from "node:test";

import { serve } from "../index.js";
import { fakeHarness } from "./helpers.js";

const HELLO = { name: "t", version: "1", capabilities: ["process:openai.chat"], inputs: "recorded" };

async function served(handlers) {
  const h = fakeHarness();
  const done = serve({ hello: HELLO, handlers, channel: h.channel, exit: false });
  await h.next();
  return { h, done };
}

test("recordedFetch answers with the recorded status, headers and body (one request)", async () => {
  const { h, done } = await served({
    async process(c) {
      const fetch = c.recordedFetch("response");
      const response = await fetch("https://api.example/v1/x", { method: "POST" });
      let second = null;
      await fetch("https://api.example/v1/x").catch((e) => (second = e.message));
      return { status: response.status, type: response.headers.get("content-type"), id: response.headers.get("x-id"), body: await response.json(), urls: fetch.requests.map((r) => r.url), second };
    },
  });
  const recorded = { status: 201, headers: { "x-id": ["7"] }, body: '{"ok":true}' };
  h.push({ type: "call", id: 1, kind: "process", api: "openai.chat", method: "process", args: { response: recorded }, sdk: ["response"], stream: null });
  const { value } = await h.next();
  assert.deepEqual(value, { status: 201, type: "application/json", id: "7", body: { ok: true }, urls: ["https://api.example/v1/x", "https://api.example/v1/x"], second: value.second });
  assert.match(value.second, /answers one request/);
  h.end();
  await done;
});

test("a plain-data argument (response_as: mapping) is refused as a recorded response", async () => {
  const { h, done } = await served({ process: (c) => (c.isSdk("response") ? "sdk" : c.response("response")) });
  h.push({ type: "call", id: 1, kind: "process", api: "openai.chat", method: "process", args: { response: { id: "x" } }, sdk: [], stream: null });
  const reply = await h.next();
  assert.equal(reply.type, "error");
  assert.match(reply.error.message, /not an SDK argument .*response_as: mapping/);
  h.end();
  await done;
});

test("a recorded stream's body is pulled only as the reader reads", async () => {
  const { h, done } = await served({
    async process_stream(c) {
      const reader = (await c.recordedFetch()("https://x")).body.getReader();
      const first = await reader.read();
      return [Buffer.from(first.value).toString(), (await reader.read()).done];
    },
  });
  h.push({ type: "call", id: 3, kind: "stream", api: "openai.chat", method: "process_stream", args: { events: { status: 200, headers: {} } }, sdk: [], stream: "events" });
  assert.deepEqual(await h.next(), { type: "next", id: 3 });
  h.push({ type: "event", id: 3, chunk: "data: 1\n\n" });
  assert.deepEqual(await h.next(), { type: "next", id: 3 });
  h.push({ type: "end", id: 3 });
  assert.deepEqual(await h.next(), { type: "yield", id: 3, item: "data: 1\n\n" });
  assert.deepEqual(await h.next(), { type: "yield", id: 3, item: true });
  assert.deepEqual(await h.next(), { type: "result", id: 3, value: null });
  h.end();
  await done;
});

test("bridgeFetch sends each request to the harness and reads the answer, a stream pulled with next", async () => {
  const { h, done } = await served({
    async execute(c) {
      const fetch = c.bridgeFetch();
      const plain = await fetch(`${c.client.base_url}/a`, { method: "POST", headers: { "x-k": "v" }, body: "{}" });
      const streamed = await fetch(new Request(`${c.client.base_url}/b`, { method: "POST", body: new Uint8Array([1, 2]) }));
      const text = await streamed.text(); // pulled only now
      const failed = await fetch(`${c.client.base_url}/c`).catch((e) => e.message);
      return { plain: await plain.text(), streamed: text, failed };
    },
  });
  h.push({ type: "call", id: 9, kind: "e2e", api: "openai.chat", method: "execute", args: { client: { base_url: "https://h/v1" } }, sdk: [], stream: null });
  assert.deepEqual(await h.next(), { type: "http", id: 9, request: { method: "POST", url: "https://h/v1/a", headers: { "x-k": ["v"] }, body: "{}" } });
  h.push({ type: "response", id: 9, status: 200, headers: { "content-type": ["application/json"] }, body: "plain" });
  const bytes = await h.next();
  assert.deepEqual([bytes.request.url, bytes.request.body, bytes.request.encoding], ["https://h/v1/b", "AQI=", "base64"]);
  h.push({ type: "response", id: 9, status: 200, headers: { "content-type": ["text/event-stream"] } });
  assert.deepEqual(await h.next(), { type: "next", id: 9 });
  h.push({ type: "event", id: 9, chunk: "data: x\n\n" });
  assert.deepEqual(await h.next(), { type: "next", id: 9 });
  h.push({ type: "end", id: 9 });
  await h.next(); // the third request
  h.push({ type: "response", id: 9, error: "no recorded interaction matches" });
  assert.deepEqual((await h.next()).value, { plain: "plain", streamed: "data: x\n\n", failed: "fetch failed: no recorded interaction matches" });
  h.end();
  await done;
});
