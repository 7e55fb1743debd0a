// Exceptions as the `error` of an error message: the classes, most derived first, and the stack.
//
// Cases expect an error category (`expect_error: {category: invalid-input}`): what the error means in
// the spec's terms, whatever its class is called. A runtime that says so (`errors.categories`, which
// makes the hello say `categories: true`) reports each error's category: declared where it is thrown
// (`CategorisedError`, or any error with a `category` property) or mapped from its class by the
// runtime's own table; an error neither names is reported as `category: null`, none of the spec's
// errors (a DOMException from atob on a bad data URL is not a deliberate refusal), so its class names
// are never read as Python's (JavaScript's TypeError is not Python's).
//
// Without categories (protocols 1 and 2 as they were), the harness judges the names in `mro`; a name
// that is a Python built-in exception (ValueError) *is* that exception there: throw `ValueError` from
// this package where the spec's pseudocode raises one.

/** A value the algorithm cannot accept (the spec's ValueError); reported as Python's ValueError. */
export class ValueError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = "ValueError";
  }
}

import { pathToFileURL } from "node:url";

import { ERROR_CATEGORIES } from "./protocol.js";

/**
 * The case's input has no form in this runtime: its users cannot write it (an image in a system
 * prompt that is text only, a role it has no word for). Throw it, with the reason, instead of calling
 * the runtime with something else: the harness counts the case unsupported, not judged. Only where
 * the runtime's own interface has no way to say the input; a runtime that takes it and refuses it or
 * gets it wrong is judged.
 */
export class Inexpressible extends Error {
  constructor(reason, options) {
    super(reason, options);
    this.name = "Inexpressible";
  }
}

const PACKAGE = new URL("./", import.meta.url).href;

/** A stack frame's location (`file:///...`, `/abs/path`, `node:internal/...`) as a URL, or null. */
function frameUrl(location) {
  if (location.startsWith("file://") || location.startsWith("node:")) return location;
  if (location.startsWith("/") || /^[A-Za-z]:[\\/]/.test(location)) return pathToFileURL(location).href;
  return null; // <anonymous>, native, eval
}

/** Each frame of a V8 stack, innermost first: `{url, line}`. */
function frames(stack) {
  const out = [];
  for (const text of String(stack || "").split("\n")) {
    const match = /^\s*at (?:.*? \()?(.+?):(\d+):\d+\)?$/.exec(text);
    const url = match ? frameUrl(match[1]) : null;
    if (url) out.push({ url, line: Number(match[2]) });
  }
  return out;
}

/** The folder (a URL ending in `/`) of the code that called the function calling this one, outside this
 * package: where `serve` was called from, the adapter's code by default (`errors.adapterFiles`). */
export function callerFolder(stack = new Error().stack) {
  const frame = frames(stack).find((f) => f.url.startsWith("file:") && !f.url.startsWith(PACKAGE));
  return frame ? new URL("./", frame.url).href : null;
}

/**
 * Where the adapter's own code threw `error` (`file:line`, shortened by `places`), or "" when the error
 * is the runtime's: from the frame that threw outward, frames of Node.js itself and of this package are
 * passed over, and the first other one decides: a file under one of `adapterFiles` (URL or path
 * prefixes: the adapter's files; a `node_modules` folder inside them is the runtime's) makes it the
 * adapter's, any other the runtime's. An error that declares its category (`CategorisedError`) or an
 * `Inexpressible` is thrown on purpose, never a bug of the adapter (wireconf.core.raise_site, for Python).
 */
export function adapterRaised(error, adapterFiles = [], places = {}) {
  if (!(error instanceof Error) || error instanceof Inexpressible || typeof error.category === "string") return "";
  const own = adapterFiles.map((prefix) => frameUrl(String(prefix)) ?? String(prefix));
  for (const { url, line } of frames(error.stack)) {
    if (url.startsWith("node:") || url.startsWith(PACKAGE)) continue;
    const adapter = own.some((prefix) => url.startsWith(prefix)) && !url.includes("/node_modules/");
    return adapter ? shortened(`${url}:${line}`, places) : "";
  }
  return "";
}

