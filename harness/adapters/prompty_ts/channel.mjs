// The exec protocol's transport on the runtime's side: JSON lines in on stdin, out on stdout.
//
// stdout belongs to the protocol: anything else the process prints (console.log, console.debug from the
// runtime) is sent to stderr, where the harness keeps it for crash reports.
import readline from "node:readline";

const protocolWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);

const waiting = [];
const buffered = [];
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (waiting.length) waiting.shift()(message);
  else buffered.push(message);
});
lines.on("close", () => {
  while (waiting.length) waiting.shift()(null);
  buffered.push(null);
});

/** The next message from the harness, or null once stdin is closed (the harness is gone). */
export function receive() {
  return buffered.length ? Promise.resolve(buffered.shift()) : new Promise((resolve) => waiting.push(resolve));
}

/** Send one message to the harness. */
export function send(message) {
  protocolWrite(JSON.stringify(message) + "\n");
}

/** The bytes of a recorded body or chunk: UTF-8 text, or base64 when `encoding` says so. */
export function bytesOf(text, encoding) {
  return encoding === "base64" ? Buffer.from(text, "base64") : Buffer.from(text, "utf-8");
}

/**
 * A pull function for one call's streamed argument: each call asks the harness for the next event
 * (`next`) and resolves to its bytes, or to null at the end of the stream.
 */
export function puller(callId) {
  return async () => {
    send({ type: "next", id: callId });
    const reply = await receive();
    if (reply === null) process.exit(0);
    if (reply.type === "end" && reply.id === callId) return null;
    if (reply.type !== "event" || reply.id !== callId || typeof reply.chunk !== "string") {
      throw new Error(`expected a recorded chunk for call ${callId}, got ${JSON.stringify(reply).slice(0, 200)}`);
    }
    return bytesOf(reply.chunk, reply.encoding);
  };
}

/**
 * A `fetch` for an e2e call (protocol 2): each request goes to the harness (`http`), which sends it
 * through the case's SDK client and answers (`response`); an event stream's body is pulled with
 * `next`. `respond` turns the answer into a Response (replay.mjs's responseOf).
 */
export function bridgedFetch(callId, respond) {
  return async (url, init = {}) => {
    const headers = {};
    for (const [name, value] of new Headers(init.headers || {})) (headers[name] ??= []).push(value);
    if (init.body !== undefined && init.body !== null && typeof init.body !== "string") {
      throw new TypeError("wireconf: only text request bodies cross the exec protocol");
    }
    const request = { method: init.method || "GET", url: String(url), headers, body: init.body ?? null };
    send({ type: "http", id: callId, request });
    const reply = await receive();
    if (reply === null) process.exit(0);
    if (reply.type !== "response" || reply.id !== callId) {
      throw new Error(`expected the response to call ${callId}'s request, got ${JSON.stringify(reply).slice(0, 200)}`);
    }
    if (reply.error !== undefined) throw new TypeError(`fetch failed: ${reply.error}`);
    return respond(reply, "body" in reply ? null : puller(callId));
  };
}
