"""A reproduction from a case and a runtime's verdict on it: the runtime's template called with the case's
input as the wire kind hands it to the adapter, and one check per difference of the verdict (filtered to
one root cause by rule or place), the expected value read from the case's expectation at its path.

Only the cases whose verdict is about the request the runtime builds (the wire kind's) are reproduced:
the differences of a result, a stream or spans need the runtime's own way of reading a response, which
no template has yet; such a case gets a ``ReproError`` saying so, as does a runtime with no template.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wireconf.cassettes.downloads import named_media
from wireconf.core.differences import generic_path
from wireconf.core.errors import WireconfError
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.data_paths import resolve_agent_paths
from wireconf.corpus.rules import Catalogue
from wireconf.kinds.wire import KIND as WIRE
from wireconf.repro.script import Answer, Check, render
from wireconf.repro.templates import ALIASED_APIS, TEMPLATES

if TYPE_CHECKING:
    from wireconf.corpus.loader import Corpus
    from wireconf.reports.jsonl import CaseRecord

ANSWER = Answer(
    400,
    "application/json",
    '{"error": {"message": "wireconf reproduction: the request was kept", "type": "invalid_request_error", '
    '"code": 400, "status": "INVALID_ARGUMENT"}}',
)
"""Every request of a wire case answered as the adapter answers it (``http_answer.REFUSED``): an error
of the provider's shape, once the request is kept; no recorded response is needed to build one."""

UNRULED = "no rule requires this"
CHECKED_CHANGES = (
    "missing-key",
    "unexpected-key",
    "value",
    "type",
    "missing-item",
    "unexpected-item",
    "raised",
)
"""The differences a script can check at their path; a request the provider's contract rejects
(``provider-rejects``) is judged against a schema, not a value, and is left out."""


class ReproError(WireconfError):
    """No reproduction can be made for this case and runtime; the message says why."""

    default_hint = (
        "wireconf repro makes scripts for the request a runtime builds (wire cases) of "
        + ", ".join(sorted(TEMPLATES))
    )


@dataclass(frozen=True)
class Selection:
    """Which differences of the verdict to check: those breaking ``rule``, at places matching ``path``
    (``$.contents[*].parts[*].functionCall.id``: a root cause of the findings page); ``None``: all."""

    rule: str | None = None
    path: str | None = None

    def keeps(self, difference: dict[str, Any]) -> bool:
        rules = difference.get("rules") or [UNRULED]
        if self.rule is not None and self.rule not in rules:
            return False
        place = str(difference.get("path", ""))
        return self.path is None or generic_path(place) == self.path or fnmatch.fnmatchcase(place, self.path)


_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def value_at(document: Any, path: str) -> tuple[bool, Any]:
    """Whether ``document`` has a value at ``path`` (``$.a[0].b``), and that value."""
    value = document
    for name, index in _STEP.findall(path[1:]):
        if name:
            if not isinstance(value, dict) or name not in value:
                return False, None
            value = value[name]
        elif isinstance(value, list) and int(index) < len(value):
            value = value[int(index)]
        else:
            return False, None
    return True, value


def checks(
    case: LoadedCase[Any], differences: list[dict[str, Any]], catalogue: Catalogue, selection: Selection
) -> list[Check]:
    """One check per selected difference of the request, with the rule's sentence and the value the
    case expects at its path."""
    expected_request = to_plain(case.raw.get("expect"))
    out = []
    for difference in differences:
        if difference.get("subject") != "request" or difference.get("change") not in CHECKED_CHANGES:
            continue
        if not selection.keeps(difference):
            continue
        rules = difference.get("rules") or [UNRULED]
        rule = selection.rule or rules[0]
        known = catalogue.rules.get(rule)
        sentence = known.statement if known is not None else "no rule of the catalogue declares this place"
        path = str(difference.get("path", "$"))
        present, expected = value_at(expected_request, path)
        out.append(Check(rule, sentence, path, str(difference.get("change")), expected, present))
    return out


def reproduction(
    runtime: str,
    version: str,
    case: LoadedCase[Any],
    differences: list[dict[str, Any]],
    catalogue: Catalogue,
    selection: Selection,
    command: str,
    location: str,
) -> str:
    """The script reproducing ``runtime``'s verdict on ``case`` (its attributed ``differences``)."""
    template = TEMPLATES.get(runtime)
    if template is None:
        raise ReproError(f"no reproduction template for the runtime {runtime!r}", case=case.id)
    if case.kind != WIRE.name:
        raise ReproError(
            f"{case.id} is a {case.kind} case: only the request a runtime builds is reproduced yet",
            case=case.id,
        )
    found = checks(case, differences, catalogue, selection)
    if not found:
        raise ReproError(
            f"{runtime}'s verdict on {case.id} has no difference of the request to check"
            + (f" that matches {selection}" if selection != Selection() else ""),
            case=case.id,
        )
    agent = resolve_agent_paths(to_plain(case.raw["agent"]), case.path.parent)
    messages = to_plain(case.raw.get("messages", []))
    try:  # a template writes the runtime's own objects (LangChain's dumpd): it runs where that is installed
        call = template(case.api, agent, messages)
    except ModuleNotFoundError as error:
        raise ReproError(
            f"{runtime} is not installed here ({error.name}): run wireconf repro with the Python of its"
            f" environment (`wireconf findings --runtime {runtime} --make-envs` names it)",
            case=case.id,
        ) from error
    return render(
        title=f"{runtime} {version}: {found[0].rule} ({case.id})",
        command=command,
        case_id=case.id,
        location=location,
        call=call,
        answer=ANSWER,
        checks=found,
        aliases=case.api in ALIASED_APIS,
    )


def reproducible(corpus: Corpus) -> Callable[[CaseRecord], bool]:
    """Whether ``wireconf repro`` makes a script for a failing case of ``corpus`` that shows its finding:
    its runtime has a template, its kind builds a request, and its input names no media URL (a runtime
    downloads one before it sends: the harness answers it, the script, offline, cannot). The findings page
    links those root causes to the command."""
    offline = {
        case.id
        for case in corpus.cases()
        if case.kind == WIRE.name and not named_media(to_plain(case.raw.get("messages", [])))
    }
    return lambda record: record.impl in TEMPLATES and record.id in offline