/** An error that says what it means in the spec's terms (`category`, one of ERROR_CATEGORIES; `status`
 * for `provider-http-error`): throw it where the runtime refuses deliberately. */
export class CategorisedError extends Error {
  constructor(category, message, { status, ...options } = {}) {
    super(message, options);
    this.name = "CategorisedError";
    this.category = checked(category);
    if (status !== undefined) this.status = status;
  }
}

function checked(category) {
  if (!ERROR_CATEGORIES.includes(category)) {
    throw new TypeError(`unknown error category ${JSON.stringify(category)} (known: ${ERROR_CATEGORIES.join(", ")})`);
  }
  return category;
}

/**
 * The category of `error` (with its `status`), by `table`: `[[Class, category], ...]` where a category
 * is a name or a function of the error returning `{category, status}`, a name, or null (not this one);
 * an error's own `category` property comes first. `{category: null}` when none applies.
 */
export function categoryOf(error, table = []) {
  if (error !== null && typeof error === "object" && typeof error.category === "string") {
    return withStatus(checked(error.category), error.status);
  }
  for (const [base, category] of table) {
    if (!(error instanceof base)) continue;
    const found = typeof category === "function" ? category(error) : category;
    if (found === null || found === undefined) continue;
    if (typeof found === "string") return { category: checked(found) };
    if (found.category === null) return { category: null };
    return withStatus(checked(found.category), found.status);
  }
  return { category: null };
}

function withStatus(category, status) {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? { category, status } : { category };
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

/** Places of this machine a stack names, each made relative: the adapter's folder (`adapter`, a URL)
 * and the working directory, as file URLs and as paths. */
export function machinePlaces(adapter = null) {
  const cwd = pathToFileURL(process.cwd() + "/").href;
  const places = {};
  for (const url of [adapter, cwd]) {
    if (!url) continue;
    places[url] = "";
    places[new URL(url).pathname] = "";
  }
  return places;
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
 *   that throws the base class where the spec raises ValueError: `"ValueError"`);
 * - `categories`: the runtime's table of error categories (`categoryOf`): each error then carries its
 *   `category` (null: none) and the hello says `categories: true`;
 * - `adapterFiles`: URL or path prefixes of the adapter's own files (`serve` defaults them to the folder
 *   of the module that called it): an error its code threw says `origin: "adapter"` (`adapterRaised`),
 *   which the harness reports as the adapter's bug, not a verdict on the runtime.
 *
 * An `Inexpressible` says `inexpressible: true`: the case is unsupported.
 */
export function errorPayload(
  error,
  { places = {}, sdkErrors = [], plainErrorAs = null, categories = null, adapterFiles = [] } = {},
) {
  const category = categories ? categoryOf(error, categories) : {};
  if (!(error instanceof Error)) {
    return { type: "Error", mro: ["Error"], message: String(error), traceback: "", ...category };
  }
  if (error instanceof Inexpressible) {
    return { type: "Inexpressible", mro: classNames(error), message: String(error.message ?? ""), inexpressible: true };
  }
  const at = adapterRaised(error, adapterFiles, places);
  const sdk = sdkErrors.find(([base]) => error instanceof base);
  const mro = classNames(error);
  if (plainErrorAs && error.constructor === Error) mro.push(plainErrorAs);
  const named = sdk ? mro.map((name) => (name === "Error" ? name : `${sdk[1]}.${name}`)) : mro;
  return {
    type: mro[0] || error.name || "Error",
    mro: named,
    message: String(error.message ?? ""),
    traceback: shortened(error.stack, places),
    ...category,
    ...(at ? { origin: "adapter", at } : {}),
  };
}
