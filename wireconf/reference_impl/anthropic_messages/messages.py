"""§7.5 message conversion: internal messages → the ``system`` text and Anthropic's ``messages``.

Anthropic messages are always arrays of typed content blocks. Beyond the pseudocode (text and base64
images, the last system message as ``system``), this module holds the project's decisions for what
§7.5 leaves open or where the spec disagrees with itself: image URLs, parts Anthropic has no block for,
and the tool-call round trip carried in metadata.
"""

from __future__ import annotations

import json
from typing import Any


def _image_source(part: dict[str, Any]) -> dict[str, Any]:
    """A URL is sent as a URL source, a data URL as its base64 payload, anything else as base64 data
    described by the part's mediaType (project decisions 7.5/image-url-source, 7.5/image-data-url;
    without a mediaType the source has none: 7.5/image-media-type-absent-omitted)."""
    value = part.get("value")
    if isinstance(value, str) and value.startswith(("http://", "https://")):
        return {"type": "url", "url": value}
    if isinstance(value, str) and value.startswith("data:"):
        header, comma, data = value[len("data:") :].partition(",")
        params = header.split(";")
        if not comma or len(params) < 2 or params[-1] != "base64" or not params[0]:
            raise ValueError("an image data URL must be base64-encoded: data:<media type>;base64,<data>")
        return {"type": "base64", "media_type": params[0], "data": data}
    source: dict[str, Any] = {"type": "base64"}
    if part.get("mediaType") is not None:
        source["media_type"] = part["mediaType"]
    source["data"] = value
    return source


def part_to_block(part: dict[str, Any]) -> dict[str, Any]:
    kind = part.get("kind")
    if kind == "text":
        return {"type": "text", "text": part.get("value")}
    if kind == "image":
        return {"type": "image", "source": _image_source(part)}
    raise ValueError(
        f"a {kind!r} content part has no Anthropic Messages block (§7.5 converts text and image parts)"
    )


def extract_text(message: dict[str, Any]) -> str:
    """The text of a system message: its text parts concatenated; other parts are errors."""
    texts = []
    for part in message.get("content") or []:
        if part.get("kind") != "text":
            raise ValueError(
                f"a system message can only hold text for Anthropic, not a {part.get('kind')!r} part"
            )
        texts.append(part.get("value") or "")
    return "".join(texts)


def _tool_use_block(call: dict[str, Any]) -> dict[str, Any]:
    """A tool call from metadata (OpenAI ``{id, function: {name, arguments}}`` or a ToolCall's
    ``{id, name, arguments}``) as a ``tool_use`` block whose input is the parsed arguments."""
    function = call.get("function") or call
    arguments = function.get("arguments")
    try:
        tool_input = json.loads(arguments) if arguments else {}
    except (TypeError, ValueError):
        raise ValueError(
            f"tool call {call.get('id')!r}: arguments are not a JSON object: {arguments!r}"
        ) from None
    if not isinstance(tool_input, dict):
        raise ValueError(f"tool call {call.get('id')!r}: arguments are not a JSON object: {arguments!r}")
    return {"type": "tool_use", "id": call.get("id"), "name": function.get("name"), "input": tool_input}


def anthropic_message(message: dict[str, Any]) -> dict[str, Any]:
    """The pseudocode's ``anthropic_message``, plus metadata ``tool_calls`` as ``tool_use`` blocks.
    Other metadata keys are not merged: an Anthropic message holds only role and content."""
    blocks = [part_to_block(part) for part in message.get("content") or []]
    for call in (message.get("metadata") or {}).get("tool_calls") or []:
        blocks.append(_tool_use_block(call))
    return {"role": message["role"], "content": blocks}


def _tool_result_block(message: dict[str, Any]) -> dict[str, Any]:
    tool_use_id = (message.get("metadata") or {}).get("tool_call_id")
    if not tool_use_id:
        raise ValueError("a tool message needs metadata.tool_call_id: Anthropic has no tool role")
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": [part_to_block(part) for part in message.get("content") or []],
    }


def convert_messages(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """``(system text, wire messages)``: system messages lifted out wherever they stand, the last one's
    text being the system text, as the pseudocode assigns it in its loop (rule 7.5/last-system-message);
    tool results become ``tool_result`` blocks of a user message, consecutive ones sharing one message."""
    system_text = ""
    wire: list[dict[str, Any]] = []
    grouping_results = False
    for message in messages:
        role = message.get("role")
        if role == "system":
            system_text = extract_text(message)
            continue
        if role == "tool":
            block = _tool_result_block(message)
            if grouping_results:
                wire[-1]["content"].append(block)
            else:
                wire.append({"role": "user", "content": [block]})
            grouping_results = True
            continue
        wire.append(anthropic_message(message))
        grouping_results = False
    return system_text, wire
