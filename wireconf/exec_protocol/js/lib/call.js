// One call (one case) as a handler sees it: its arguments, and the ways to get at what crosses the
// protocol during it (the streamed argument's events, recorded responses as `fetch`, the e2e bridge).
import { ProtocolError } from "./channel.js";
import { bytesOf, responseOf } from "./recorded.js";

const snippet = (message) => JSON.stringify(message).slice(0, 200);

/** The error the harness's SDK raised reading a recorded stream (an `end`'s `error`), as an Error. */
function streamError(error) {
  const raised = new Error(error.message ?? "the recorded stream failed");
  raised.name = String(error.type ?? "Error").split(".").pop();
  return raised;
}

export class Call {
  /**
   * @param {import("./channel.js").Channel} channel
   * @param {object} message the `call` message
   * @param {{inputs: string, pipeline?: boolean, protocol?: number}} hello what the runtime said (how SDK
   *   arguments cross, whether a streamed argument's events come unasked: protocol 3's `pipeline`, and
   *   its protocol: from 4, the harness holds a stream's last event and `end` until `ack`)
   */
  constructor(channel, message, hello) {
    this.channel = channel;
    this.message = message;
    this.id = message.id;
    this.kind = message.kind;
    this.api = message.api ?? null;
    this.method = message.method;
    this.args = message.args ?? {};
    this.sdk = message.sdk ?? [];
    this.stream = message.stream ?? null;
    /** Protocol 4, after a hello that says `endpoints`: where the case's api answers (its base URLs,
     * a placeholder key, the media downloads), else null. */
    this.endpoint = message.endpoint ?? null;
    this.recordedInputs = hello.inputs === "recorded";
    this.pipeline = hello.pipeline === true;
    /** Protocol 4: ask for the held rest of the stream (`ack`) once all that was sent is read. */
    this.acks = this.pipeline && (hello.protocol ?? 0) >= 4;
    this.acked = false;
    this.windowed = false;
    this.pulled = false;
    /** How many events of the streamed argument the runtime has read (each `yield` says it, protocol 3). */
    this.read = 0;
    this.pending = [];
  }

  /** The provider part of the api (`openai` of `openai.chat`). */
  get provider() {
    return this.api === null ? null : this.api.split(".")[0];
  }

  /** Whether argument `name` is an SDK argument (a provider response, or the streamed one), rather
   * than plain data: a `response_as: mapping` case sends the decoded JSON body, not named in `sdk`. */
  isSdk(name) {
    return this.sdk.includes(name) || this.stream === name;
  }

  async reply() {
    const message = await this.channel.reply(this.id);
    if (message === null) process.exit(0); // the harness is gone: nothing is left to answer
    return message;
  }

  /**
   * The next event of the streamed argument, or null at its end: with `inputs: recorded` the bytes of
   * one server-sent event (a Buffer), otherwise the event as the provider's JSON. Each call asks the
   * harness for one (`next`), so the harness sees exactly how far the runtime has read; after a hello
   * that says `pipeline` (protocol 3) the events come unasked, in `events` batches, and each `yield`
   * says how many were read instead. An `end` with an `error` (the recorded stream fails) rejects.
   */
  async pull() {
    if (this.stream === null) throw new ProtocolError(`call ${this.id} (${this.method}) has no streamed argument`);
    const event = this.pipeline ? await this.unasked() : await this.nextChunk();
    this.read += 1; // the end counts as one pull, as a `next` answered by `end` did
    return event;
  }

  /** The next event of a `pipeline` stream, from the batches the harness sent unasked. */
  async unasked() {
    this.pulled = true;
    while (this.pending.length === 0) {
      if (this.acks && this.windowed && !this.acked) {
        this.acked = true; // it read the window and no `end` came: the harness sends the rest
        this.channel.send({ type: "ack", id: this.id });
      }
      const reply = await this.reply();
      if (reply.type === "end") {
        if (reply.error) throw streamError(reply.error);
        return null;
      }
      if (reply.type !== "events") throw new ProtocolError(`expected events for call ${this.id}, got ${snippet(reply)}`);
      this.pending.push(...reply.events);
      this.windowed = true; // protocol 4: the first `events` is the window, all but the last event
    }
    const item = this.pending.shift();
    return typeof item.chunk === "string" ? bytesOf(item.chunk, item.encoding) : item.event;
  }

  /** Ask the harness for the next event or chunk of this call (a stream argument, or a bridged body). */
  async nextChunk() {
    this.pulled = true;
    this.channel.send({ type: "next", id: this.id });
    const reply = await this.reply();
    if (reply.type === "end") return null;
    if (reply.type !== "event") throw new ProtocolError(`expected an event for call ${this.id}, got ${snippet(reply)}`);
    if (typeof reply.chunk === "string") return bytesOf(reply.chunk, reply.encoding);
    return reply.event;
  }

