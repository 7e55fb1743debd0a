import assert from "node:assert/strict";
import { test } from "node:test";

import { CategorisedError, Inexpressible, ValueError, adapterRaised, categoryOf, errorPayload, serve } from "../index.js";
import { fakeHarness } from "./helpers.js";

const HELLO = { name: "t", version: "1", capabilities: ["process:openai.chat"] };
const call = (id, method, args = {}, extra = {}) => ({ type: "call", id, kind: "process", api: "openai.chat", method, args, sdk: [], stream: null, ...extra });

test("hello first, one result per call, and serve resolves on stop", async () => {
  const h = fakeHarness();
  const served = serve({ hello: HELLO, handlers: { process: (c) => ({ got: c.args.response.text, api: c.api, skip: undefined }) }, channel: h.channel, exit: false });
  assert.deepEqual(await h.next(), { type: "hello", protocol: 4 /* the newest this client speaks: its Call acks a window */, name: "t", version: "1", capabilities: ["process:openai.chat"] });
  h.push(call(1, "process", { response: { text: "hi" } }));
  assert.deepEqual(await h.next(), { type: "result", id: 1, value: { got: "hi", api: "openai.chat" } });
  h.push({ type: "stop" });
  await served;
});

test("a hello with load says warming, then warm, and the loaded handlers serve", async () => {
  const h = fakeHarness();
  const served = serve({ hello: HELLO, load: async () => ({ process: () => "loaded" }), channel: h.channel, exit: false });
  assert.equal((await h.next()).warming, true);
  assert.deepEqual(await h.next(), { type: "warm" });
  h.push(call(1, "process"));
  assert.equal((await h.next()).value, "loaded");
  h.end();
  await served;
});

test("stream events are pulled one at a time and yields are sent as they come, result null", async () => {
  const h = fakeHarness();
  const hello = { ...HELLO, inputs: "recorded" };
  const served = serve({
    hello,
    handlers: {
      async *process_stream(c) {
        for await (const chunk of c.events()) yield chunk.toString("utf-8").trim();
      },
    },
    channel: h.channel,
    exit: false,
  });
  await h.next();
  h.push(call(4, "process_stream", { events: { status: 200, headers: {} } }, { kind: "stream", stream: "events" }));
  assert.deepEqual(await h.next(), { type: "next", id: 4 });
  h.push({ type: "event", id: 4, chunk: "data: a\n\n" });
  assert.deepEqual(await h.next(), { type: "yield", id: 4, item: "data: a" });
  assert.deepEqual(await h.next(), { type: "next", id: 4 });
  h.push({ type: "event", id: 4, chunk: Buffer.from("data: b\n\n").toString("base64"), encoding: "base64" });
  assert.deepEqual(await h.next(), { type: "yield", id: 4, item: "data: b" });
  assert.deepEqual(await h.next(), { type: "next", id: 4 });
  h.push({ type: "end", id: 4 });
  assert.deepEqual(await h.next(), { type: "result", id: 4, value: null });
  h.end();
  await served;
});

test("pipelined calls: a call sent while another runs waits its turn, and replies go to their call", async () => {
  const h = fakeHarness();
  const served = serve({
    hello: HELLO,
    handlers: { process_stream: async (c) => [await c.pull()], process: (c) => c.id },
    channel: h.channel,
    exit: false,
  });
  await h.next();
  h.push(call(1, "process_stream", {}, { stream: "events" }));
  h.push(call(2, "process"));
  assert.deepEqual(await h.next(), { type: "next", id: 1 });
  h.push({ type: "event", id: 1, event: { n: 1 } });
  assert.deepEqual(await h.next(), { type: "yield", id: 1, item: { n: 1 } });
  assert.deepEqual(await h.next(), { type: "result", id: 1, value: null });
  assert.deepEqual(await h.next(), { type: "result", id: 2, value: 2 });
  h.end();
  await served;
});

test("a result that is a stream is streamed only for a method that may stream", async () => {
  const h = fakeHarness();
  async function* items() {
    yield "a";
    yield "b";
  }
  const served = serve({ hello: HELLO, handlers: { execute: items, process: items }, channel: h.channel, exit: false });
  await h.next();
  h.push(call(1, "execute", { client: { base_url: "https://x" } }, { kind: "e2e" }));
  assert.deepEqual([await h.next(), await h.next(), await h.next()], [
    { type: "yield", id: 1, item: "a" },
    { type: "yield", id: 1, item: "b" },
    { type: "result", id: 1, value: null, streamed: true },
  ]);
  h.push(call(2, "process"));
  const refused = await h.next();
  assert.equal(refused.type, "error");
  assert.match(refused.error.message, /not JSON: \$ is a/);
  h.end();
  await served;
});

