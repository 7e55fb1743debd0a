"""§7.1.8 asks for the OpenTelemetry GenAI semantic conventions' attributes: a runtime that follows the
conventions beyond the spec's table is not failed on them; a gen_ai.* name the conventions do not have
still is (7.1.8/no-other-gen-ai-attributes, re-read against §7.1.8 for issue 32)."""

from __future__ import annotations

from types import SimpleNamespace

from wireconf.core.differences import Difference
from wireconf.kinds.trace import REQUEST_OPTIONS, TABLE, _span_lines, conventions_beyond_the_table
from wireconf.sdk.span_capture import CapturedSpan

EXPECTED = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.response.id": "chatcmpl-1",
}


def _judged(extra: dict) -> list[Difference]:
    case = SimpleNamespace(expect=[SimpleNamespace(attributes=EXPECTED)], tolerance=None)
    span = CapturedSpan("chat gpt-4o-mini", {**EXPECTED, **extra})
    return [line for line in _span_lines(case, [span]) if isinstance(line, Difference)]


def test_the_conventions_attributes_beyond_the_table_are_free():
    extra = {"gen_ai.response.model": "gpt-4o-mini-2024-07-18", "gen_ai.output.type": "text"}
    assert _judged(extra) == []
    # an additionalProperty under the conventions' own name (n: 2)
    assert _judged({"gen_ai.request.choice.count": 2}) == []


def test_a_name_the_conventions_do_not_have_still_fails():
    (difference,) = _judged({"gen_ai.response.created": 1700000000})
    assert (difference.path, difference.change) == ("$[0]['gen_ai.response.created']", "unexpected-key")
    # a wire name under gen_ai.request.*, and a request option the request did not set, too
    assert [d.change for d in _judged({"gen_ai.request.max_completion_tokens": 256})] == ["unexpected-key"]
    assert [d.change for d in _judged({"gen_ai.request.temperature": 0.7})] == ["unexpected-key"]


def test_the_free_set_is_the_conventions_registry_without_the_table_and_its_options():
    free = conventions_beyond_the_table()
    assert "gen_ai.response.model" in free and "gen_ai.conversation.id" in free
    assert not free & TABLE and not free & REQUEST_OPTIONS
    assert "gen_ai.response.created" not in free
    # names the conventions replaced are no longer theirs: gen_ai.system (by gen_ai.provider.name)
    assert "gen_ai.system" not in free and "gen_ai.usage.prompt_tokens" not in free
