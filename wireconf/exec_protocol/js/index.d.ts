// The API of @wireconf/exec. The protocol's messages are typed in protocol.d.ts (generated from the
// exec schema by wireconf: `wireconf exec-schema --write`).
import type { Api, Capability, CallMessage, Endpoint, HelloMessage, ErrorMessage, Recorded, RecordedHead, RuntimeMessage, HarnessMessage } from "./protocol.js";

/** What an error means in the spec's terms (`expect_error: {category: ...}`). */
export type ErrorCategory = NonNullable<ErrorMessage["error"]["category"]>;
/** An error's category as reported: null when it is none of the spec's errors. */
export interface Categorised {
  category: ErrorCategory | null;
  /** With `provider-http-error`: the provider's HTTP status. */
  status?: number;
}
/** One entry of a runtime's category table: errors of `Class` mean the category (a function: decided per
 * error; null: not this entry). */
export type CategoryEntry = [Function, ErrorCategory | ((error: any) => ErrorCategory | Categorised | null)];

export type * from "./protocol.js";

/** What the runtime says in its hello. */
/**
 * What `serve` says in its hello: the runtime's name, version and capabilities, and any flag of the
 * protocol's `hello` (typed from the records: `inputs`, `optional`, `pipeline`, `ahead`, …; `warming`
 * and `categories` follow from `load` and `errors.categories`). `protocol` defaults to 3.
 */
export type Hello = Pick<HelloMessage, "name" | "version" | "capabilities"> &
  Partial<Omit<HelloMessage, "type" | "name" | "version" | "capabilities">>;

/** The e2e call's SDK client, described (`execute`'s `client` argument). */
export interface ClientDescription {
  /** The base URL as the provider's own Python SDK takes it (OpenAI's ends in /v1, Anthropic's has no version, Gemini's ends in /). */
  base_url: string;
  /** Scheme and host alone (Anthropic's TypeScript SDK, google-genai's). */
  origin?: string;
  /** The base URL up to and including the API version (`.../v1`, `.../v1beta`): what the Vercel AI SDK's providers take. */
  api_base_url?: string;
  [key: string]: unknown;
}

export type Fetch = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & {
  requests?: Array<{ url: string; init: RequestInit }>;
};

/** One call (one case), as a handler gets it. */
export declare class Call {
  readonly id: number;
  readonly kind: CallMessage["kind"];
  readonly api: Api | null;
  readonly method: CallMessage["method"];
  readonly args: Record<string, any>;
  readonly sdk: string[];
  readonly stream: string | null;
  readonly message: CallMessage;
  /** How many events of the streamed argument have been read (sent with each `yield` under `pipeline`). */
  readonly read: number;
  /** `openai` of `openai.chat`. */
  readonly provider: string | null;
  /** The e2e call's client description, else null. */
  readonly client: ClientDescription | null;
  /** Protocol 4, after a hello that says `endpoints`: where the case's api answers, else null. */
  readonly endpoint: Endpoint | null;
  /** Whether argument `name` is an SDK argument rather than plain data (`response_as: mapping`). */
  isSdk(name: string): boolean;
  /** The next event of the streamed argument (bytes with `inputs: recorded`, else the provider's JSON), null at its end. */
  pull(): Promise<Buffer | unknown | null>;
  /** The streamed argument's events, each pulled as the loop asks. */
  events(): AsyncIterableIterator<Buffer | unknown>;
  /** The recorded response of an SDK argument as a fetch Response (a stream's body pulled as it is read). */
  response(name?: string): Response;
  /** A fetch that answers with the recorded response of argument `name`: give it to the provider SDK. */
  recordedFetch(name?: string): Fetch;
  /** The harness as a fetch: a download of a media URL the call's messages name gets fixture bytes (any
   * call); in an e2e call, any other request is answered from the case's cassette (the e2e bridge). */
  bridgeFetch(): Fetch;
  /** A fetch for the media downloads the case's input names, through `endpoint.download` (protocol 4). */
  downloadFetch(): Fetch;
}

export type Handler = (call: Call) => unknown | Promise<unknown>;

