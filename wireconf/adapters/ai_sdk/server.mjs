// The Vercel AI SDK (`ai` with @ai-sdk/openai, @ai-sdk/anthropic, @ai-sdk/google) served to wireconf's
// corpus over `exec:` on @wireconf/exec, the protocol's JavaScript client: this file is the mapping
// alone (the guide's worked example for a JavaScript runtime, docs/adapters.md). `--impl ai-sdk` runs
// it from the build `wireconf ai-sdk build` installed (wireconf/adapters/ai_sdk/__init__.py).
//
// Its hello says `endpoints`: every call carries the case's endpoint on the harness's provider
// emulator, and the providers are created on its base URL as an AI SDK user points them at a gateway
// (`createOpenAI({baseURL, apiKey})`): the AI SDK's own HTTP path runs, on Node's own fetch. Per kind:
// - wire: `generateText({model, messages, ...settings})`; the request it sent is what is judged (the
//   endpoint answers with a minimal valid response).
// - process: `generateText`; the endpoint answers with the recorded response; the result is its
//   `text`, its `toolCalls`, or its `output` (structured output).
// - stream: `streamText`, the recorded stream served as the AI SDK reads it; its `fullStream`'s text
//   deltas are yielded as they come, its tool calls at the end, an `error` part thrown.
// - e2e: `generateText` (or `streamText`, when the agent asks for a stream); the endpoint answers from
//   the case's cassette (an incremental case's stream held back until the AI SDK yields).
// In every kind, a media URL the AI SDK downloads to inline it (`download()`, for a URL the model does
// not take as it is) is fetched through the endpoint's download path (`call.downloadFetch()`), which
// answers a URL the case's input names with fixture bytes of its media type and refuses any other.
import {
  AISDKError,
  APICallError,
  DownloadError,
  InvalidArgumentError,
  InvalidPromptError,
  UnsupportedFunctionalityError,
  generateText,
  streamText,
} from "ai";
// `ai`'s own dependency (pinned by its version), whose URL checks and size limit its download uses
import { DEFAULT_MAX_DOWNLOAD_SIZE, fetchWithValidatedRedirects, readResponseWithSizeLimit } from "@ai-sdk/provider-utils";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { CategorisedError, serve } from "@wireconf/exec";

import { messagesOf, settingsOf, wantsStream } from "./inputs.mjs";

/** Per api: the provider instance's model, and the key of its providerOptions. */
const MODELS = {
  "openai.chat": { options: "openai", model: (settings, id) => createOpenAI(settings).chat(id) },
  "openai.responses": { options: "openai", model: (settings, id) => createOpenAI(settings).responses(id) },
  "anthropic.messages": { options: "anthropic", model: (settings, id) => createAnthropic(settings).messages(id) },
  "gemini.generate_content": { options: "google", model: (settings, id) => createGoogleGenerativeAI(settings).chat(id) },
};

// A process or stream call carries no messages (the response is judged, not the request): the AI SDK
// refuses an empty prompt, so it gets one; the recording answers whatever request it sends.
const REPLAY_PROMPT = [{ role: "user", content: "wireconf replay" }];

/**
 * The AI SDK's default download function (`createDefaultDownloadFunction` and `download` in `ai`: a URL
 * the model supports is left alone, any other fetched with the URL checks and the size limit of
 * `@ai-sdk/provider-utils`) with its fetch through the harness: on Node its own fetch is undici's with
 * a dispatcher of its own, which no `fetch` option reaches.
 */
function downloadThrough(fetch) {
  const one = async ({ url, isUrlSupportedByModel }) => {
    if (isUrlSupportedByModel) return null;
    const urlText = url.toString();
    try {
      const response = await fetchWithValidatedRedirects({ url: urlText, fetch });
      if (!response.ok) throw new DownloadError({ url: urlText, statusCode: response.status, statusText: response.statusText });
      const data = await readResponseWithSizeLimit({ response, url: urlText, maxBytes: DEFAULT_MAX_DOWNLOAD_SIZE });
      return { data, mediaType: response.headers.get("content-type") ?? undefined };
    } catch (error) {
      if (DownloadError.isInstance(error)) throw error;
      throw new DownloadError({ url: urlText, cause: error });
    }
  };
  return (requested) => Promise.all(requested.map(one));
}

