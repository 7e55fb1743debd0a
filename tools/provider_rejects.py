"""Survey the corpus for expected requests whose conversation the provider refuses (HTTP 400), whatever
their JSON types: a tool call without its result, a result without its call, an empty conversation, an
empty text block. The SDKs' request types accept these (``wireconf.judging.schema_check`` cannot see
them); the providers reject them on the conversation's order and pairing, as their API references and
their own 400 messages say:

- OpenAI Chat Completions: "An assistant message with 'tool_calls' must be followed by tool messages
  responding to each 'tool_call_id'", and a message with role 'tool' "must be a response to a preceding
  message with 'tool_calls'"; `messages` has at least one item (``minItems: 1``, openapi.yaml
  ``CreateChatCompletionRequest``).
- OpenAI Responses: a ``function_call`` item without its ``function_call_output`` ("No tool output found
  for function call ...") and an output without its call ("No tool call found for function call output
  with call_id ...").
- Anthropic Messages ("Handle tool calls", platform.claude.com/docs/en/agents-and-tools/tool-use/
  handle-tool-calls): the tool results follow in the next message, a user message; the API's 400:
  "`tool_use` ids were found without `tool_result` blocks immediately after ... Each `tool_use` block
  must have a corresponding `tool_result` block in the next message", and "Each `tool_result` block must
  have a corresponding `tool_use` block in the previous message"; "text content blocks must be
  non-empty" and "all messages must have non-empty content except for the optional final assistant
  message"; ``messages`` is required and not empty.
- Gemini generateContent (ai.google.dev/gemini-api/docs/function-calling: the function response is
  appended after the model's function call turn): the API's 400s: "Please ensure that function call
  turn comes immediately after a user turn or after a function response turn", "... that function
  response turn comes immediately after a function call turn" and "... that the number of function
  response parts is equal to the number of function call parts of the function call turn" (and a
  history ending on the model's turn, which no functionResponse answers); ``contents`` is required.

    python tools/provider_rejects.py [CASES_DIR]

prints each wire and e2e case whose expected request breaks one of these, and exits 1 when there is one
(``tests/unit/test_provider_rejects.py`` holds the corpus to none).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wireconf.kinds.registry import open_corpus
from wireconf.reports.provider_schema import expected_requests

Check = Callable[[dict[str, Any]], Iterator[str]]


def _ids(value: Any) -> str:
    """An id as written in an expectation: a string, or a matcher (``{$id: name}``) by its name."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, name),) = value.items()
        return f"{key}:{name}"
    return str(value)


def openai_chat(body: dict[str, Any]) -> Iterator[str]:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return
    if not messages:
        yield "`messages` is empty (minItems: 1)"
    for index, message in enumerate(messages):
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if calls:
            answered = set()
            for later in messages[index + 1 :]:
                if later.get("role") != "tool":
                    break
                answered.add(_ids(later.get("tool_call_id")))
            missing = [_ids(c.get("id")) for c in calls if _ids(c.get("id")) not in answered]
            if missing:
                yield f"messages[{index}]: tool_calls {missing} not followed by tool messages answering them"
        if message.get("role") == "tool":
            before = index - 1
            while before >= 0 and messages[before].get("role") == "tool":
                before -= 1
            preceding = messages[before] if before >= 0 else {}
            ids = {_ids(c.get("id")) for c in preceding.get("tool_calls") or []}
            if preceding.get("role") != "assistant" or _ids(message.get("tool_call_id")) not in ids:
                yield f"messages[{index}]: a tool message that answers no preceding assistant tool call"


def openai_responses(body: dict[str, Any]) -> Iterator[str]:
    items = body.get("input")
    if not isinstance(items, list):
        return
    calls = {_ids(i.get("call_id")): n for n, i in enumerate(items) if i.get("type") == "function_call"}
    outputs = {
        _ids(i.get("call_id")): n for n, i in enumerate(items) if i.get("type") == "function_call_output"
    }
    for call_id, index in calls.items():
        if call_id not in outputs:
            yield f"input[{index}]: function_call {call_id} without its function_call_output"
    for call_id, index in outputs.items():
        if calls.get(call_id, index) >= index:
            yield f"input[{index}]: function_call_output {call_id} without a function_call before it"


