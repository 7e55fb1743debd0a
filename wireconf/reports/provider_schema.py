"""The requests the spec's own pseudocode builds that the provider's pinned contract rejects: findings
about the spec, listed on the findings page (``wireconf findings``), by ``wireconf lint`` and by
``benchmarks/provider_schema.py``.

The reference passes every case, so the request a wire case expects (``expect``) and the one an e2e case
expects through the SDK (``expect_request``) are the spec's requests. Each is checked against the
contract of its api's provider (``wireconf.providers.contract``); a runtime is never charged with a
problem its expectation shares (``schema_check.rejections``), so these are listed here instead, with the
rules the case cites (the rules that make the spec build that request). Under ``--profile interop`` a
runtime that refuses such a request, or sends one the contract accepts there, is not failed for it
(``wireconf.judging.decision``).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wireconf.core.untyped import JSON
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.loader import Corpus
from wireconf.corpus.model import CaseBase
from wireconf.kinds.registry import KINDS
from wireconf.providers.contract import Problem, problems, versions


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


def expected_problems(api: str, kind: str, raw: dict[str, Any]) -> list[Problem]:
    """What the pinned contract rejects in the requests a case written as ``raw`` expects."""
    found = KINDS.get(kind)
    bodies = [] if found is None else found.expected_requests(raw)
    return [p for body in bodies if isinstance(body, dict) for p in problems(api, body)]


@functools.cache
def _checked_by() -> str:
    """The version of ``expected_problems``: a digest of the pinned contracts and of the code that
    chooses and reads them (the providers' records, the kinds that say which requests a case expects,
    this module), so that a value kept for a case file is never read back after any of them changed."""
    import wireconf.kinds
    import wireconf.providers

    digest = hashlib.sha256()
    folders = [Path(wireconf.providers.__file__).parent, Path(wireconf.kinds.__file__).parent]
    files = [Path(__file__)] + [
        p for folder in folders for p in sorted(folder.rglob("*")) if p.suffix in (".py", ".json")
    ]
    for path in files:
        digest.update(str(path.name).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def expected_problems_of(corpus: Corpus, case: LoadedCase[CaseBase]) -> list[Problem]:
    """``expected_problems`` of ``case``, worked out once per change of its file or of the contracts
    (kept in the corpus's parse cache: about a millisecond per request, every wire and e2e case of
    every run otherwise)."""
    kept = corpus.derived(
        case,
        "expected-problems",
        _checked_by(),
        lambda: [(p.path, p.message, p.schema) for p in expected_problems(case.api, case.kind, case.raw)],
    )
    return [Problem(*fields) for fields in kept]


def expected_rejections(corpus: Corpus) -> list[Rejected]:
    """The expected requests their provider's contract rejects."""
    out = []
    for case, body in expected_requests(corpus):
        found = problems(case.api, body)
        if found:
            out.append(Rejected(case.id, case.api, tuple(case.model.rules), tuple(found), _has_matcher(body)))
    return out


def render_rejections(rejected: list[Rejected]) -> list[str]:
    """The findings page's section: each request the spec builds that the provider's contract rejects."""
    contracts = "; ".join(f"{name}: {version}" for name, version in versions().items())
    out = [
        "",
        "## Requests the spec builds that the provider's contract rejects",
        "",
        "Every request a wire or e2e case expects (the reference's, built as the spec's pseudocode says) "
        "is checked against the pinned contract of its api's provider "
        f"({contracts}). These are findings about the spec, not about any runtime: a runtime is charged "
        "only with problems its expectation does not share, and under `--profile interop` a runtime that "
        "refuses such a request, or sends one the contract accepts there, is not failed for it. "
        f"{len(rejected)} request(s):",
        "",
        "| case | api | rules the case cites | what the contract rejects |",
        "|---|---|---|---|",
    ]
    for item in rejected:
        what = "<br>".join(p.text.replace("|", "\\|") for p in item.problems)
        rules = ", ".join(f"`{r}`" for r in item.rules)
        out.append(f"| `{item.case}` | {item.api} | {rules} | {what} |")
    return out