export interface ErrorOptions {
  /** Stack prefixes → short names, so that tracebacks read the same on every machine. */
  places?: Record<string, string>;
  /** `[BaseClass, "package"]`: an SDK's error classes named `package.Name`, as in Python. */
  sdkErrors?: Array<[Function, string]>;
  /** A name added to the classes of an error whose class is exactly `Error` (e.g. "ValueError"). */
  plainErrorAs?: string | null;
  /** The runtime's table of error categories: every error then carries its `category` (null when no
   * entry applies and the error declares none) and the hello says `categories: true`. */
  categories?: CategoryEntry[] | null;
  /** URL or path prefixes of the adapter's own files (default, in `serve`: the folder of the module that
   * called it; its `node_modules` are the runtime's): an error their code threw is the adapter's bug,
   * reported with `origin: "adapter"`, never judged as the runtime's. */
  adapterFiles?: string[];
}

export interface ServeOptions {
  hello: Hello;
  /** One handler per method (`build_request`, `process`, `process_stream`, `execute`, ...). */
  handlers?: Record<string, Handler>;
  /** Loads the runtime after the hello (`warming`) and returns more handlers; `warm` follows. */
  load?: () => Promise<Record<string, Handler> | void>;
  errors?: ErrorOptions;
  /** How an object that is not plain data is shown in a result (e.g. its own `save()` form). */
  represent?: ((value: object) => unknown) | null;
  channel?: Channel;
  /** Exit the process (status 0) once the harness says stop; default true. */
  exit?: boolean;
}

export declare function serve(options: ServeOptions): Promise<void>;

export declare class Channel {
  constructor(options?: { input?: NodeJS.ReadableStream; write?: (text: string) => void });
  nextCall(): Promise<CallMessage | { type: "stop" } | null>;
  reply(id: number): Promise<HarnessMessage | null>;
  done(id: number): void;
  send(message: RuntimeMessage): void;
}

export declare class ProtocolError extends Error {}
/** The spec's ValueError: reported as Python's ValueError. */
export declare class ValueError extends Error {}

export declare function asData(value: unknown, represent?: ((value: object) => unknown) | null, path?: string): unknown;
export declare function isStream(value: unknown): value is AsyncIterable<unknown>;
export declare function errorPayload(error: unknown, options?: ErrorOptions): ErrorMessage["error"];
/** The case's input has no form in this runtime (its users cannot write it): the case is unsupported. */
export declare class Inexpressible extends Error {
  constructor(reason: string, options?: { cause?: unknown });
}
/** `file:line` of the adapter's own frame that threw `error` (by `adapterFiles`), or "" (the runtime's). */
/** This machine's places (the adapter's folder URL, the working directory) → "", for `places`. */
export declare function machinePlaces(adapter?: string | null): Record<string, string>;
export declare function adapterRaised(error: unknown, adapterFiles?: string[], places?: Record<string, string>): string;
/** An error that declares its category where the runtime refuses deliberately. */
export declare class CategorisedError extends Error {
  constructor(category: ErrorCategory, message: string, options?: { status?: number; cause?: unknown });
  readonly category: ErrorCategory;
  readonly status?: number;
}
/** The category of `error`: its own `category` property, else the first entry of `table` that applies. */
export declare function categoryOf(error: unknown, table?: CategoryEntry[]): Categorised;
export declare function shortened(stack: string | undefined, places?: Record<string, string>): string;
export declare function bytesOf(text: string, encoding?: string): Buffer;
export declare function headersOf(recorded: Recorded | RecordedHead, streamed: boolean): Headers;
export declare function responseOf(recorded: Recorded | RecordedHead, pull?: (() => Promise<Uint8Array | null>) | null): Response;

export declare const PROTOCOL_VERSION: number;
export declare const PROTOCOL_VERSIONS: readonly number[];
export declare const YIELDING_METHODS: readonly string[];
export declare const STREAMING_METHODS: readonly string[];
export declare const BRIDGED_METHODS: Readonly<Record<string, string>>;
export declare const ERROR_CATEGORIES: readonly ErrorCategory[];
