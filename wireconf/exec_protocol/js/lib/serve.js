// serve({hello, handlers}): the whole runtime side of the protocol, around the adapter's mapping.
import { Call } from "./call.js";
import { Channel, ProtocolError } from "./channel.js";
import { asData, isStream } from "./data.js";
import { callerFolder, errorPayload, machinePlaces } from "./errors.js";
import { HELLO_FLAGS, STREAMING_METHODS, YIELDING_METHODS } from "./protocol.js";

/** The newest protocol this client speaks (a hello's default): 4, whose windows `Call` acknowledges. */
const SPOKEN = 4;

const isIterable = (value) =>
  value !== null && typeof value === "object" && (Symbol.asyncIterator in value || Symbol.iterator in value);

/**
 * Serve a runtime: say `hello`, then answer each `call` with the handler named after its method, until
 * `stop` (or the end of stdin). A handler gets a `Call` and returns the method's result (any JSON data,
 * see `asData`); for a method that yields (`process_stream`) it returns the items, an (async) iterable
 * or generator, and each is sent as it comes; for a method whose result may be a stream (`execute`) an
 * async iterable result is sent item by item (`streamed`). A thrown error is the case's error
 * (`errorPayload`, with `options.errors`).
 *
 * `load` (optional): an async function that loads the runtime (its SDKs) and returns more handlers;
 * the hello says `warming` and `warm` follows once it is done, so loading is never charged to a case.
 *
 * Resolves when the harness says `stop` (then exits the process with status 0 unless `exit: false`).
 */
export async function serve({
  hello,
  handlers = {},
  load = null,
  errors = {},
  represent = null,
  channel = null,
  exit = true,
}) {
  const io = channel ?? new Channel();
  const adapter = callerFolder();
  const errorOptions = {
    ...errors,
    adapterFiles: errors.adapterFiles ?? (adapter ? [adapter] : []),
    // the adapter's own places first, then its folder and the working directory: no machine path left
    places: { ...errors.places, ...machinePlaces(adapter) },
  };
  const { name, version, capabilities, protocol, ...flags } = hello;
  for (const flag of Object.keys(flags)) {
    if (!HELLO_FLAGS.includes(flag)) throw new TypeError(`a hello has no \`${flag}\` (it may say ${HELLO_FLAGS.join(", ")})`);
  }
  const said = {
    type: "hello",
    protocol: protocol ?? SPOKEN,
    name,
    version,
    capabilities: [...capabilities],
    // every flag the records define, as given (false and absent: the default, left out)
    ...Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined && value !== false)),
    ...(load ? { warming: true } : {}),
    ...(errors.categories ? { categories: true } : {}),
  };
  io.send(said);
  let methods = { ...handlers };
  if (load) {
    methods = { ...methods, ...((await load()) ?? {}) };
    io.send({ type: "warm" });
  }
  for (;;) {
    const message = await io.nextCall();
    if (message === null || message.type === "stop") break;
    const call = new Call(io, message, { inputs: said.inputs ?? "json", pipeline: said.pipeline === true, protocol: said.protocol });
    try {
      io.send(await answer(io, call, methods[message.method], represent));
    } catch (error) {
      io.send({ type: "error", id: call.id, error: errorPayload(error, errorOptions) });
    } finally {
      io.done(call.id);
    }
  }
  if (exit) process.exit(0);
}

async function answer(io, call, handler, represent) {
  if (typeof handler !== "function") {
    throw new ProtocolError(`this runtime has no handler for ${call.method} (its hello's capabilities name it?)`);
  }
  const value = await handler(call);
  const yields = YIELDING_METHODS.includes(call.method);
  if (yields) {
    if (value !== null && value !== undefined && !isIterable(value)) {
      throw new TypeError(`the ${call.method} handler returned a ${value?.constructor?.name ?? typeof value}, not the items to yield (an iterable)`);
    }
    for await (const item of value ?? []) io.send({ type: "yield", id: call.id, item: asData(item, represent), ...read(call) });
    return { type: "result", id: call.id, value: null };
  }
  if (STREAMING_METHODS.includes(call.method) && isStream(value)) {
    for await (const item of value) io.send({ type: "yield", id: call.id, item: asData(item, represent), ...read(call) });
    return { type: "result", id: call.id, value: null, streamed: true };
  }
  return { type: "result", id: call.id, value: asData(value, represent) };
}

/** Protocol 3's `read` for a `yield`: how many events of the streamed argument were read by then. */
function read(call) {
  return call.pipeline && call.stream !== null ? { read: call.read } : {};
}
