"""§7.4.1 ``input`` items: messages → role items, function-call metadata → call + output items.

Content parts use the Responses API's own block types (project decision 7.4.1/content-part-types):
§7.4 requires "this wire format instead of the Chat Completions format", and the API rejects the Chat
Completions blocks (``text``, ``image_url``, ``file``) in ``input``. §7.1.2's ``part_to_wire`` still
does the mapping and its checks; its blocks are then renamed to their Responses equivalents.
"""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.openai_chat.messages import part_to_wire

FUNCTION_CALL_KEY = "responses_function_call"


def part_to_input(part: dict[str, Any], role: str) -> dict[str, Any]:
    block = part_to_wire(part)
    kind = block["type"]
    if kind == "text":
        text_type = "output_text" if role == "assistant" else "input_text"  # the model's own earlier text
        return {"type": text_type, "text": block["text"]}
    if kind == "image_url":
        image: dict[str, Any] = {"type": "input_image", "image_url": block["image_url"]["url"]}
        if "detail" in block["image_url"]:
            image["detail"] = block["image_url"]["detail"]
        return image
    if kind == "file":
        return {"type": "input_file", "file_url": block["file"]["url"]}
    return block  # input_audio has the same shape in both APIs


def message_item(message: dict[str, Any]) -> dict[str, Any]:
    """Role and content only: unlike §7.1.1, message metadata is not merged into the item."""
    item: dict[str, Any] = {"role": message["role"]}
    content = message.get("content") or []
    if len(content) == 1 and content[0].get("kind") == "text":
        item["content"] = content[0].get("value")
    else:
        item["content"] = [part_to_input(part, message["role"]) for part in content]
    return item


def function_call_items(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded ``function_call`` item as it is, then the ``function_call_output`` answering it."""
    metadata = message["metadata"]
    content = message.get("content") or []
    output = {
        "type": "function_call_output",
        "call_id": metadata.get("tool_call_id"),  # null without one, as §7.4.1 reads it
        "output": content[0].get("value") if content else "",
    }
    return [metadata[FUNCTION_CALL_KEY], output]


INSTRUCTIONS_SEPARATOR = "\n\n"


def system_text(message: dict[str, Any]) -> str:
    """A system message's text: its text parts concatenated; another part is an error (decision
    7.4/instructions-text)."""
    texts = []
    for part in message.get("content") or []:
        if part.get("kind") != "text":
            raise ValueError(
                f"a system message becomes `instructions`, text only, not a {part.get('kind')!r} part"
            )
        texts.append(part.get("value") or "")
    return "".join(texts)


def instructions(messages: list[dict[str, Any]]) -> str | None:
    """The text of every system message, in order, joined by a blank line (rule 7.4/system-as-instructions,
    decided by Prompty's vector responses_simple; decision 7.4/instructions-text); ``None`` without."""
    texts = [system_text(m) for m in messages if m.get("role") == "system"]
    joined = INSTRUCTIONS_SEPARATOR.join(text for text in texts if text)
    return joined or None


def input_items(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every message but the system ones, which are ``instructions``; developer messages stay items, as
    §7.4.1 builds them (rule 7.4/developer-in-input)."""
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") == "system":
            continue
        if message.get("metadata") and FUNCTION_CALL_KEY in message["metadata"]:
            items.extend(function_call_items(message))
            continue
        items.append(message_item(message))
    return items
