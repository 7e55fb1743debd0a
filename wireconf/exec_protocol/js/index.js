// @wireconf/exec: serve a JavaScript/TypeScript runtime to wireconf's corpus (--impl exec:COMMAND).
export { serve } from "./lib/serve.js";
export { Call } from "./lib/call.js";
export { Channel, ProtocolError } from "./lib/channel.js";
export { asData, isStream } from "./lib/data.js";
export { CategorisedError, Inexpressible, ValueError, adapterRaised, categoryOf, errorPayload, machinePlaces, shortened } from "./lib/errors.js";
export { bytesOf, headersOf, responseOf } from "./lib/recorded.js";
export { PROTOCOL_VERSION, PROTOCOL_VERSIONS, YIELDING_METHODS, STREAMING_METHODS, BRIDGED_METHODS, ERROR_CATEGORIES } from "./lib/protocol.js";
