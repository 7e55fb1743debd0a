"""§7.9.1 message conversion: internal messages → ``contents`` and ``systemInstruction``.

Gemini knows two roles, ``user`` and ``model``. System text is lifted out into ``systemInstruction``
(as §7.5 does for Anthropic); assistant tool calls become ``functionCall`` parts of the model turn and
tool results ``functionResponse`` parts of a user turn, the results of one round merged into one turn.
"""

from __future__ import annotations

import json
from typing import Any

from wireconf.reference_impl.gemini_generate_content.parts import part_to_wire

ROLES: dict[str, str] = {"user": "user", "assistant": "model"}
SYSTEM_ROLES = ("system", "developer")


def _system_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    """System instructions are text only (7.9.1/system-text-only)."""
    parts = []
    for part in message.get("content") or []:
        if part.get("kind") != "text":
            kind = part.get("kind")
            raise ValueError(f"a {message['role']} message may hold only text parts, got {kind!r}")
        parts.append({"text": part.get("value")})
    return parts


def _call_fields(call: dict[str, Any]) -> tuple[Any, Any, Any]:
    """id, name and arguments of a stored tool call: OpenAI's shape (as §7.1.1 passes it through) or
    the §8.7 ToolCall fields."""
    function = call["function"] if isinstance(call.get("function"), dict) else call
    return call.get("id"), function.get("name"), function.get("arguments")


def _args(name: Any, arguments: Any) -> dict[str, Any]:
    """The arguments JSON string back as the object Gemini's ``args`` is (7.9.1/tool-call-args-object)."""
    if isinstance(arguments, dict):
        return arguments
    try:
        args = json.loads(arguments) if arguments else {}
    except (TypeError, ValueError):
        args = None
    if not isinstance(args, dict):
        raise ValueError(f"tool call {name!r}: arguments must be a JSON object string, got {arguments!r}")
    return args


def _function_call_parts(message: dict[str, Any], names: dict[Any, Any]) -> list[dict[str, Any]]:
    parts = []
    for call in (message.get("metadata") or {}).get("tool_calls") or []:
        call_id, name, arguments = _call_fields(call)
        function_call: dict[str, Any] = {"name": name, "args": _args(name, arguments)}
        if call_id:
            function_call["id"] = call_id
            names[call_id] = name
        part: dict[str, Any] = {"functionCall": function_call}
        if call.get("thoughtSignature"):  # 7.9.1/thought-signature-returned
            part["thoughtSignature"] = call["thoughtSignature"]
        parts.append(part)
    return parts


def _response_object(text: str) -> dict[str, Any]:
    """A JSON object result is the response itself; anything else goes under ``output``
    (7.9.1/tool-result-response-object)."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value
    return {"output": text}


def _function_response_part(message: dict[str, Any], names: dict[Any, Any]) -> dict[str, Any]:
    metadata = message.get("metadata") or {}
    call_id = metadata.get("tool_call_id")
    name = metadata.get("name") or names.get(call_id)  # 7.9.1/tool-result-name
    if not name:
        raise ValueError(
            f"tool result {call_id!r}: no function name (metadata.name, or an earlier tool call with this id)"
        )
    texts = []
    for part in message.get("content") or []:
        if part.get("kind") != "text":
            raise ValueError(f"a tool result holds text parts only, got {part.get('kind')!r}")
        texts.append(part.get("value") or "")
    function_response: dict[str, Any] = {"name": name, "response": _response_object("".join(texts))}
    if call_id:
        function_response["id"] = call_id
    return {"functionResponse": function_response}


def convert_messages(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(contents, system_parts)`` for the messages, in order."""
    contents: list[dict[str, Any]] = []
    system: list[dict[str, Any]] = []
    names: dict[Any, Any] = {}
    previous_was_tool = False
    for message in messages:
        role = message.get("role")
        if role in SYSTEM_ROLES:
            system.extend(_system_parts(message))
            continue
        if role == "tool":
            part = _function_response_part(message, names)
            if previous_was_tool:  # one user turn per round of results (7.9.1/tool-results-one-turn)
                contents[-1]["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
            previous_was_tool = True
            continue
        previous_was_tool = False
        if role not in ROLES:
            raise ValueError(f"unknown message role {role!r} (system, developer, user, assistant, tool)")
        parts = [part_to_wire(p) for p in message.get("content") or []]
        if role == "assistant":
            parts += _function_call_parts(message, names)
        if not parts:
            raise ValueError(f"a {role} message without content or tool calls cannot be sent to Gemini")
        contents.append({"role": ROLES[role], "parts": parts})
    return contents, system
