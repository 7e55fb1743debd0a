// What crosses back to the harness: results as JSON data, exceptions as error payloads.
//
// The adapter never adjusts Prompty's output. Representation only: a Prompty model object (a
// FailureChunk a stream yields) is shown as its own `save()` form, a StructuredResult as the plain
// data it carries (its raw JSON hides behind a symbol), undefined as null.

const isPlain = (value) => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** `value` as JSON data; throws TypeError naming what cannot be sent. */
export function asData(value, path = "$") {
  if (value === undefined || value === null) return null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    throw new TypeError(`the result is not JSON: ${path} is ${value}`);
  }
  if (Array.isArray(value)) return value.map((item, i) => asData(item, `${path}[${i}]`));
  if (typeof value === "object") {
    if (!isPlain(value) && typeof value.save === "function") return asData(value.save(), path);
    if (isPlain(value)) {
      const out = {};
      for (const [key, item] of Object.entries(value)) {
        if (item !== undefined) out[key] = asData(item, `${path}.${key}`);
      }
      return out;
    }
  }
  const kind = value?.constructor?.name || typeof value;
  throw new TypeError(`the result is not JSON: ${path} is a ${kind}`);
}

/**
 * An exception as the `error` of an error message: its classes, most derived first, and its stack.
 *
 * Two translations. JavaScript has no ValueError, and where the specification's pseudocode raises
 * ValueError (a value the algorithm cannot accept) Prompty's TypeScript runtime throws the built-in
 * `Error` itself: an exception whose class is exactly `Error` is reported as a ValueError (mro `Error`,
 * `ValueError`), so `expect_error: {type: ValueError, match: ...}` judges its message. And the classes
 * of a provider SDK's errors (`sdkErrors`: [base class, package]) are named after their package, as
 * the Python SDKs' are after their module (`openai.NotFoundError`). Every other class keeps its name.
 */
export function errorPayload(error, places = {}, sdkErrors = []) {
  if (!(error instanceof Error)) {
    return { type: "Error", mro: ["Error"], message: String(error), traceback: "" };
  }
  const sdk = sdkErrors.find(([base]) => error instanceof base);
  const mro = [];
  for (let proto = Object.getPrototypeOf(error); proto && proto !== Object.prototype; ) {
    const name = proto.constructor?.name;
    if (name && !mro.includes(name)) mro.push(name);
    proto = Object.getPrototypeOf(proto);
  }
  if (error.constructor === Error) mro.push("ValueError");
  const named = sdk ? mro.map((name) => (name === "Error" ? name : `${sdk[1]}.${name}`)) : mro;
  return { type: mro[0] || error.name, mro: named, message: error.message, traceback: shortened(error.stack, places) };
}

/** A stack with machine-specific locations replaced by short names (`places`: prefix → name), so
 * that a failure reads the same on every machine. */
function shortened(stack, places) {
  let text = stack || "";
  for (const [prefix, name] of Object.entries(places)) text = text.split(prefix).join(name);
  return text;
}