/** What a user writes: generateText's (or streamText's) arguments, on a provider at the endpoint. */
function request(call) {
  const { agent } = call.args;
  const api = MODELS[call.api];
  let next = 0; // the ids the provider makes up (Gemini's tool calls) numbered per call, not random, so
  // that a diff reads the same on every run (the verdict is the same: they are not the spec's ids)
  const generateId = () => `ai-sdk-generated-${next++}`;
  const { key: apiKey, api_base_url: baseURL } = call.endpoint;
  return {
    model: api.model({ apiKey, baseURL, generateId }, agent.model.id),
    messages: "messages" in call.args ? messagesOf(call.args.messages) : REPLAY_PROMPT,
    maxRetries: 0, // a recording answers once
    experimental_download: downloadThrough(call.downloadFetch()),
    ...settingsOf(agent, api.options),
  };
}

/** The AI SDK's result as the spec's: tool calls ({id, name, arguments as JSON text}), else the
 * structured output, else the text. */
function resultOf(agent, result) {
  if (result.toolCalls.length) return result.toolCalls.map(toolCall);
  if (agent.outputs?.length) return result.output;
  return result.text;
}

const toolCall = (call) => ({ id: call.toolCallId, name: call.toolName, arguments: JSON.stringify(call.input) });

async function buildRequest(call) {
  await generateText(request(call));
  return null; // the request it sent is judged
}

async function processResponse(call) {
  return resultOf(call.args.agent, await generateText(request(call)));
}

/** streamText's fullStream as the spec's items: text deltas as they come, tool calls at the end. */
async function* items(result) {
  const calls = [];
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") yield part.text;
    else if (part.type === "tool-call") calls.push(toolCall(part));
    else if (part.type === "error") throw streamError(part.error);
  }
  yield* calls;
}

/** A stream's `error` part as thrown: the AI SDK hands a provider's error event over as the event's
 * error object (not an Error), which is the error the response reports; an Error of its own (a chunk
 * it could not validate: TypeValidationError) is thrown as it is, none of the spec's errors. */
function streamError(error) {
  if (error instanceof Error) return error;
  return new CategorisedError("provider-error", JSON.stringify(error), { cause: error });
}

/** The AI SDK's errors in the spec's terms (wireconf.core.error_categories), a decision of this adapter:
 * the SDK's own refusals of a prompt before any request (an invalid prompt, a part its provider cannot
 * carry, an invalid setting) are invalid input; an APICallError with an HTTP error status is the
 * provider's HTTP error with that status. Anything else (an APICallError on a 2xx response, which is
 * the SDK failing to read it, "Invalid JSON response"; a DownloadError; NoObjectGeneratedError; a
 * DOMException from atob) is none of the spec's errors: the harness counts it as uncategorised. */
const CATEGORIES = [
  [InvalidPromptError, "invalid-input"],
  [UnsupportedFunctionalityError, "invalid-input"],
  [InvalidArgumentError, "invalid-input"],
  [APICallError, (error) => (error.statusCode >= 400 ? { category: "provider-http-error", status: error.statusCode } : null)],
];

const processStream = (call) => items(streamText(request(call)));

async function execute(call) {
  if (wantsStream(call.args.agent)) return items(streamText(request(call)));
  return resultOf(call.args.agent, await generateText(request(call)));
}

const APIS = Object.keys(MODELS);
const version = (await import("ai/package.json", { with: { type: "json" } })).default.version;

await serve({
  hello: {
    name: "ai-sdk",
    version,
    endpoints: true,
    capabilities: ["wire", "process", "stream", "e2e"].flatMap((kind) => APIS.map((api) => `${kind}:${api}`)),
  },
  handlers: { build_request: buildRequest, process: processResponse, process_stream: processStream, execute },
  // the AI SDK's errors (APICallError, TypeValidationError, ...) named after their package, as the
  // Python SDKs' are after their module
  // (stack frames name the install's files from its folder: node_modules/ai/dist/index.mjs)
  // their categories (CATEGORIES: the hello then says `categories`)
  errors: { sdkErrors: [[AISDKError, "ai"]], places: { [new URL("..", import.meta.url).href]: "" }, categories: CATEGORIES },
});
