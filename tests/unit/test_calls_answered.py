"""§7.4.1 keeps an earlier Responses function call on the tool message that answers it
(``metadata.responses_function_call``); a chat runtime's user writes that turn as an assistant message
with the call as its tool call. The adapters of LangChain, LiteLLM and LlamaIndex hand their runtimes
that turn (``openai_inputs.calls_answered``), so that a missing function_call item in the request is
the runtime's doing, never the adapter's."""

from __future__ import annotations

import copy

from wireconf.adapters.openai_inputs import calls_answered, message

CALL = {"type": "function_call", "call_id": "call_1", "name": "db_lookup", "arguments": '{"key": "start"}'}
USER = {"role": "user", "content": [{"kind": "text", "value": "go"}]}


def _tool(call_id: str, item: dict | None = CALL) -> dict:
    metadata = {"tool_call_id": call_id, **({"responses_function_call": item} if item else {})}
    return {"role": "tool", "content": [{"kind": "text", "value": "7"}], "metadata": metadata}


def test_a_tool_message_with_its_function_call_gets_the_assistant_turn_before_it():
    given = [USER, _tool("call_1")]
    kept = copy.deepcopy(given)
    written = calls_answered(given)
    assert given == kept  # the case's messages are not changed
    assert [m["role"] for m in written] == ["user", "assistant", "tool"]
    assert written[1]["metadata"]["tool_calls"] == [
        {"id": "call_1", "name": "db_lookup", "arguments": '{"key": "start"}'}
    ]
    assert written[1]["metadata"]["responses_function_call"] == CALL  # the item as it came, beside the call
    # as an OpenAI-format runtime's user writes it
    assert message(written[1])["tool_calls"] == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "db_lookup", "arguments": '{"key": "start"}'},
        }
    ]


def test_each_round_gets_its_own_turn_in_order():
    second = {**CALL, "call_id": "call_2", "arguments": '{"key": "7"}'}
    written = calls_answered([USER, _tool("call_1"), _tool("call_2", second)])
    assert [m["role"] for m in written] == ["user", "assistant", "tool", "assistant", "tool"]
    assert [m["metadata"]["tool_calls"][0]["id"] for m in written if m["role"] == "assistant"] == [
        "call_1",
        "call_2",
    ]


def test_a_call_an_assistant_message_already_carries_is_not_written_twice():
    assistant = {
        "role": "assistant",
        "content": [],
        "metadata": {"tool_calls": [{"id": "call_1", "name": "db_lookup"}]},
    }
    given = [USER, assistant, _tool("call_1")]
    assert calls_answered(given) == given


def test_messages_without_function_calls_are_as_given():
    given = [USER, _tool("call_1", None)]
    assert calls_answered(given) == given