test("errors carry their classes, the spec's ValueError, and a missing handler is named", async () => {
  const h = fakeHarness();
  const served = serve({
    hello: HELLO,
    handlers: { process: () => { throw new ValueError("bad value"); } },
    channel: h.channel,
    exit: false,
  });
  await h.next();
  h.push(call(1, "process"));
  const { error } = await h.next();
  assert.deepEqual([error.type, error.mro, error.message], ["ValueError", ["ValueError", "Error"], "bad value"]);
  assert.match(error.traceback, /serve\.test\.js/);
  h.push(call(2, "build_request"));
  assert.match((await h.next()).error.message, /no handler for build_request/);
  h.end();
  await served;
});

test("errorPayload: SDK classes named after their package, a plain Error mapped when asked", () => {
  class SdkError extends Error {}
  class NotFoundError extends SdkError {}
  assert.deepEqual(errorPayload(new NotFoundError("404"), { sdkErrors: [[SdkError, "openai"]] }).mro, [
    "openai.NotFoundError",
    "openai.SdkError",
    "Error",
  ]);
  assert.deepEqual(errorPayload(new Error("x"), { plainErrorAs: "ValueError" }).mro, ["Error", "ValueError"]);
  assert.deepEqual(errorPayload(new Error("x")).mro, ["Error"]);
  assert.deepEqual(errorPayload("thrown string"), { type: "Error", mro: ["Error"], message: "thrown string", traceback: "" });
  const stack = errorPayload(new TypeError("t"), { places: { [import.meta.url]: "here.js" } }).traceback;
  assert.match(stack, /here\.js/);
});

test("with a category table the hello says categories, and each error carries its category or null", async () => {
  class CallError extends Error {
    constructor(message, statusCode) {
      super(message);
      this.statusCode = statusCode;
    }
  }
  class PromptError extends Error {}
  const categories = [
    [PromptError, "invalid-input"],
    [CallError, (e) => (e.statusCode >= 400 ? { category: "provider-http-error", status: e.statusCode } : "provider-error")],
  ];
  const thrown = [new PromptError("bad prompt"), new CallError("gone", 404), new CallError("in body", 200), new TypeError("x is undefined"), new CategorisedError("refusal", "no")];
  const h = fakeHarness();
  const served = serve({
    hello: HELLO,
    handlers: { process: (c) => { throw thrown[c.id - 1]; } },
    errors: { categories },
    channel: h.channel,
    exit: false,
  });
  assert.equal((await h.next()).categories, true);
  const got = [];
  for (let id = 1; id <= thrown.length; id++) {
    h.push(call(id, "process"));
    const { error } = await h.next();
    got.push([error.category, error.status]);
  }
  // the JavaScript TypeError is none of the spec's errors (null), never Python's TypeError
  assert.deepEqual(got, [["invalid-input", undefined], ["provider-http-error", 404], ["provider-error", undefined], [null, undefined], ["refusal", undefined]]);
  h.end();
  await served;
});

test("pipeline (protocol 3): events come unasked in batches, each yield says how many were read", async () => {
  const h = fakeHarness();
  const served = serve({
    hello: { ...HELLO, protocol: 3, pipeline: true },
    handlers: {
      async *process_stream(c) {
        for await (const event of c.events()) if (event.n % 2 === 0) yield event.n;
      },
    },
    channel: h.channel,
    exit: false,
  });
  assert.equal((await h.next()).pipeline, true);
  h.push(call(1, "process_stream", {}, { kind: "stream", stream: "events" }));
  h.push({ type: "events", id: 1, events: [{ event: { n: 1 } }, { event: { n: 2 } }] });
  h.push({ type: "events", id: 1, events: [{ event: { n: 3 } }, { event: { n: 4 } }] });
  h.push({ type: "end", id: 1 });
  assert.deepEqual(await h.next(), { type: "yield", id: 1, item: 2, read: 2 });
  assert.deepEqual(await h.next(), { type: "yield", id: 1, item: 4, read: 4 });
  // the end was not read yet when 4 was yielded: `read` counts it as one more pull
  assert.deepEqual(await h.next(), { type: "result", id: 1, value: null });
  h.end();
  await served;
});

