// A client that stands where Prompty's TypeScript executor expects an SDK client and records the call.
//
// The executor's real execute() runs (option mapping, tool projection), then calls
// `client.<resource>.<method>(params)`; that params object is the request body it asks the SDK to send
// (the SDK serialises it with JSON.stringify). The call is stopped there: no response is needed to judge
// a request. Mirrors the Python adapter's capture (wireconf/adapters/prompty_adapter/capture.py).

export class RequestCaptured extends Error {
  constructor(resource, params) {
    super(`${resource} called`);
    this.name = "RequestCaptured";
    this.resource = resource;
    this.params = params;
  }
}

class CapturingClient {}

function resource(path) {
  return new Proxy(function () {}, {
    get(_target, prop) {
      if (typeof prop === "symbol" || prop === "then") return undefined; // not a thenable
      if (prop === "constructor") return CapturingClient; // the executors name traces after it
      return resource(path ? `${path}.${prop}` : prop);
    },
    apply(_target, _this, args) {
      if (args.length !== 1) {
        throw new TypeError(`${path}() takes one params object; Prompty passed ${args.length} arguments`);
      }
      throw new RequestCaptured(path, args[0]);
    },
  });
}

/** Any property path is a resource; calling one throws RequestCaptured with its params. */
export function capturingClient() {
  return resource("");
}

/**
 * The JSON body the SDK sends for `params`: the SDKs serialise it with JSON.stringify, so this is
 * exactly what goes on the wire (a key whose value is undefined left out, undefined in an array sent
 * as null, an object as its enumerable fields). Nothing else is converted.
 */
export function asRequestBody(params) {
  const text = JSON.stringify(params);
  if (text === undefined) throw new TypeError(`Prompty passed ${typeof params} as the request params`);
  return JSON.parse(text);
}
