// Exceptions as the `error` of an error message: the classes, most derived first, and the stack.
//
// The harness judges `expect_error: {type: ...}` against the names in `mro`; a name that is a Python
// built-in exception (ValueError) *is* that exception there. JavaScript has no ValueError: throw
// `ValueError` from this package (or any class named so) where the spec's pseudocode raises one.

/** A value the algorithm cannot accept (the spec's ValueError); reported as Python's ValueError. */
export class ValueError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = "ValueError";
  }
}

/** The names of `error`'s classes, most derived first (the class `Error` included). */
function classNames(error) {
  const names = [];
  for (let proto = Object.getPrototypeOf(error); proto && proto !== Object.prototype; ) {
    const name = proto.constructor?.name;
    if (name && !names.includes(name)) names.push(name);
    proto = Object.getPrototypeOf(proto);
  }
  return names;
}

/** A stack with machine-specific locations replaced by short names (`places`: prefix → name), so
 * that a failure reads the same on every machine. */
export function shortened(stack, places = {}) {
  let text = stack || "";
  for (const [prefix, name] of Object.entries(places)) text = text.split(prefix).join(name);
  return text;
}

/**
 * `error` as an error message's payload.
 *
 * Options (each a decision of the runtime's adapter, to be documented with it):
 * - `places`: stack prefixes → short names (file URLs of the runtime's folder, say);
 * - `sdkErrors`: `[[BaseClass, "package"], ...]`: the classes of a provider SDK's errors named after
 *   their package, as the Python SDKs' are after their module (`openai.NotFoundError`);
 * - `plainErrorAs`: a name added to the classes of an error whose class is exactly `Error` (a runtime
 *   that throws the base class where the spec raises ValueError: `"ValueError"`).
 */
export function errorPayload(error, { places = {}, sdkErrors = [], plainErrorAs = null } = {}) {
  if (!(error instanceof Error)) {
    return { type: "Error", mro: ["Error"], message: String(error), traceback: "" };
  }
  const sdk = sdkErrors.find(([base]) => error instanceof base);
  const mro = classNames(error);
  if (plainErrorAs && error.constructor === Error) mro.push(plainErrorAs);
  const named = sdk ? mro.map((name) => (name === "Error" ? name : `${sdk[1]}.${name}`)) : mro;
  return {
    type: mro[0] || error.name || "Error",
    mro: named,
    message: String(error.message ?? ""),
    traceback: shortened(error.stack, places),
  };
}