test("windows (protocol 4): once the first events are read, ack asks for the held last event and end", async () => {
  const h = fakeHarness();
  const served = serve({
    hello: { ...HELLO, protocol: 4, pipeline: true },
    handlers: {
      async *process_stream(c) {
        for await (const event of c.events()) yield event.n;
      },
    },
    channel: h.channel,
    exit: false,
  });
  assert.equal((await h.next()).protocol, 4);
  h.push(call(1, "process_stream", {}, { kind: "stream", stream: "events" }));
  h.push({ type: "events", id: 1, events: [{ event: { n: 1 } }, { event: { n: 2 } }] });
  assert.deepEqual(await h.next(), { type: "yield", id: 1, item: 1, read: 1 });
  assert.deepEqual(await h.next(), { type: "yield", id: 1, item: 2, read: 2 });
  assert.deepEqual(await h.next(), { type: "ack", id: 1 }); // its queue is empty and no end came
  h.push({ type: "events", id: 1, events: [{ event: { n: 3 } }] });
  h.push({ type: "end", id: 1 });
  assert.deepEqual(await h.next(), { type: "yield", id: 1, item: 3, read: 3 });
  assert.deepEqual(await h.next(), { type: "result", id: 1, value: null });
  h.end();
  await served;
});

test("ahead (protocol 3): calls sent with their events before the first is answered are answered in order", async () => {
  const h = fakeHarness();
  const served = serve({
    hello: { ...HELLO, protocol: 3, pipeline: true, ahead: true },
    handlers: {
      async *process_stream(c) {
        for await (const event of c.events()) yield event.n * c.id;
      },
    },
    channel: h.channel,
    exit: false,
  });
  const hello = await h.next();
  assert.equal(hello.ahead, true);
  assert.equal(hello.pipeline, true);
  for (const id of [1, 2]) {
    h.push(call(id, "process_stream", {}, { kind: "stream", stream: "events" }));
    h.push({ type: "events", id, events: [{ event: { n: 1 } }, { event: { n: 2 } }] });
    h.push({ type: "end", id });
  }
  const got = [];
  for (let i = 0; i < 6; i++) got.push(await h.next());
  assert.deepEqual(got.map((m) => [m.type, m.id, m.item ?? null]), [
    ["yield", 1, 1], ["yield", 1, 2], ["result", 1, null],
    ["yield", 2, 2], ["yield", 2, 4], ["result", 2, null],
  ]);
  h.end();
  await served;
});

test("ahead is said only when asked for", async () => {
  const h = fakeHarness();
  const served = serve({ hello: { ...HELLO, pipeline: true }, handlers: {}, channel: h.channel, exit: false });
  assert.equal("ahead" in (await h.next()), false);
  h.end();
  await served;
});

test("without a category table nothing changes: no categories in the hello, no category in errors", async () => {
  const h = fakeHarness();
  const served = serve({ hello: HELLO, handlers: { process: () => { throw new CategorisedError("refusal", "no"); } }, channel: h.channel, exit: false });
  assert.equal("categories" in (await h.next()), false);
  h.push(call(1, "process"));
  assert.equal("category" in (await h.next()).error, false);
  h.end();
  await served;
});

test("categoryOf: an unknown category is refused, a function may pass an error on", () => {
  assert.throws(() => new CategorisedError("oops", "x"), /unknown error category "oops"/);
  class A extends Error {}
  assert.deepEqual(categoryOf(new A("a"), [[A, () => null], [Error, "invalid-input"]]), { category: "invalid-input" });
  assert.deepEqual(categoryOf("a string", [[Error, "invalid-input"]]), { category: null });
});

test("pipeline: an end with an error rejects where the runtime reads on, and the rest is skipped", async () => {
  const h = fakeHarness();
  const served = serve({
    hello: { ...HELLO, protocol: 3, pipeline: true },
    handlers: { process_stream: async (c) => [await c.pull(), await c.pull()], process: (c) => c.id },
    channel: h.channel,
    exit: false,
  });
  await h.next();
  h.push(call(1, "process_stream", {}, { kind: "stream", stream: "events" }));
  h.push({ type: "events", id: 1, events: [{ event: { n: 1 } }] });
  h.push({ type: "end", id: 1, error: { type: "anthropic.APIStatusError", message: "overloaded" } });
  const failed = await h.next();
  assert.equal(failed.type, "error");
  assert.match(failed.error.message, /overloaded/);
  h.push(call(2, "process"));
  assert.deepEqual(await h.next(), { type: "result", id: 2, value: 2 });
  h.end();
  await served;
});

