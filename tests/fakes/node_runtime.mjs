// A runtime written in JavaScript, served over wireconf's exec protocol (JSON lines on stdin/stdout).
// It implements OpenAI Chat Completions processing (§8.1) and streaming (§8.6) and declares exactly
// those two capabilities; tests/integration/test_exec_protocol.py runs the corpus through it.
//
// For the crash test: with WIRECONF_FAKE_CRASH_FILE and WIRECONF_FAKE_CRASH_AT=N set, the N-th call
// this process handles kills the process (SIGKILL) in the middle of the call, once: the file records
// that the crash happened, so the restarted process serves normally.
import fs from "node:fs";
import readline from "node:readline";

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
const waiting = [];
const buffered = [];
lines.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (waiting.length) waiting.shift()(message);
  else buffered.push(message);
});
lines.on("close", () => { while (waiting.length) waiting.shift()(null); });

const receive = () => (buffered.length ? Promise.resolve(buffered.shift()) : new Promise((r) => waiting.push(r)));
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

class ValueError extends Error {
  constructor(message) { super(message); this.name = "ValueError"; }
}

let calls = 0;
function maybeCrash() {
  const file = process.env.WIRECONF_FAKE_CRASH_FILE;
  if (!file || calls !== Number(process.env.WIRECONF_FAKE_CRASH_AT) || fs.existsSync(file)) return;
  fs.writeFileSync(file, String(process.pid));
  process.kill(process.pid, "SIGKILL");
}

function parseStructured(agent, content) {
  if (agent.outputs && agent.outputs.length && content) {
    try { return JSON.parse(content); } catch { return content; }
  }
  return content;
}

function processChat(agent, response) {
  const message = response.choices[0].message;
  if (message.tool_calls && message.tool_calls.length) {
    return message.tool_calls.map((tc) => ({ id: tc.id, name: tc.function.name, arguments: tc.function.arguments }));
  }
  return parseStructured(agent, message.content || message.refusal || "");
}

async function processStream(id, agent) {
  const calls = new Map();
  for (;;) {
    send({ type: "next", id });
    const reply = await receive();
    if (reply === null) process.exit(0);
    if (reply.type === "end") break;
    maybeCrash();
    const choice = (reply.event.choices || []).find((c) => c.index === 0 || c.index == null);
    const delta = choice && choice.delta;
    if (!delta) continue;
    if (delta.content) send({ type: "yield", id, item: delta.content });
    for (const tc of delta.tool_calls || []) {
      if (!calls.has(tc.index)) {
        calls.set(tc.index, { id: tc.id ?? null, name: tc.function ? tc.function.name ?? null : null, arguments: "" });
      }
      if (tc.function && tc.function.arguments) calls.get(tc.index).arguments += tc.function.arguments;
    }
    if (delta.refusal) throw new ValueError("Model refused: " + delta.refusal);
  }
  for (const index of [...calls.keys()].sort((a, b) => a - b)) send({ type: "yield", id, item: calls.get(index) });
  return null;
}

async function handle(call) {
  calls += 1;
  if (call.api !== "openai.chat") throw new Error(`unsupported api ${call.api}`);
  if (call.method === "process") {
    maybeCrash();
    return processChat(call.args.agent, call.args.response);
  }
  if (call.method === "process_stream") return processStream(call.id, call.args.agent);
  throw new Error(`unsupported method ${call.method}`);
}

send({ type: "hello", protocol: 1, name: "node-fake", version: "0.1.0", capabilities: ["process:openai.chat", "stream:openai.chat"] });
for (;;) {
  const message = await receive();
  if (message === null || message.type === "stop") process.exit(0);
  if (message.type !== "call") continue;
  try {
    send({ type: "result", id: message.id, value: await handle(message) });
  } catch (error) {
    const mro = [error.name, ...(error.name === "Error" ? [] : ["Error"])];
    send({ type: "error", id: message.id, error: { type: error.name, mro, message: error.message, traceback: error.stack || "" } });
  }
}
