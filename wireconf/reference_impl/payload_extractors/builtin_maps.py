"""The built-in LLM schema maps: OpenAI chat completions (pure paths), Anthropic Messages and Gemini
generateContent (hooks for their polymorphic content)."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.payload_extractors.paths import resolve_path
from wireconf.reference_impl.payload_extractors.schema_map import (
    Messages,
    SchemaMap,
    SchemaMapLlmExtractor,
    ToolCalls,
    arguments_object,
)

OPENAI_CHAT_COMPLETIONS_V1_MAP = SchemaMap(
    name="openai/chat-completions",
    version="1",
    input_messages_paths=("messages", "content.messages"),
    output_text_paths=("content", "choices.0.message.content"),
    output_tool_calls_paths=("tool_calls", "choices.0.message.tool_calls"),
)


class OpenAiChatCompletionsLlmExtractor(SchemaMapLlmExtractor):
    """Direct (``messages``, ``content``, ``tool_calls``) and nested (``content.messages``,
    ``choices[0].message``) OpenAI shapes, per-call flat or ``function``-nested."""

    def __init__(self) -> None:
        super().__init__(OPENAI_CHAT_COMPLETIONS_V1_MAP)


# --- Anthropic Messages: content is a string or a list of typed blocks -----------------------------


def _anthropic_text(content: Any) -> str | None:
    """A string as it is; a block list → its text blocks joined; None when there is no text."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and b.get("text")]
    return "".join(texts) if texts else None


def _anthropic_input(data: Any) -> Messages:
    out: Messages = []
    system = _anthropic_text(data.get("system"))
    if system:
        out.append({"role": "system", "content": system})
    for message in data.get("messages") or []:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            continue
        text = _anthropic_text(message.get("content"))
        if text is not None:
            out.append({"role": message["role"], "content": text})
    return out


def _anthropic_output(data: Any) -> tuple[str, ToolCalls]:
    blocks = [b for b in data.get("content") or [] if isinstance(b, dict)]
    text = "".join(b.get("text") or "" for b in blocks if b.get("type") == "text")
    calls = [
        {
            "tool_call_id": b.get("id"),
            "function_name": b.get("name") or "",
            "arguments": arguments_object(b.get("input"), parse_json=True),
        }
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    return text, calls


ANTHROPIC_MESSAGES_V1_MAP = SchemaMap(
    name="anthropic/messages",
    version="1",
    normalize_input_messages=_anthropic_input,
    normalize_output_message=_anthropic_output,
)


# --- Gemini generateContent: turns of parts; "model" is the assistant; calls carry no id -----------

GEMINI_ROLE_ALIASES = {"model": "assistant"}


def _gemini_text(parts: Any) -> str | None:
    """The answer text of a parts list: text parts joined, thought parts left out; None when none."""
    pieces = [
        p["text"]
        for p in parts or []
        if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    ]
    return "".join(pieces) if pieces else None


def gemini_tool_call(part: dict[str, Any], index: int) -> dict[str, Any]:
    """A ``functionCall`` part → an ATIF tool call; without an id, one is made from name and index."""
    call = part.get("functionCall") or {}
    name = call.get("name") or ""
    return {
        "tool_call_id": call.get("id") or f"{name}_{index}",
        "function_name": name,
        "arguments": arguments_object(call.get("args"), parse_json=True),
    }


def _gemini_input(data: Any) -> Messages:
    out: Messages = []
    system = data.get("systemInstruction") or data.get("system_instruction")
    system_text = _gemini_text(system.get("parts")) if isinstance(system, dict) else None
    if system_text:
        out.append({"role": "system", "content": system_text})
    for turn in data.get("contents") or []:
        if not isinstance(turn, dict):
            continue
        text = _gemini_text(turn.get("parts"))
        if text is None:
            continue
        role = turn.get("role") or "user"
        out.append({"role": GEMINI_ROLE_ALIASES.get(role, role), "content": text})
    return out


def _gemini_output(data: Any) -> tuple[str, ToolCalls]:
    parts = resolve_path(data, "candidates.0.content.parts")
    if not isinstance(parts, list):
        return "", []
    calls = [p for p in parts if isinstance(p, dict) and isinstance(p.get("functionCall"), dict)]
    return _gemini_text(parts) or "", [gemini_tool_call(p, i) for i, p in enumerate(calls)]


GEMINI_GENERATE_CONTENT_V1_MAP = SchemaMap(
    name="gemini/generate-content",
    version="1",
    role_aliases=GEMINI_ROLE_ALIASES,
    normalize_input_messages=_gemini_input,
    normalize_output_message=_gemini_output,
    transform_tool_call=gemini_tool_call,
)
