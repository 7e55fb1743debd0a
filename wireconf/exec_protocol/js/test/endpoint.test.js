import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";

import { serve } from "../index.js";
import { fakeHarness } from "./helpers.js";

const HELLO = { name: "t", version: "1", capabilities: ["process:openai.chat"], endpoints: true };

/** A server that answers every request with its own method and URL (the emulator's download path). */
async function echoing() {
  const server = createServer((request, response) => {
    response.setHeader("content-type", "application/pdf");
    response.end(`${request.method} ${request.url}`);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

const endpointAt = (origin) => ({
  api: "openai.chat",
  origin,
  api_base_url: `${origin}/v1`,
  api_version: "v1",
  key: "placeholder",
  proxy: `http://wireconf:token@127.0.0.1:1`,
  ca_file: null,
  download: `${origin}/.well-known/wireconf/download`,
});

test("a hello that says endpoints gets each call's endpoint, and downloadFetch goes to its download path", async () => {
  const { server, origin } = await echoing();
  const h = fakeHarness();
  const done = serve({
    hello: HELLO,
    handlers: {
      async process(c) {
        const response = await c.downloadFetch()("https://example.com/a b.pdf");
        return { base: c.endpoint.api_base_url, type: response.headers.get("content-type"), body: await response.text() };
      },
    },
    channel: h.channel,
    exit: false,
  });
  const hello = await h.next();
  assert.equal(hello.endpoints, true);
  const endpoint = endpointAt(origin);
  h.push({ type: "call", id: 1, kind: "process", api: "openai.chat", method: "process", args: { agent: {} }, sdk: [], stream: null, endpoint });
  const { value } = await h.next();
  assert.deepEqual(value, {
    base: `${origin}/v1`,
    type: "application/pdf",
    body: `GET /.well-known/wireconf/download?url=${encodeURIComponent("https://example.com/a b.pdf")}`,
  });
  h.end();
  await done;
  server.close();
});

test("downloadFetch in a call without an endpoint says so", async () => {
  const h = fakeHarness();
  const done = serve({ hello: { ...HELLO, endpoints: undefined }, handlers: { process: (c) => c.downloadFetch() }, channel: h.channel, exit: false });
  await h.next();
  h.push({ type: "call", id: 1, kind: "process", api: "openai.chat", method: "process", args: { agent: {} }, sdk: [], stream: null });
  const reply = await h.next();
  assert.equal(reply.type, "error");
  assert.match(reply.error.message, /carries no endpoint/);
  h.end();
  await done;
});
