// The corpus's canonical inputs (the spec's agent, messages and tools) → what an AI SDK user writes:
// `generateText` / `streamText` settings, `messages` in the AI SDK's ModelMessage format, tools made
// with `tool()` and `jsonSchema()`. The AI SDK has no agent file, so this file is the mapping a
// maintainer writes once; everything after it (the request, the parsing) is the AI SDK's own.
import { jsonSchema, Output, tool } from "ai";
import { Inexpressible } from "@wireconf/exec";

const JSON_TYPES = { string: "string", integer: "integer", float: "number", boolean: "boolean", array: "array", object: "object" };

/** One spec Property as JSON Schema (the spec's §7.1.4 table; the user would write this schema). */
function propertySchema(prop) {
  const type = JSON_TYPES[prop.kind];
  // a kind outside the table has no JSON Schema type: an AI SDK user cannot write it at all
  if (type === undefined) throw new Inexpressible(`property ${prop.name} has kind ${prop.kind}, not one of ${Object.keys(JSON_TYPES).join(", ")}: no JSON Schema type for it`);
  const schema = { type };
  if (prop.description) schema.description = prop.description;
  if (prop.enumValues) schema.enum = prop.enumValues;
  if (prop.kind === "array" && prop.items) schema.items = propertySchema(prop.items);
  if (prop.kind === "object" && prop.properties) Object.assign(schema, objectSchema(prop.properties));
  return schema;
}

function objectSchema(properties = []) {
  const schema = { type: "object", properties: {} };
  const required = [];
  for (const prop of properties) {
    schema.properties[prop.name] = propertySchema(prop);
    if (prop.required) required.push(prop.name);
  }
  if (required.length) schema.required = required;
  return schema;
}

/** The agent's function tools as an AI SDK ToolSet (`tool({description, inputSchema})`, no execute:
 * the calls are the result). Other tool kinds have no AI SDK equivalent here. */
export function toolsOf(agent) {
  const tools = {};
  for (const spec of agent.tools ?? []) {
    if (spec.kind !== "function") throw new Inexpressible(`the AI SDK adapter maps function tools only, not ${spec.kind}`);
    tools[spec.name] = tool({
      ...(spec.description ? { description: spec.description } : {}),
      inputSchema: jsonSchema(objectSchema(spec.parameters)),
      ...(spec.strict !== undefined && spec.strict !== null ? { strict: spec.strict } : {}),
    });
  }
  return Object.keys(tools).length ? tools : undefined;
}

const SETTINGS = ["temperature", "maxOutputTokens", "topP", "topK", "frequencyPenalty", "presencePenalty", "stopSequences", "seed"];

/**
 * The call settings of `generateText` / `streamText` for the agent: the common settings by their AI
 * SDK names, the rest as `providerOptions[provider]` (the AI SDK's place for provider-specific
 * settings), tools, and structured output (`output: Output.object`) when the agent declares outputs.
 * `stream` in additionalProperties is not a setting: it is the choice of `streamText` (e2e).
 */
export function settingsOf(agent, provider) {
  const options = agent.model?.options ?? {};
  const settings = {};
  for (const name of SETTINGS) if (options[name] !== undefined && options[name] !== null) settings[name] = options[name];
  const extra = { ...(options.additionalProperties ?? {}) };
  delete extra.stream;
  if (options.reasoningEffort) extra.reasoningEffort = options.reasoningEffort;
  if (options.allowMultipleToolCalls !== undefined && options.allowMultipleToolCalls !== null) {
    extra.parallelToolCalls = options.allowMultipleToolCalls;
  }
  if (Object.keys(extra).length) settings.providerOptions = { [provider]: extra };
  const tools = toolsOf(agent);
  if (tools) settings.tools = tools;
  if (agent.outputs?.length) settings.output = Output.object({ schema: jsonSchema(objectSchema(agent.outputs)) });
  return settings;
}

/** Whether the agent asks for a stream (e2e): `additionalProperties: {stream: true}`. */
export function wantsStream(agent) {
  return agent.model?.options?.additionalProperties?.stream === true;
}

function textOf(message) {
  return (message.content ?? []).filter((p) => p.kind === "text").map((p) => p.value).join("");
}

function partOf(part) {
  switch (part.kind) {
    case "text":
      return { type: "text", text: part.value };
    case "image":
      return {
        type: "image",
        image: part.value,
        ...(part.mediaType ? { mediaType: part.mediaType } : {}),
        ...(part.detail ? { providerOptions: { openai: { imageDetail: part.detail } } } : {}),
      };
    case "audio":
    case "file":
      return { type: "file", data: part.value, mediaType: part.mediaType ?? (part.kind === "audio" ? "audio/wav" : "application/octet-stream") };
    default:
      // ModelMessage parts (@ai-sdk/provider-utils): text, image, file, reasoning, tool calls and results
      throw new Inexpressible(`the AI SDK has no message part for kind ${part.kind}`);
  }
}

/**
 * Canonical messages as ModelMessages: system and developer messages as `system` (text only: an image
 * there, or a role outside ModelMessage's, is `Inexpressible`), tool calls an
 * assistant message carries in its metadata as `tool-call` parts, a tool message as a `tool-result`
 * (its tool's name from the call it answers). Other metadata has no place in a ModelMessage.
 */
export function messagesOf(messages) {
  const toolNames = new Map();
  return messages.map((message) => {
    const metadata = message.metadata ?? {};
    switch (message.role) {
      case "system":
      case "developer":
        // SystemModelMessage's content is a string (@ai-sdk/provider-utils): text only
        if ((message.content ?? []).some((p) => p.kind !== "text")) {
          throw new Inexpressible(`an AI SDK system message is text only; this ${message.role} message has ${message.content.filter((p) => p.kind !== "text").map((p) => p.kind).join(", ")} parts`);
        }
        return { role: "system", content: textOf(message) };
      case "user":
        return { role: "user", content: (message.content ?? []).map(partOf) };
      case "assistant": {
        const content = (message.content ?? []).map(partOf);
        for (const call of metadata.tool_calls ?? []) {
          toolNames.set(call.id, call.function?.name);
          let input = call.function?.arguments ?? "{}";
          try {
            input = JSON.parse(input);
          } catch {
            // the arguments as the model sent them
          }
          content.push({ type: "tool-call", toolCallId: call.id, toolName: call.function?.name, input });
        }
        return { role: "assistant", content };
      }
      case "tool": {
        const id = metadata.tool_call_id;
        return {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: id, toolName: toolNames.get(id) ?? metadata.name ?? "tool", output: { type: "text", value: textOf(message) } }],
        };
      }
      default:
        // ModelMessage's roles are system, user, assistant and tool
        throw new Inexpressible(`the AI SDK has no message role ${message.role}`);
    }
  });
}
