"""Whether a baseline's kept reason is still true of its case's current failure.

A reason is written once (by a person, or by ``--update-baseline`` from the first failure seen) and kept
while the case keeps failing; the public report (``wireconf findings``) shows it. When the failure
changes under it (a new rule declares the difference, an input is fixed, the runtime changes), the kept
reason can name a rule the failure no longer breaks or quote a difference the run no longer shows: a
false claim on a public page. ``stale_reason`` says why a reason no longer holds, or ``None``.

A reason holds when
- it names at least one rule the failure's differences break (``CaseRecord.broken``), if they break any
  (a failure no rule declares, or one the provider's own schema rejects, has none to name);
- every difference it quotes (``$.path: expected ...``, ``$.path: unexpected key ...``) is among the
  current differences (the quote as far as it goes: a reason may cut a long value short);
- every exception it says the runtime raised (``raised ai.InvalidPromptError``) is in the current
  differences' text.

The check is textual on purpose: reasons are prose for people; what they claim of the failure is the
rule ids and the difference lines they copy, and those are what is compared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from wireconf.core.differences import generic_path
from wireconf.reports.baseline import default_reason

RULE_ID = re.compile(r"(?<![\w@./-])([a-z0-9]+(?:\.[0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*)(?![\w/-]|\.\w)")
"""A catalogue rule id (``7.1.4/schema-strict``, ``8.5/stream-text-deltas``, ``convert/...``): a word
or section number, a slash, a slug. Package names and file paths (``@ai-sdk/anthropic``,
``packages/openai/src/wire.ts``) are not ids."""

QUOTED = re.compile(
    r"(\$[^\s:]*: (?:expected|unexpected key|unexpected item|missing key|missing item|got)\b.*)"
)
"""A difference line as ``wireconf.judging`` words it, copied into a reason."""

QUOTE_ENDS = (" (also ", " (", "; ", " — ", "\n")
QUOTE_LENGTH = 40
"""A quote is compared as far as it goes, at most this many characters: enough to name the path, the
change and the start of the values, short enough that a reason cutting a long value stays true."""

RAISED = re.compile(r"\braised (?:uncategorised )?((?:[A-Za-z_]\w*\.)*[A-Z]\w*)")
"""What a reason says the runtime raised (``but it raised ai.InvalidPromptError``), as the differences word
it; an exception named as the rule's expectation or in the reason's explanation is not checked."""


def named_rules(reason: str) -> list[str]:
    """The rule ids ``reason`` mentions, in order."""
    return list(dict.fromkeys(RULE_ID.findall(reason)))


def quoted_differences(reason: str) -> list[str]:
    """The difference lines ``reason`` quotes, each cut where the quote ends."""
    quotes = []
    for match in QUOTED.finditer(reason):
        text = match.group(1)
        for end in QUOTE_ENDS:
            text = text.split(end, 1)[0]
        text = text[:QUOTE_LENGTH].rstrip(" .…'\"`,)")
        if text:
            quotes.append(text)
    return quotes


def named_exceptions(reason: str) -> list[str]:
    """The exception classes ``reason`` says the runtime raised (``ai.InvalidPromptError``)."""
    return list(dict.fromkeys(RAISED.findall(reason)))


def stale_reason(reason: str, differences: Iterable[Mapping[str, Any]]) -> str | None:
    """Why ``reason`` is not true of a failure with these attributed ``differences`` (the report's
    ``differences``: each with ``rules`` and ``text``), or ``None`` when it holds. A case with no
    differences (an error, a stale waiver) gives nothing to check against: ``None``."""
    found = list(differences)
    if not found:
        return None
    broken = list(dict.fromkeys(rule for d in found for rule in d.get("rules") or []))
    texts = [str(d.get("text") or "") for d in found]
    problems = []
    named = named_rules(reason)
    if broken and not set(named) & set(broken):
        said = f"names {', '.join(named)}" if named else "names no rule"
        problems.append(f"{said}, but the failure breaks {', '.join(broken)}")
    missing = [quote for quote in quoted_differences(reason) if not any(quote in t for t in texts)]
    if missing:
        problems.append(f"quotes {'; '.join(missing)}, which the failure no longer shows")
    joined = "\n".join(texts)
    gone = [name for name in named_exceptions(reason) if name not in joined]
    if gone:
        problems.append(f"says it raised {', '.join(gone)}, which the failure's differences do not")
    return "; ".join(problems) or None


def true_reason(
    reason: str | None,
    rules: list[str],
    diff: str | None,
    message: str | None,
    differences: list[dict[str, Any]] | None,
) -> str:
    """The reason to keep for a failure: ``reason`` while it holds (``stale_reason``), else a first
    reason from the failure as it is now (``default_reason``): the public report never shows a claim the
    run contradicts. A person's wording is kept only while it is true."""
    if reason and stale_reason(reason, differences or []) is None:
        return reason
    return default_reason(rules, diff, message, differences)


def stale_explanation(explanation: str, key: str, differences: Iterable[Mapping[str, Any]]) -> str | None:
    """Why a baseline's explanation (``Baseline.explanations``) is not true of a failure with these
    attributed ``differences``, or ``None`` when it holds. ``key`` is the rule it explains, or one root
    cause of it, ``<rule> <place>`` (the rule at a generic path, as the findings page files it): the failure
    still breaks that rule (there), and every difference the explanation quotes is among those."""
    rule, _, place = key.partition(" ")
    mine = [
        str(d.get("text") or "")
        for d in differences
        if rule in (d.get("rules") or []) and (not place or generic_path(str(d.get("path") or "")) == place)
    ]
    if not mine:
        return f"the failure no longer breaks {rule}" + (f" at {place}" if place else "")
    missing = [quote for quote in quoted_differences(explanation) if not any(quote in t for t in mine)]
    if not missing:
        return None
    where = f"{rule} at {place}" if place else rule
    return f"quotes {'; '.join(missing)}, which the failure no longer shows under {where}"


def true_explanations(explanations: Mapping[str, str], differences: list[dict[str, Any]]) -> dict[str, str]:
    """The explanations of a failing case to keep: those still true of its failure (``stale_explanation``).
    A failure without differences (a stale waiver) gives nothing to check against: all are kept."""
    if not differences:
        return dict(explanations)
    return {
        rule: text
        for rule, text in explanations.items()
        if stale_explanation(text, rule, differences) is None
    }
