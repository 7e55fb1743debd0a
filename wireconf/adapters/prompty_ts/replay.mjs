// Recorded bytes → the objects Prompty's TypeScript executors hand its processors.
//
// Each call gets a real SDK client (openai / @anthropic-ai/sdk, the versions the runtime's lockfile
// pins) whose `fetch` answers with the recorded status, headers and body; then the SDK method the
// executor calls parses them, exactly as it would parse a live response. A stream's body is pulled
// from the harness one event at a time as the SDK reads it, so incremental processing stays visible.
// (The recorded-response `fetch` and the e2e bridge are @wireconf/exec's: `call.recordedFetch()`,
// `call.bridgeFetch()`.)
const REPLAY_KEY = "wireconf-replay";
const MODEL = "wireconf-replay";

/** The SDK calls, per api, as Prompty's executors make them (openai/src/executor.ts,
 * anthropic/src/executor.ts), with the fields the SDK needs to build a request. */
export function replayer(sdks, core) {
  // e2e clients take the harness client's base URL, and the key a user's would (the environment's)
  const clients = {
    openai: (fetch, baseURL = "https://api.openai.com/v1", apiKey = REPLAY_KEY) =>
      new sdks.OpenAI({ apiKey, baseURL, maxRetries: 0, fetch }),
    anthropic: (fetch, baseURL = "https://api.anthropic.com", apiKey = REPLAY_KEY) =>
      new sdks.Anthropic({ apiKey, baseURL, maxRetries: 0, fetch }),
  };
  const KEYS = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY" };
  // `${clientName}Executor`, the name each executor gives the PromptyStream it returns
  const wrap = (client, stream) => new core.PromptyStream(`${client.constructor.name}Executor`, stream);

  const responses = {
    "openai.chat": (c) => c.chat.completions.create({ model: MODEL, messages: [] }),
    // the harness's recordings hold float vectors; "float" keeps the SDK from decoding base64
    "openai.embeddings": (c) => c.embeddings.create({ model: MODEL, input: "x", encoding_format: "float" }),
    "openai.images": (c) => c.images.generate({ model: MODEL, prompt: "x" }),
    "openai.responses": (c) => c.responses.create({ model: MODEL, input: "x" }),
    "anthropic.messages": (c) => c.messages.create({ model: MODEL, max_tokens: 1, messages: [] }),
  };
  const streams = {
    // chat and responses: create(stream: true), wrapped in a PromptyStream
    "openai.chat": async (c) =>
      wrap(c, await c.chat.completions.create({ model: MODEL, messages: [], stream: true })),
    "openai.responses": async (c) => wrap(c, await c.responses.create({ model: MODEL, input: "x", stream: true })),
    // images: the executor passes `stream` through to images.generate and returns what it gets, unwrapped
    "openai.images": (c) => c.images.generate({ model: MODEL, prompt: "x", stream: true }),
    // anthropic: messages.stream(), wrapped in a PromptyStream
    "anthropic.messages": (c) => wrap(c, c.messages.stream({ model: MODEL, max_tokens: 1, messages: [] })),
  };
  const provider = (api) => api.split(".")[0];

  return {
    responseApis: Object.keys(responses),
    streamApis: Object.keys(streams),
    /** The SDK's response object, parsed from what `fetch` answers (the call's recorded response). */
    response(api, fetch) {
      return responses[api](clients[provider(api)](fetch));
    },
    /** The stream the executor hands the processor, its body pulled as the SDK reads it. */
    stream(api, fetch) {
      return streams[api](clients[provider(api)](fetch));
    },
    /** An SDK client for an e2e call: its HTTP goes through `fetch` to `baseURL`. */
    client(api, fetch, baseURL) {
      const name = provider(api);
      return clients[name](fetch, baseURL, process.env[KEYS[name]] || REPLAY_KEY);
    },
  };
}
