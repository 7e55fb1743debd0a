// The transport: JSON lines in on stdin, out on stdout, sorted by the call they belong to.
//
// Calls (and `stop`) are read in order; the replies the harness sends during a call (`event`, `end`,
// `response`) go to that call, whatever arrives in between, so a harness that sends the next cases'
// calls while this one runs (pipelined calls) never mixes them up. stdout belongs to the protocol:
// anything else the process prints (console.log from the runtime) is sent to stderr, where the harness
// keeps it for crash reports.
import readline from "node:readline";
import { harnessMessageProblem } from "./validate.js";

/** One queue of messages, read with `next()` (a promise; null once the input is closed). */
class Queue {
  constructor() {
    this.items = [];
    this.waiting = [];
    this.closed = false;
  }
  put(message) {
    if (this.waiting.length) this.waiting.shift()(message);
    else this.items.push(message);
  }
  close() {
    this.closed = true;
    while (this.waiting.length) this.waiting.shift()(null);
  }
  next() {
    if (this.items.length) return Promise.resolve(this.items.shift());
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

const CALL_TYPES = new Set(["call", "stop"]);

export class ProtocolError extends Error {
  constructor(message) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** Both directions of the protocol over a pair of streams (the process's stdin and stdout by default). */
export class Channel {
  /**
   * @param {{input?: NodeJS.ReadableStream, write?: (text: string) => void, onInvalid?: (problem: string) => void}} [options]
   */
  constructor({ input, write, onInvalid } = {}) {
    this.write = write ?? captureStdout();
    this.onInvalid = onInvalid ?? null;
    this.calls = new Queue();
    this.replies = new Map();
    this.lastDone = 0;
    this.closed = false;
    const lines = readline.createInterface({ input: input ?? process.stdin, crlfDelay: Infinity });
    lines.on("line", (line) => this.accept(line));
    lines.on("close", () => {
      this.closed = true;
      this.calls.close();
      for (const queue of this.replies.values()) queue.close();
    });
  }

  accept(line) {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch (error) {
      process.stderr.write(`wireconf-exec: not a JSON line from the harness: ${line.slice(0, 200)}\n`);
      return;
    }
    const problem = harnessMessageProblem(message);
    if (problem !== null) return this.refuse(problem);
    if (CALL_TYPES.has(message.type)) this.calls.put(message);
    else if (!(message.id <= this.lastDone)) this.queueOf(message.id).put(message); // else: the rest of a
    // `pipeline` stream its call did not read to its end (protocol 3), dropped
  }

  /**
   * A message of the harness that does not fit the schema this client was made with (a harness of
   * another protocol version): said on stderr, which the harness shows in the case's error, and the
   * process ends rather than answer what it cannot read (`onInvalid` replaces that, for tests).
   */
  refuse(problem) {
    if (this.onInvalid) return this.onInvalid(problem);
    process.stderr.write(`wireconf-exec: ${problem}\n`);
    process.exit(70); // EX_SOFTWARE
  }

  queueOf(id) {
    let queue = this.replies.get(id);
    if (!queue) {
      queue = new Queue();
      if (this.closed) queue.close();
      this.replies.set(id, queue);
    }
    return queue;
  }

  /** The next `call` or `stop`, in the order sent; null once the harness is gone. */
  nextCall() {
    return this.calls.next();
  }

  /** The next message the harness sent for call `id` (`event`, `end`, `response`); null once it is gone. */
  reply(id) {
    return this.queueOf(id).next();
  }

  /** Forget what is left for a call that has ended. */
  done(id) {
    this.replies.delete(id);
    this.lastDone = Math.max(this.lastDone, id);
  }

  /** Send one message to the harness. */
  send(message) {
    this.write(JSON.stringify(message) + "\n");
  }
}

let protocolWrite = null;

/** The process's real stdout, for the protocol alone; `process.stdout.write` goes to stderr from now on. */
function captureStdout() {
  if (protocolWrite === null) {
    protocolWrite = process.stdout.write.bind(process.stdout);
    process.stdout.write = process.stderr.write.bind(process.stderr);
  }
  return protocolWrite;
}
