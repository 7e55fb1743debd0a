"""The requests the spec's own pseudocode builds that the provider's SDK type rejects: findings about the
spec, listed on the findings page (``wireconf findings``) and by ``benchmarks/provider_schema.py``.

The reference passes every case, so the request a wire case expects (``expect``) and the one an e2e case
expects through the SDK (``expect_request``) are the spec's requests. Each is checked against its api's
SDK request type (``wireconf.judging.schema_check``); a runtime is never charged with a problem its
expectation shares (``schema_check.rejections``), so these are listed here instead, with the rules the
case cites (the rules that make the spec build that request).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from wireconf.corpus.case import LoadedCase
from wireconf.corpus.loader import Corpus
from wireconf.corpus.model import CaseBase
from wireconf.judging.schema_check import Problem, problems
from wireconf.kinds.registry import KINDS
from wireconf.providers.registry import APIS
from wireconf.untyped import JSON


@dataclass(frozen=True)
class Rejected:
    case: str
    api: str
    rules: tuple[str, ...]
    problems: tuple[Problem, ...]
    matcher: bool
    """The expectation holds a matcher (``{$any: …}``), checked as written: it is no request value."""


def _has_matcher(value: JSON) -> bool:
    if isinstance(value, dict):
        return any(str(k).startswith("$") for k in value) or any(_has_matcher(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_matcher(v) for v in value)
    return False


def expected_requests(corpus: Corpus) -> Iterator[tuple[LoadedCase[CaseBase], dict[str, Any]]]:
    """Every request body a case expects (its kind says which: ``Kind.expected_requests``), with its case."""
    for case in corpus.cases():
        kind = KINDS.get(case.kind)
        bodies = [] if kind is None else kind.expected_requests(case.raw)
        yield from ((case, body) for body in bodies if isinstance(body, dict))


def expected_rejections(corpus: Corpus) -> list[Rejected]:
    """The expected requests their api's SDK type rejects."""
    out = []
    for case, body in expected_requests(corpus):
        record = APIS.get(case.api)
        if record is None or record.request_type is None:
            continue
        found = problems(record.request_type(body), body)
        if found:
            out.append(Rejected(case.id, case.api, tuple(case.model.rules), tuple(found), _has_matcher(body)))
    return out


def render_rejections(rejected: list[Rejected]) -> list[str]:
    """The findings page's section: each request the spec builds that the provider's SDK type rejects."""
    out = [
        "",
        "## Requests the spec builds that the provider's SDK type rejects",
        "",
        "Every request a wire or e2e case expects (the reference's, built as the spec's pseudocode says) "
        "is checked against the official SDK's request type for its api. These are findings about the "
        "spec, not about any runtime: a runtime is charged only with problems its expectation does not "
        f"share. {len(rejected)} request(s):",
        "",
        "| case | api | rules the case cites | what the SDK type rejects |",
        "|---|---|---|---|",
    ]
    for item in rejected:
        what = "<br>".join(p.text.replace("|", "\\|") for p in item.problems)
        rules = ", ".join(f"`{r}`" for r in item.rules)
        out.append(f"| `{item.case}` | {item.api} | {rules} | {what} |")
    return out
