"""The corpus's canonical inputs (the spec's camelCase vocabulary) → prompty's own types.

prompty reads its frontmatter with generated loaders that take exactly this vocabulary
(``Agent.load``, ``Message.load``), so the mapping is prompty's own loader, with only the two
renamings where prompty's types differ from the spec's words: a message's ``content`` is prompty's
``parts``, and a non-text part's ``value`` is prompty's ``source``. Nothing else is added, dropped or
defaulted here: what prompty does with the input is prompty's behaviour.
"""

from __future__ import annotations

from typing import Any

TEXT_KINDS = ("text",)


def part_data(part: dict[str, Any]) -> dict[str, Any]:
    """A canonical ContentPart as prompty's loader reads it."""
    data = dict(part)
    if data.get("kind") not in TEXT_KINDS and "value" in data:
        data["source"] = data.pop("value")
    return data


def message_data(message: dict[str, Any]) -> dict[str, Any]:
    """A canonical Message as prompty's loader reads it."""
    data = {key: value for key, value in message.items() if key != "content"}
    data["parts"] = [part_data(part) for part in message.get("content", [])]
    return data


def agent_data(agent: dict[str, Any], connection: str | None = None) -> dict[str, Any]:
    """A canonical agent as prompty's loader reads it; ``connection`` names a registered client.

    The connection is transport only (which SDK client prompty's executor calls); it is the one field
    the adapter sets, because the harness, not the case, decides where requests go.
    """
    data = dict(agent)
    if connection is not None:
        data["model"] = {**data["model"], "connection": {"kind": "reference", "name": connection}}
    return data


def load_agent(agent: dict[str, Any], connection: str | None = None) -> Any:
    from prompty import Agent

    return Agent.load(agent_data(agent, connection))


def load_messages(messages: list[dict[str, Any]]) -> list[Any]:
    from prompty import Message

    return [Message.load(message_data(m)) for m in messages]
