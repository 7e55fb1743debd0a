"""A kept baseline reason is checked against the case's current failure (``wireconf.reports.reason_check``):
it must name a rule the failure breaks and quote only differences the failure shows; a stale one is
replaced by a reason made from the failure as it is now."""

from __future__ import annotations

from wireconf.reports.reason_check import (
    named_exceptions,
    named_rules,
    quoted_differences,
    stale_reason,
    true_reason,
)

TOOL_CHOICE = {
    "rules": ["7.1.7/no-other-keys"],
    "text": '$.tool_choice: unexpected key (got "auto")',
}
MAX_TOKENS = {"rules": ["7.5/max-tokens-default"], "text": "$.max_tokens: expected 4096, got 64000"}
UNRULED = {"rules": [], "basis": "unruled", "text": "$.extra: unexpected key (got 1)"}


def test_a_reason_naming_a_broken_rule_and_quoting_a_current_difference_holds():
    reason = "7.1.7/no-other-keys: `ai` `prepareToolsAndToolChoice` adds it: $.tool_choice: unexpected key"
    assert stale_reason(reason, [TOOL_CHOICE]) is None


def test_a_reason_naming_only_rules_the_failure_does_not_break_is_stale_and_says_which_it_breaks():
    reason = "7.6/max-output-tokens: `@ai-sdk/anthropic` `getArgs` builds it: $.max_tokens: expected 4096"
    why = stale_reason(reason, [MAX_TOKENS])
    assert why is not None
    assert "names 7.6/max-output-tokens" in why and "breaks 7.5/max-tokens-default" in why


def test_a_reason_naming_no_rule_is_stale_when_the_failure_breaks_one():
    why = stale_reason("`ai` `generateText` returns it: $.max_tokens: expected 4096, got 64000", [MAX_TOKENS])
    assert why is not None and "names no rule" in why


def test_a_failure_no_rule_declares_needs_no_rule_named():
    assert stale_reason("the runtime's own text: $.extra: unexpected key", [UNRULED]) is None


def test_a_quoted_difference_the_failure_no_longer_shows_is_stale():
    reason = '8.8/synthesised-id: `@ai-sdk/google` gives it: $[0].id: expected "call_0", got "GZs06yEvWDYfV"'
    current = {"rules": ["8.8/synthesised-id"], "text": '$[0].id: expected "call_0", got "ai-sdk-gen-0"'}
    why = stale_reason(reason, [current])
    assert why is not None and '$[0].id: expected "call_0", got "GZs06' in why


def test_a_quote_cut_short_or_followed_by_other_rules_still_matches():
    reason = "7.5/max-tokens-default: getArgs: $.max_tokens: expected 4096, got 64000 (also 7.6/temperature)"
    assert quoted_differences(reason) == ["$.max_tokens: expected 4096, got 64000"]
    assert stale_reason(reason, [MAX_TOKENS]) is None


def test_a_named_exception_the_differences_do_not_show_is_stale():
    reason = "8.4/error-raises: `ai` `generateText` throws: but it raised ai.InvalidPromptError: empty"
    current = {"rules": ["8.4/error-raises"], "text": "expected ..., but it raised ai.APICallError"}
    assert named_exceptions(reason) == ["ai.InvalidPromptError"]
    assert named_exceptions("the spec raises ValueError; but it raised uncategorised ai.APICallError") == [
        "ai.APICallError"
    ]
    why = stale_reason(reason, [current])
    assert why is not None and "ai.InvalidPromptError" in why


def test_package_paths_are_not_rule_ids():
    assert named_rules("`@ai-sdk/anthropic` `prepareTools` (8.5/stream-citations-not-yielded)") == [
        "8.5/stream-citations-not-yielded"
    ]
    assert named_rules("blocks/blocks-in-order: `packages/openai/src/wire.ts:toolsToWire` drops it.") == [
        "blocks/blocks-in-order"
    ]


def test_a_case_without_differences_gives_nothing_to_check():
    assert stale_reason("anything at all", []) is None


def test_true_reason_keeps_a_true_reason_and_replaces_a_stale_one_with_the_current_failure():
    kept = "7.5/max-tokens-default: `getArgs` sends its own: $.max_tokens: expected 4096, got 64000"
    assert true_reason(kept, ["7.5/max-tokens-default"], None, None, [MAX_TOKENS]) == kept
    stale = "7.6/max-output-tokens: `getArgs` sends its own: $.max_tokens: expected 4096"
    assert true_reason(stale, ["7.5/max-tokens-default"], None, None, [MAX_TOKENS]) == (
        "7.5/max-tokens-default: $.max_tokens: expected 4096, got 64000"
    )
    assert true_reason(None, ["7.1.7/no-other-keys"], None, None, [TOOL_CHOICE]).startswith(
        "7.1.7/no-other-keys: $.tool_choice"
    )


def test_a_reason_quoting_a_waived_difference_is_stale():
    """The waived differences are never among the report's attributed ones, so a reason that quotes
    one (issue 21: never a waived one) quotes a difference the failure does not show."""
    reason = "7.5/max-tokens-default: `getArgs`: $.stream: unexpected key (got false)"
    why = stale_reason(reason, [MAX_TOKENS])
    assert why is not None and "$.stream: unexpected key" in why
