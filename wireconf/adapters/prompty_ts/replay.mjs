// The SDK objects Prompty's TypeScript executors hand its processors, read over HTTP.
//
// Each call gets a real SDK client (openai / @anthropic-ai/sdk, the versions the runtime's lockfile
// pins) at the case's endpoint (the harness's provider emulator, which answers with the recorded status,
// headers and body; a stream's events as the SDK reads them); then the SDK method the executor calls
// parses them, exactly as it would parse a live response (e2e: the case's cassette answers).
const MODEL = "wireconf-replay";

/** The SDK calls, per api, as Prompty's executors make them (openai/src/executor.ts,
 * anthropic/src/executor.ts), with the fields the SDK needs to build a request. */
export function replayer(sdks, core) {
  // at the endpoint: its base URL in the form each SDK takes and its placeholder key
  const clients = {
    openai: (endpoint) => new sdks.OpenAI({ apiKey: endpoint.key, baseURL: endpoint.api_base_url, maxRetries: 0 }),
    anthropic: (endpoint) => new sdks.Anthropic({ apiKey: endpoint.key, baseURL: endpoint.origin, maxRetries: 0 }),
  };
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
    /** The SDK's response object, read by `client` (at the case's endpoint). */
    response(api, client) {
      return responses[api](client);
    },
    /** The stream the executor hands the processor, read by `client` as the SDK reads it. */
    stream(api, client) {
      return streams[api](client);
    },
    /** An SDK client at `endpoint` (its key). */
    client(api, { endpoint }) {
      return clients[provider(api)](endpoint);
    },
  };
}
