// Every message the harness sends, checked against the protocol's schema before the runtime sees it.
//
// The schema is the one the harness's records generate (lib/schema.js, `wireconf exec-schema --write`),
// so a client older or newer than its harness says so at the first message that differs, naming the
// field, instead of a handler failing on what it did not expect. This applies the keywords that schema
// uses (JSON Schema 2020-12: type, const, enum, required, properties, additionalProperties, items,
// minimum, maximum, minLength, pattern, uniqueItems, oneOf, anyOf, allOf, if/then, not, $ref), no more.
import { SCHEMA } from "./schema.js";

const TYPES = {
  object: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  array: Array.isArray,
  string: (v) => typeof v === "string",
  integer: Number.isInteger,
  number: (v) => typeof v === "number",
  boolean: (v) => typeof v === "boolean",
  null: (v) => v === null,
};

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const show = (value) => {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

function resolve(ref) {
  return ref.replace(/^#\//, "").split("/").reduce((node, key) => node[key], SCHEMA);
}

/** The problems of `value` against `node`, each `[path, text]` (an empty list: it fits). */
function problems(value, node, path) {
  if (node === true || node === undefined) return [];
  if (node.$ref) return problems(value, resolve(node.$ref), path);
  const found = [];
  const add = (text, at = path) => found.push([at, text]);
  if (node.type !== undefined) {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (!types.some((t) => TYPES[t](value))) return [[path, `is not of type ${types.join(" or ")}`]];
  }
  if ("const" in node && !same(value, node.const)) add(`should be ${show(node.const)}`);
  if (node.enum && !node.enum.some((option) => same(option, value))) add(`should be one of ${show(node.enum)}`);
  if (typeof value === "string") {
    if (node.minLength !== undefined && value.length < node.minLength) add(`is shorter than ${node.minLength}`);
    if (node.pattern && !new RegExp(node.pattern, "u").test(value)) add(`does not match ${node.pattern}`);
  }
  if (typeof value === "number") {
    if (node.minimum !== undefined && value < node.minimum) add(`is less than ${node.minimum}`);
    if (node.maximum !== undefined && value > node.maximum) add(`is more than ${node.maximum}`);
  }
  if (Array.isArray(value)) {
    if (node.items) value.forEach((item, i) => found.push(...problems(item, node.items, [...path, i])));
    if (node.uniqueItems && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) add("names an item twice");
  }
  if (TYPES.object(value)) {
    for (const name of node.required ?? []) if (!(name in value)) add("is required", [...path, name]);
    const properties = node.properties ?? {};
    for (const [name, item] of Object.entries(value)) {
      if (name in properties) found.push(...problems(item, properties[name], [...path, name]));
      else if (node.additionalProperties === false) add("is not a field of this message", [...path, name]);
      else if (typeof node.additionalProperties === "object") {
        found.push(...problems(item, node.additionalProperties, [...path, name]));
      }
    }
  }
  for (const part of node.allOf ?? []) found.push(...problems(value, part, path));
  if (node.anyOf && !node.anyOf.some((part) => !problems(value, part, path).length)) add("fits none of its forms");
  if (node.oneOf && node.oneOf.filter((part) => !problems(value, part, path).length).length !== 1) {
    add("fits not exactly one of its forms");
  }
  if (node.not && !problems(value, node.not, path).length) add("is not allowed here");
  if (node.if && !problems(value, node.if, path).length && node.then) found.push(...problems(value, node.then, path));
  return found;
}

/**
 * What is wrong with `message`, a message the harness sent, or null when it fits its schema: the
 * message's type, each field wrong and the value found there.
 */
export function harnessMessageProblem(message) {
  const type = message?.type;
  const node = typeof type === "string" ? SCHEMA.$defs[type] : undefined;
  if (!node || !SCHEMA.harness.includes(type)) return `\`${show(type)}\` is not a message the harness sends`;
  const found = problems(message, node, []);
  if (!found.length) return null;
  const said = found.map(([at, text]) => {
    if (!at.length) return `the message ${text}`;
    let value = message;
    for (const key of at) value = value?.[key];
    return `\`${at.join(".")}\`${value === undefined ? "" : ` = ${show(value)}`} ${text}`;
  });
  return `the harness's \`${type}\` message: ${said.join("; ")}`;
}
