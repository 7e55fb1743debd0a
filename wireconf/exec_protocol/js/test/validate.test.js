// The client checks every message the harness sends against the schema the harness's records make.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { Channel } from "../index.js";
import { harnessMessageProblem } from "../lib/validate.js";

const TRANSCRIPT = new URL("../../../../tests/data/exec_transcript.jsonl", import.meta.url);

test("every message the harness sent in recorded conversations fits", () => {
  const entries = readFileSync(TRANSCRIPT, "utf-8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const harness = entries.filter((e) => e.from === "harness");
  assert.ok(new Set(harness.map((e) => e.message.type)).size >= 6);
  for (const entry of harness) assert.equal(harnessMessageProblem(entry.message), null, JSON.stringify(entry));
});

test("a wrong message is refused naming its type, the field and the value", () => {
  const cases = [
    [{ type: "end", id: 0 }, "the harness's `end` message: `id` = 0 is less than 1"],
    [{ type: "events", id: 1, events: [{ nothing: 1 }] }, "`events.0.nothing` = 1 is not a field of this message"],
    [{ type: "call", id: 1, kind: "trace", api: null, method: "process", args: {} }, '`kind` = "trace" should be one of'],
    [{ type: "call", id: 1, kind: "process", api: "openai.chat", method: "process" }, "`args` is required"],
    [{ type: "event", id: 1, event: {}, chunk: "x" }, "the message fits not exactly one of its forms"],
    [{ type: "result", id: 1 }, '`"result"` is not a message the harness sends'],
    [{ type: "stop", now: true }, "`now` = true is not a field of this message"],
  ];
  for (const [message, expected] of cases) {
    const problem = harnessMessageProblem(message);
    assert.ok(problem?.includes(expected), `${JSON.stringify(message)}: ${problem}`);
  }
});

test("the channel hands a wrong message to no call and says why", async () => {
  const input = new PassThrough();
  const refused = [];
  const channel = new Channel({ input, write: () => {}, onInvalid: (problem) => refused.push(problem) });
  input.write(JSON.stringify({ type: "call", id: 1, kind: "process", api: "openai.chat", method: "process" }) + "\n");
  input.write(JSON.stringify({ type: "stop" }) + "\n");
  const first = await channel.nextCall();
  assert.equal(first.type, "stop");
  assert.equal(refused.length, 1);
  assert.match(refused[0], /`args` is required/);
  input.end();
});