  /** The streamed argument's events, pulled one at a time as the loop asks (see `pull`). */
  async *events() {
    for (;;) {
      const event = await this.pull();
      if (event === null) return;
      yield event;
    }
  }

  /**
   * The recorded response of SDK argument `name` (default: the streamed one, else the first in `sdk`)
   * as a fetch Response (`inputs: recorded`); a streamed argument's body is pulled as it is read.
   */
  response(name = this.stream ?? this.sdk[0]) {
    if (!this.recordedInputs) {
      throw new ProtocolError('recorded responses need `inputs: "recorded"` in the hello');
    }
    if (!this.isSdk(name)) {
      throw new ProtocolError(
        `argument ${JSON.stringify(name)} of ${this.method} is not an SDK argument (it is plain data: ` +
          "a `response_as: mapping` case's decoded JSON body, in `args` as it is)",
      );
    }
    const recorded = this.args[name];
    return responseOf(recorded, name === this.stream ? () => this.pull() : null);
  }

  /**
   * A `fetch` that answers every request with the recorded response of argument `name` (see
   * `response`): give it to the provider SDK's client (`new OpenAI({fetch})`, `createOpenAI({fetch})`)
   * and call the method the runtime calls; the SDK parses the recorded bytes as it would live ones.
   * The requests it is sent are kept in `fetch.requests` ({url, init}).
   */
  recordedFetch(name = this.stream ?? this.sdk[0]) {
    const requests = [];
    const fetch = async (url, init = {}) => {
      requests.push({ url: String(url), init });
      if (requests.length > 1) {
        throw new TypeError(`wireconf: the recorded response of ${name} answers one request; the SDK sent another (a retry?) to ${url}`);
      }
      return this.response(name);
    };
    fetch.requests = requests;
    return fetch;
  }

  /** The e2e call's SDK client description (`execute`'s `client`): base URLs to build an SDK client on. */
  get client() {
    return this.args.client ?? null;
  }

  /**
   * A `fetch` for media downloads through the call's endpoint (protocol 4, `endpoints`): a GET or HEAD of
   * a URL the case's input names is answered by the emulator's download path (`endpoint.download`) with
   * the fixture bytes of its media type; any other URL is refused there, as a network attempt (the case
   * is an error). Give it to what the runtime downloads media with; no proxy support is needed.
   */
  downloadFetch() {
    if (this.endpoint === null) {
      throw new ProtocolError(`call ${this.id} (${this.method}) carries no endpoint (a hello that says \`endpoints\` gets one)`);
    }
    const download = this.endpoint.download;
    return async (input, init = {}) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = init.method ?? (input instanceof Request ? input.method : "GET");
      return fetch(`${download}?url=${encodeURIComponent(url)}`, { method, signal: init.signal });
    };
  }

  /**
   * The harness as a `fetch` (protocol 2): each request goes to the harness (`http`), which answers. In
   * any call, a download (GET) of a media URL the call's `messages` name is answered with fixture bytes
   * of the part's media type (give this fetch to what downloads media to inline it). In an e2e call,
   * any other request goes through the case's SDK client (cassette replay, or recording); an event
   * stream's body is pulled with `next` as it is read. A request nothing answers rejects, as on a
   * network error (the harness keeps it as a network attempt: the case is an error, not a verdict).
   */
  bridgeFetch() {
    return async (input, init = {}) => {
      const request = input instanceof Request ? input : null;
      const url = request ? request.url : String(input);
      const headers = {};
      for (const [name, value] of new Headers(init.headers ?? request?.headers ?? {})) {
        (headers[name] ??= []).push(value);
      }
      const method = init.method ?? request?.method ?? "GET";
      const message = { method, url, headers, body: null };
      const body = init.body ?? (request && request.body ? await request.arrayBuffer() : null);
      if (typeof body === "string") message.body = body;
      else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
        const bytes = body instanceof ArrayBuffer ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
        message.body = bytes.toString("base64");
        message.encoding = "base64";
      } else if (body !== null && body !== undefined) {
        throw new TypeError(`wireconf: a ${body?.constructor?.name ?? typeof body} request body cannot cross the exec protocol (text or bytes only)`);
      }
      this.channel.send({ type: "http", id: this.id, request: message });
      const reply = await this.reply();
      if (reply.type !== "response") {
        throw new ProtocolError(`expected the response to call ${this.id}'s request, got ${snippet(reply)}`);
      }
      if (reply.error !== undefined) throw new TypeError(`fetch failed: ${reply.error}`);
      const streamed = !("body" in reply); // an event stream: its body is pulled with `next`
      return responseOf(reply, streamed ? () => this.nextChunk() : null);
    };
  }
}