test("an Inexpressible is the case's input without a form here: the error says so, with the reason", async () => {
  const h = fakeHarness();
  const served = serve({
    hello: HELLO,
    handlers: { process: () => { throw new Inexpressible("no system images"); } },
    channel: h.channel,
    exit: false,
  });
  await h.next();
  h.push(call(1, "process"));
  const { error } = await h.next();
  assert.deepEqual([error.type, error.inexpressible, error.message, "origin" in error], ["Inexpressible", true, "no system images", false]);
  h.end();
  await served;
});

/** A module outside this folder (`folder` under the system's temporary folder) whose function throws:
 * a stand-in runtime. */
async function runtimeModule(folder) {
  const { mkdtemp, mkdir, writeFile } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const path = await import("node:path");
  const { pathToFileURL } = await import("node:url");
  const root = await mkdtemp(path.join(tmpdir(), "wireconf-exec-"));
  const file = path.join(root, folder, "runtime.js");
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, 'export function runtimeThrows() { return JSON.parse("{the runtime\'s bad JSON"); }\n');
  return { root: pathToFileURL(root + path.sep).href, ...(await import(pathToFileURL(file).href)) };
}

test("an error the adapter's own code threw says origin adapter and where; the runtime's does not", async () => {
  const h = fakeHarness();
  const { runtimeThrows } = await runtimeModule("elsewhere");
  const served = serve({
    hello: HELLO,
    // no adapterFiles: serve takes the folder of the module that called it, this test's
    handlers: { process: (c) => (c.args.which === "adapter" ? JSON.parse("{not json") : runtimeThrows()) },
    channel: h.channel,
    exit: false,
  });
  await h.next();
  h.push(call(1, "process", { which: "adapter" }));
  const own = (await h.next()).error;
  // the JSON.parse frame is Node's own, passed over: the first frame left is this file's, the adapter's
  assert.deepEqual([own.type, own.origin], ["SyntaxError", "adapter"]);
  assert.match(own.at, /serve\.test\.js:\d+$/);
  h.push(call(2, "process", { which: "runtime" }));
  const theirs = (await h.next()).error;
  assert.deepEqual([theirs.type, "origin" in theirs], ["SyntaxError", false]);
  h.end();
  await served;
});

test("adapterRaised: a node_modules folder inside the adapter's files is the runtime's; a declared error is on purpose", async () => {
  const { root, runtimeThrows } = await runtimeModule("node_modules/some-runtime");
  let thrown;
  try {
    runtimeThrows();
  } catch (error) {
    thrown = error;
  }
  assert.equal(adapterRaised(thrown, [root]), "");
  assert.match(adapterRaised(new TypeError("mine"), [new URL("./", import.meta.url).href]), /serve\.test\.js:\d+$/);
  const declared = new CategorisedError("invalid-input", "refused on purpose");
  assert.equal(adapterRaised(declared, [new URL("./", import.meta.url).href]), "");
});

test("a served error's stack names no folder of this machine: the adapter's and the working directory go", async () => {
  const h = fakeHarness();
  const served = serve({ hello: HELLO, handlers: { process: () => { throw new TypeError("t"); } }, channel: h.channel, exit: false });
  await h.next();
  h.push(call(1, "process"));
  const { error } = await h.next();
  assert.match(error.traceback, /\(serve\.test\.js:\d+:\d+\)/);
  assert.equal(error.traceback.includes(process.cwd()), false);
  assert.equal(error.traceback.includes("file://"), false);
  h.end();
  await served;
});

test("a hello says every flag of the records it is given, and refuses one they lack", async () => {
  const h = fakeHarness();
  const served = serve({
    hello: { name: "t", version: "1", capabilities: [], pipeline: true, ahead: true, inputs: "json" },
    handlers: {},
    channel: h.channel,
    exit: false,
  });
  const hello = await h.next();
  assert.deepEqual(hello, { type: "hello", protocol: 4, name: "t", version: "1", capabilities: [], pipeline: true, ahead: true, inputs: "json" });
  h.push({ type: "stop" });
  await served;
  await assert.rejects(
    serve({ hello: { name: "t", version: "1", capabilities: [], colour: "red" }, channel: fakeHarness().channel, exit: false }),
    /a hello has no `colour`/,
  );
});
