// The corpus's canonical inputs (the spec's camelCase vocabulary) → Prompty's TypeScript types.
//
// The agent goes through the runtime's own loader, `Agent.load`, which reads exactly this vocabulary.
// @prompty/core has no public message loader, so a message is built with its own constructor,
// `new Message({role, parts, metadata})`, with the two renamings the Python adapter makes too
// (wireconf/adapters/prompty_adapter/inputs.py): a message's `content` is Prompty's `parts`, and a
// non-text part's `value` is Prompty's `source`. Nothing else is added, dropped or defaulted.

const TEXT_KINDS = new Set(["text"]);

function partData(part) {
  const data = { ...part };
  if (!TEXT_KINDS.has(data.kind) && "value" in data) {
    data.source = data.value;
    delete data.value;
  }
  return data;
}

/** A canonical message as Prompty's Message. */
export function loadMessage(core, message) {
  const init = { parts: (message.content || []).map(partData) };
  if (message.role !== undefined) init.role = message.role;
  if (message.metadata !== undefined) init.metadata = message.metadata;
  return new core.Message(init);
}

/**
 * A canonical agent through Prompty's loader; `connection` names a registered client (the one field
 * the adapter sets: the harness, not the case, decides where requests go).
 */
export function loadAgent(core, agent, connection) {
  const data = { ...agent };
  if (connection !== undefined) {
    data.model = { ...data.model, connection: { kind: "reference", name: connection } };
  }
  return core.Agent.load(data);
}

const API_PROVIDER = (api) => api.split(".")[0];

/**
 * The provider key Prompty dispatches on: the agent's, else the api's. Prompty's pipeline would fall
 * back to "openai" for a model that names none; the api under test names it instead, as the Python
 * adapter does for Python Prompty's wildcard.
 */
export function providerOf(api, agent) {
  const provider = agent.model?.provider;
  return provider === undefined || provider === null || provider === "" || provider === "*"
    ? API_PROVIDER(api)
    : String(provider);
}