def _blocks(message: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    return (
        [b for b in content if isinstance(b, dict) and b.get("type") == kind]
        if isinstance(content, list)
        else []
    )


def anthropic_messages(body: dict[str, Any]) -> Iterator[str]:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return
    if not messages:
        yield "`messages` is empty"
    for index, message in enumerate(messages):
        uses = [_ids(b.get("id")) for b in _blocks(message, "tool_use")]
        after = messages[index + 1] if index + 1 < len(messages) else {}
        results = {_ids(b.get("tool_use_id")) for b in _blocks(after, "tool_result")}
        missing = [u for u in uses if u not in results or after.get("role") != "user"]
        if missing:
            yield f"messages[{index}]: tool_use {missing} without tool_result blocks in the next message"
        before = messages[index - 1] if index else {}
        previous = {_ids(b.get("id")) for b in _blocks(before, "tool_use")}
        for block in _blocks(message, "tool_result"):
            if _ids(block.get("tool_use_id")) not in previous:
                yield f"messages[{index}]: tool_result {_ids(block.get('tool_use_id'))} without its tool_use"
        for n, block in enumerate(_blocks(message, "text")):
            if block.get("text") == "":
                yield f"messages[{index}]: text block {n} is empty"
        final_assistant = index == len(messages) - 1 and message.get("role") == "assistant"
        if message.get("content") in ("", []) and not final_assistant:
            yield f"messages[{index}]: empty content (only the final assistant message may be empty)"


def _parts(turn: dict[str, Any], key: str) -> list[dict[str, Any]]:
    return [p for p in turn.get("parts") or [] if isinstance(p, dict) and key in p]


def gemini(body: dict[str, Any]) -> Iterator[str]:
    contents = body.get("contents")
    if not isinstance(contents, list):
        return
    if not contents:
        yield "`contents` is empty"
    for index, turn in enumerate(contents):
        calls = _parts(turn, "functionCall")
        after = contents[index + 1] if index + 1 < len(contents) else None
        if calls and after is not None and len(_parts(after, "functionResponse")) != len(calls):
            yield f"contents[{index}]: {len(calls)} functionCall part(s), not as many functionResponses"
        if calls and after is None:
            yield f"contents[{index}]: a functionCall turn that no functionResponse turn follows"
        before = contents[index - 1] if index else None
        after_user = before is not None and before.get("role") == "user"
        if calls and not (after_user or _parts(before or {}, "functionResponse")):
            yield f"contents[{index}]: a functionCall turn after neither a user nor a functionResponse turn"
        if _parts(turn, "functionResponse") and not _parts(before or {}, "functionCall"):
            yield f"contents[{index}]: a functionResponse turn that follows no functionCall turn"


CHECKS: dict[str, Check] = {
    "openai.chat": openai_chat,
    "openai.responses": openai_responses,
    "anthropic.messages": anthropic_messages,
    "gemini.generate_content": gemini,
}
"""Each api whose provider refuses a conversation on its order and pairing, with its check."""


def refused(cases: Path) -> list[tuple[str, str, str]]:
    """``(case id, where, what the provider refuses)`` for every expected request the checks flag."""
    found = []
    for case, body in expected_requests(open_corpus(cases)):
        check = CHECKS.get(case.api)
        for problem in check(body) if check else ():
            found.append((case.id, f"{case.path.name}:{case.line}", problem))
    return found


def main(argv: list[str]) -> int:
    cases = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "cases"
    found = refused(cases)
    for case_id, where, problem in found:
        print(f"{case_id} ({where}): {problem}")
    print(f"{len(found)} problem(s) in {len({c for c, _, _ in found})} case(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
