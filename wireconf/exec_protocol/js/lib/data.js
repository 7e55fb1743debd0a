// What crosses back to the harness: a result (or a streamed item) as JSON data.

const isPlain = (value) => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * `value` as JSON data: undefined is null (and a key whose value is undefined is left out), a number
 * must be finite, an object with `toJSON` is what it returns. Any other object goes through
 * `represent(value)` (the adapter's decision, e.g. a model object's own `save()` form) when given;
 * otherwise a TypeError names where it is and what it is, never a silent `{}`.
 */
export function asData(value, represent = null, path = "$") {
  if (value === undefined || value === null) return null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    throw new TypeError(`the result is not JSON: ${path} is ${value}`);
  }
  if (Array.isArray(value)) return value.map((item, i) => asData(item, represent, `${path}[${i}]`));
  if (typeof value === "object") {
    if (isPlain(value)) {
      const out = {};
      for (const [key, item] of Object.entries(value)) {
        if (item !== undefined) out[key] = asData(item, represent, `${path}.${key}`);
      }
      return out;
    }
    if (represent) {
      const shown = represent(value);
      if (shown !== value) return asData(shown, represent, path);
    }
    if (typeof value.toJSON === "function") return asData(value.toJSON(), represent, path);
  }
  const kind = value?.constructor?.name || typeof value;
  throw new TypeError(`the result is not JSON: ${path} is a ${kind}`);
}

/** An async iterable (a stream result), as opposed to a value: arrays and strings are values. */
export function isStream(value) {
  return value !== null && typeof value === "object" && (Symbol.asyncIterator in value);
}
