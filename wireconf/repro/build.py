"""A reproduction from a case and a runtime's verdict on it: the runtime's template called with the case's
input as the kind hands it to the adapter, and one check per difference of the verdict (filtered to one
root cause by rule or place), the expected value read from the case's expectation at its path.

A ``wire`` case's script checks the request the runtime sends (``templates``, ``script``; the media
URLs its input names answered from the script), as does an ``e2e`` case's that expects one request
(its ``expect_request``, the runtime called as its ``execute`` calls it: ``E2E_TEMPLATES``, the AI
SDK's ``JS_E2E``; a raise before any request, one check that it sends); a ``process`` or ``stream``
case's serves the case's recorded response and checks what the runtime makes of it
(``result_templates``, ``result_script``; prompty's processor handed a plain mapping, LlamaIndex's
``achat`` where only the async processor differs), as does a ``blocks`` or ``convert`` case's for the
runtimes that consume LiteLLM's result (``seed_templates``); an ``extract`` case's hands the payloads
to the runtime's extractors (``extract_templates``). An ``e2e`` case's raise after sending is served
the case's recorded response (``e2e_result_reproduction``), a ``trace`` case's spans of ``execute``
captured with the OpenTelemetry SDK's exporter (``trace_reproduction``). A request the provider's
contract rejects is checked at its place where the reason names one constraint, and where no member of
a union accepts the value, at the one constraint of the member that matches best (``contract_check``).
Other differences (an e2e case's result values or its several requests, other spans) get a
``ReproError`` saying so, as does a runtime with no template for the kind.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wireconf.adapter_contract import NoResult, RuntimeOutcome
from wireconf.adapters.luthien_source import SRC_VARIABLE
from wireconf.cassettes.downloads import named_media
from wireconf.cassettes.store import CassetteError, CassetteStore
from wireconf.core.differences import generic_path
from wireconf.core.errors import WireconfError
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.data_paths import resolve_agent_paths
from wireconf.corpus.rules import Catalogue
from wireconf.judging.recorded_values import has_references
from wireconf.kinds.base import HarnessContext, recorded_response
from wireconf.kinds.blocks import KIND as BLOCKS
from wireconf.kinds.convert import KIND as CONVERT
from wireconf.kinds.e2e import KIND as E2E
from wireconf.kinds.extract import KIND as EXTRACT
from wireconf.kinds.extract import payloads
from wireconf.kinds.process import KIND as PROCESS
from wireconf.kinds.process import PROCESS_ASYNC
from wireconf.kinds.stream import KIND as STREAM
from wireconf.kinds.trace import KIND as TRACE
from wireconf.kinds.wire import KIND as WIRE
from wireconf.kinds.wire import read_sent
from wireconf.providers.registry import APIS
from wireconf.reports.findings import REJECTED_RULE
from wireconf.repro.extract_templates import EXTRACT_TEMPLATES
from wireconf.repro.js_script import JsFrame, Mode, render_js
from wireconf.repro.js_templates import JS_CATEGORIES, JS_E2E, JS_TEMPLATES
from wireconf.repro.llamaindex_template import UnwritableInput
from wireconf.repro.result_script import EXTRACTED, HANDED, ResultFrame, render_result
from wireconf.repro.result_templates import ASYNC_TEMPLATES, MAPPING_TEMPLATES, READS_HTTP, RESULT_TEMPLATES
from wireconf.repro.script import Answer, Check, render
from wireconf.repro.seed_templates import SEED_TEMPLATES
from wireconf.repro.templates import ALIASED_APIS, E2E_TEMPLATES, TEMPLATES
from wireconf.repro.trace_templates import TRACE_TEMPLATES, traced_call
from wireconf.sdk.replay import SdkReplay

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
        "wireconf repro makes scripts for the request a runtime builds (wire cases, and e2e cases of one"
        " request) and for what it makes of a response (process and stream cases) of "
        + ", ".join(sorted(TEMPLATES))
        + ", and for what its payload extractors return (extract cases) of "
        + ", ".join(sorted(EXTRACT_TEMPLATES))
    )


def _rules(difference: dict[str, Any]) -> list[str]:
    """The rules a difference breaks, as a reproduction cites them (the provider's contract, for a request
    it rejects; ``UNRULED`` for none)."""
    if difference.get("basis") == "provider-schema":
        return [REJECTED_RULE]
    return list(difference.get("rules") or [UNRULED])


@dataclass(frozen=True)
class Selection:
    """Which differences of the verdict to check: those breaking ``rule``, at places matching ``path``
    (``$.contents[*].parts[*].functionCall.id``: a root cause of the findings page); ``None``: all."""

    rule: str | None = None
    path: str | None = None

    def keeps(self, difference: dict[str, Any]) -> bool:
        rules = _rules(difference)
        if self.rule is not None and self.rule not in rules:
            return False
        place = str(difference.get("path", ""))
        return self.path is None or generic_path(place) == self.path or fnmatch.fnmatchcase(place, self.path)

    def rule_of(self, difference: dict[str, Any], catalogue: Catalogue) -> tuple[str, str]:
        """The rule a kept difference's check cites (the selected one, else the first it breaks) and
        that rule's sentence."""
        rule = self.rule or _rules(difference)[0]
        known = catalogue.rules.get(rule)
        return rule, known.statement if known is not None else "no rule of the catalogue declares this place"


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


def expected_request(case: LoadedCase[Any]) -> Any:
    """The request body ``case`` expects: a ``wire`` case's ``expect``, an ``e2e`` case's
    ``expect_request`` (one request: a list, several, is not reproduced), read as the harness reads it
    (``wireconf.kinds.wire.read_sent``: Gemini's fields under their JSON names), so that the path of a
    difference names the same place in it."""
    expected = to_plain(case.raw.get("expect_request" if case.kind == E2E.name else "expect"))
    return read_sent(case.api, expected) if case.api in APIS and isinstance(expected, dict) else expected


def refused_input(case: LoadedCase[Any], difference: dict[str, Any]) -> bool:
    """Whether ``difference`` is a ``wire`` case's error not raised: the runtime built (and sent) a
    request for an input the case expects it to refuse."""
    expects_error = getattr(case.model, "expect_error", None) is not None
    returned = difference.get("subject") == "result" and difference.get("change") == "returned"
    return case.kind == WIRE.name and expects_error and returned


def _error_label(case: LoadedCase[Any]) -> str:
    error = getattr(case.model, "expect_error", None)
    return f"an error ({error.label})" if error is not None else "an error"


SENT_NONE = "the runtime sent no request"
"""How an ``e2e`` verdict's ``requests`` difference begins when the runtime sent nothing (it raised first)."""
_RAISED_CLASS = re.compile(r"^result \$: (?:raised \((\w+)\)|wrong-error \((?:\S+ )?(\w+) for )")


def sent_none(differences: list[dict[str, Any]]) -> bool:
    """Whether an ``e2e`` verdict says the runtime sent no request."""
    return any(
        d.get("subject") == "request"
        and d.get("change") == "requests"
        and str(d.get("text", "")).startswith(SENT_NONE)
        for d in differences
    )


def raised_before_sending(
    case: LoadedCase[Any], differences: list[dict[str, Any]], difference: dict[str, Any]
) -> bool:
    """Whether ``difference`` is an ``e2e`` case's raise where a request was to be sent: the requests not
    sent, or the raise itself (where a result, another error or, for a ``trace`` case of ``execute``, its
    spans were expected), the runtime having raised before it sent anything."""
    if not calls_execute(case) or not sent_none(differences):
        return False
    subject, change = difference.get("subject"), difference.get("change")
    return (subject, change) == ("request", "requests") or (
        subject in ("result", "spans") and change in ("raised", "wrong-error")
    )


def calls_execute(case: LoadedCase[Any]) -> bool:
    """Whether ``case`` calls the runtime as its adapter's ``execute`` (an ``e2e`` case, a ``trace`` case
    of that call)."""
    return case.kind == E2E.name or (case.kind == TRACE.name and getattr(case.model, "call", "") == "execute")


_REJECTS = re.compile(r"^\S+: the provider's contract rejects this \(([^)]+)\): (.*)$", re.S)
_NOT_ONE_OF = re.compile(r"^.* is not one of (\[.*\])$", re.S)
_NOT_OF_TYPE = re.compile(r"^.* is not of type '(\w+)'$", re.S)


def contract_check(difference: dict[str, Any]) -> Check | None:
    """The check of a ``provider-rejects`` difference whose reason a script can test at its place: a key
    the contract does not have (absent once fixed), a key it requires (present), a value outside its enum,
    of another JSON type, or an empty array where it wants items; where no member of a union accepts the
    value, that of the one constraint of the member that matches best (the report's ``constraint``:
    ``contract.Problem.best``), at its own place, and held once the value at the union's place is of
    another JSON type (another member's shape, which this one constraint cannot judge); ``None`` for any
    other reason."""
    found = _REJECTS.match(str(difference.get("text", "")))
    if difference.get("change") != "provider-rejects" or found is None:
        return None
    schema, reason = found.groups()
    path = str(difference.get("path", "$"))
    sentence = f"the provider's contract ({schema}) rejects the request: {reason}"
    if reason.startswith("no member of the union"):  # each member's reason: check the best member's one
        best = difference.get("constraint")
        if not isinstance(best, dict) or not isinstance(best.get("path"), str):
            return None  # a report written before it was recorded
        within = {"path": path, "shape": str(best.get("shape", ""))}  # the value no member accepts
        path, one = best["path"], str(best.get("reason", ""))
        said = f"no member of the union accepts it; the member that matches best: {one}"
        sentence = f"the provider's contract ({schema}) rejects the request: {said}"
        wanted = _constraint(one)
        return (
            None
            if wanted is None
            else Check(REJECTED_RULE, sentence, path, "contract", {**wanted, "union": within})
        )
    wanted = _constraint(reason)
    if wanted is None:
        return None
    return Check(REJECTED_RULE, sentence, path, "contract", wanted)


def _constraint(reason: str) -> dict[str, Any] | None:
    """What the contract wants at a place, from its reason in a single constraint's words."""
    if reason == "the contract has no such key":
        return {"absent": True}
    if reason == "required by the contract, and missing":
        return {"present": True}
    if reason.endswith(" should be non-empty"):  # minItems 1 (jsonschema's words)
        return {"min_items": 1}
    if (enum := _NOT_ONE_OF.match(reason)) is not None:
        try:
            return {"enum": ast.literal_eval(enum.group(1))}
        except (ValueError, SyntaxError):
            return None
    if (typed := _NOT_OF_TYPE.match(reason)) is not None:
        return {"type": typed.group(1)}
    return None


def checks(
    case: LoadedCase[Any], differences: list[dict[str, Any]], catalogue: Catalogue, selection: Selection
) -> list[Check]:
    """One check per selected difference of the request, with the rule's sentence and the value the
    case expects at its path; an e2e case's raise before sending, one check that the runtime sends."""
    expected_request_ = expected_request(case)
    out = []
    raised = next(
        (
            m.group(1) or m.group(2)
            for d in differences
            if (m := _RAISED_CLASS.match(str(d.get("signature", ""))))
        ),
        "",
    )
    for difference in differences:
        if raised_before_sending(case, differences, difference):
            if selection.keeps(difference):
                rule, sentence = selection.rule_of(difference, catalogue)
                check = Check(rule, sentence, "$", "raised", "the request sent", raised=raised)
                if check not in out:
                    out.append(check)
            continue
        contract = contract_check(difference)
        if contract is not None:
            if selection.keeps(difference):
                out.append(contract)
            continue
        if case.kind == WIRE.name and difference.get("change") == "wrong-error":  # refused, otherwise
            if selection.keeps(difference):
                rule, sentence = selection.rule_of(difference, catalogue)
                category = category_check(case, difference, rule, sentence)
                if category is not None and category not in out:
                    out.append(category)
            continue
        if refused_input(case, difference):  # sent where the input was to be refused
            if selection.keeps(difference):
                rule, sentence = selection.rule_of(difference, catalogue)
                out.append(Check(rule, sentence, "$", "returned", _error_label(case)))
            continue
        if difference.get("subject") != "request" or difference.get("change") not in CHECKED_CHANGES:
            continue
        if not selection.keeps(difference):
            continue
        rule, sentence = selection.rule_of(difference, catalogue)
        path = str(difference.get("path", "$"))
        present, expected = value_at(expected_request_, path)
        out.append(Check(rule, sentence, path, str(difference.get("change")), expected, present))
    return out


@dataclass(frozen=True)
class Verdict:
    """One runtime's verdict on one case, as its script is made: the runtime and its version, the case
    and its attributed ``differences``, the rules' ``catalogue``, the ``selection`` of differences to
    check, the ``command`` and ``location`` the script names, the folder of ``cassettes``."""

    runtime: str
    version: str
    case: LoadedCase[Any]
    differences: list[dict[str, Any]]
    catalogue: Catalogue
    selection: Selection
    command: str
    location: str
    cassettes: Path | None

    def title(self, rule: str) -> str:
        return f"{self.runtime} {self.version}: {rule} ({self.case.id})"

    def nothing_to_check(self, what: str) -> ReproError:
        """The error of a verdict whose selected differences give the script nothing to check."""
        matching = f" that matches {self.selection}" if self.selection != Selection() else ""
        return ReproError(
            f"{self.runtime}'s verdict on {self.case.id} has no {what} to check{matching}", case=self.case.id
        )


def reproduction(
    runtime: str,
    version: str,
    case: LoadedCase[Any],
    differences: list[dict[str, Any]],
    catalogue: Catalogue,
    selection: Selection,
    command: str,
    location: str,
    cassettes: Path | None = None,
) -> str:
    """The script reproducing ``runtime``'s verdict on ``case`` (its attributed ``differences``); a
    response case's recorded response is read from ``cassettes`` (the folder beside the corpus)."""
    verdict = Verdict(runtime, version, case, differences, catalogue, selection, command, location, cassettes)
    if case.kind in RESPONSE_KINDS:
        return result_reproduction(verdict)
    if case.kind == EXTRACT.name:
        return extract_reproduction(verdict)
    e2e = calls_execute(case)
    if case.kind == TRACE.name and e2e and spans_judged(differences, selection):
        return trace_reproduction(verdict)
    if case.kind == E2E.name and raised_after_sending(case, differences, selection):
        return e2e_result_reproduction(verdict)
    template = (E2E_TEMPLATES if e2e else TEMPLATES).get(runtime)
    if template is None and runtime not in (JS_E2E if e2e else JS_TEMPLATES):
        raise ReproError(f"no reproduction template for the runtime {runtime!r}", case=case.id)
    if case.kind != WIRE.name and not e2e:
        raise ReproError(
            f"{case.id} is a {case.kind} case: only the request a runtime builds and what it makes of a"
            " response (process, stream, extract) are reproduced yet",
            case=case.id,
        )
    if case.kind == E2E.name and not isinstance(expected_request(case), dict):
        raise ReproError(f"{case.id} expects several requests: only the first is reproduced", case=case.id)
    found = checks(case, differences, catalogue, selection)
    if not found:
        raise verdict.nothing_to_check("difference of the request")
    agent = resolve_agent_paths(to_plain(case.raw["agent"]), case.path.parent)
    messages = to_plain(case.raw.get("messages", []))
    title = verdict.title(found[0].rule)
    if template is None:  # a JavaScript runtime's
        frame = JsFrame(title, command, case.id, location, "request", listed=False)
        js = JS_TEMPLATES[runtime](case.api, agent, messages, "request", e2e, bool(named_media(messages)))
        return render_js(frame, js, ANSWER, to_plain(case.raw.get("expect")), found, named_media(messages))
    try:  # a template writes the runtime's own objects (LangChain's dumpd): it runs where that is installed
        call = template(case.api, agent, messages)
    except UnwritableInput as error:
        raise ReproError(f"{case.id}: {error.message}", case=case.id) from error
    except ModuleNotFoundError as error:
        raise ReproError(
            f"{runtime} is not installed here ({error.name}): run wireconf repro with the Python of its"
            f" environment (`wireconf findings --runtime {runtime} --make-envs` names it)",
            case=case.id,
        ) from error
    return render(
        title=title,
        command=command,
        case_id=case.id,
        location=location,
        call=call,
        answer=ANSWER,
        checks=found,
        aliases=case.api in ALIASED_APIS,
        media=named_media(messages),
    )


SPAN_CHANGES = ("missing-item", "unexpected-item", "value", "type", "missing-key", "unexpected-key")
"""The differences of a ``trace`` case's spans a script checks (on the list of spans: the harness aligns
it)."""


def spans_judged(differences: list[dict[str, Any]], selection: Selection = Selection()) -> bool:
    """Whether the selected differences of a ``trace`` case of ``execute`` are of the spans it finished
    (not a raise before sending, which keeps its own script)."""
    kept = [d for d in differences if selection.keeps(d)]
    return bool(kept) and all(d.get("subject") == "spans" and d.get("change") in SPAN_CHANGES for d in kept)


def trace_reproduction(verdict: Verdict) -> str:
    """The script reproducing a ``trace`` case's spans of ``execute``: the runtime called as its ``e2e``
    template calls it against the case's recorded response, under the OpenTelemetry SDK's in-memory
    exporter, its tracing switched on as its adapter does (``trace_templates``); the spans with
    ``gen_ai.*`` attributes checked against the case's ``expect`` on the attributes it lists."""
    runtime, case, selection = verdict.runtime, verdict.case, verdict.selection
    template = E2E_TEMPLATES.get(runtime)
    if template is None or runtime not in TRACE_TEMPLATES:
        raise ReproError(f"no reproduction template for {runtime!r}'s spans", case=case.id)
    kept = [d for d in verdict.differences if selection.keeps(d) and d.get("subject") == "spans"]
    if not kept:
        raise ReproError(f"{runtime}'s verdict on {case.id} has no difference of its spans", case=case.id)
    rule, sentence = selection.rule_of(kept[0], verdict.catalogue)
    expected = to_plain(case.raw.get("expect"))
    found = [Check(rule, sentence, "$", "value", expected, True)]
    answer = _first_recorded(case, verdict.cassettes)
    agent = resolve_agent_paths(to_plain(case.raw["agent"]), case.path.parent)
    call = traced_call(runtime, template(case.api, agent, to_plain(case.raw.get("messages", []))))
    title = verdict.title(rule)
    frame = ResultFrame(title, verdict.command, case.id, verdict.location, False, True)
    return render_result(frame, call, answer, expected, found)


def _first_recorded(case: LoadedCase[Any], cassettes: Path | None) -> Answer:
    """The response of the case's cassette's first interaction, as a script serves it."""
    store = CassetteStore(cassettes or case.path.parent)
    try:
        recorded = store.interaction(str(getattr(case.model, "cassette", "")), 0).response
    except CassetteError as error:
        raise ReproError(f"{case.id}: its recorded response cannot be read: {error}", case=case.id) from error
    content_type = recorded.header("content-type") or "application/json"
    return Answer(recorded.status, content_type, recorded.body.decode("utf-8"))


RAISES = (("result", "raised"), ("result", "wrong-error"))
"""A verdict's raise where a result, or an error of another category, was expected."""


def raised_after_sending(
    case: LoadedCase[Any], differences: list[dict[str, Any]], selection: Selection = Selection()
) -> bool:
    """Whether the selected differences of an ``e2e`` verdict are a raise where a result (or an error of
    another category) was expected, after the runtime sent its request, and nothing of the request: what
    it made of the recorded response, which a script's canned error answer cannot cause (the request's
    differences keep their own script)."""
    kept = [d for d in differences if selection.keeps(d)]
    raised = [d for d in kept if (d.get("subject"), d.get("change")) in RAISES]
    request = [d for d in kept if d.get("subject") == "request"]
    return case.kind == E2E.name and not sent_none(differences) and bool(raised) and not request


def e2e_result_reproduction(verdict: Verdict) -> str:
    """The script reproducing an ``e2e`` case's raise after sending: the runtime called as its adapter's
    ``execute`` calls it (``E2E_TEMPLATES``), every request answered with the case's recorded response
    (its cassette's first interaction: one request), the raise checked as a response case's is."""
    runtime, case, selection = verdict.runtime, verdict.case, verdict.selection
    template = E2E_TEMPLATES.get(runtime)
    if template is None:
        raise ReproError(f"no reproduction template for {runtime!r}'s e2e call of a response", case=case.id)
    if not isinstance(expected_request(case), dict):
        raise ReproError(f"{case.id} expects several requests: only the first is reproduced", case=case.id)
    found = result_checks(case, verdict.differences, verdict.catalogue, selection, categories=True)
    if not found:
        raise verdict.nothing_to_check("raise")
    answer = _first_recorded(case, verdict.cassettes)
    agent = resolve_agent_paths(to_plain(case.raw["agent"]), case.path.parent)
    try:
        call = template(case.api, agent, to_plain(case.raw.get("messages", [])))
    except (UnwritableInput, ModuleNotFoundError) as error:
        raise ReproError(f"{case.id}: {runtime} cannot be called here ({error})", case=case.id) from error
    title = verdict.title(found[0].rule)
    frame = ResultFrame(title, verdict.command, case.id, verdict.location, False, False)
    return render_result(frame, call, answer, to_plain(case.raw.get("expect")), found)


RESPONSE_KINDS = (PROCESS.name, STREAM.name, BLOCKS.name, CONVERT.name)
"""The kinds whose case hands the runtime a recorded response: their scripts serve it and check what the
runtime makes of it (``blocks`` and ``convert``: a runtime that consumes LiteLLM's result,
``seed_templates``)."""


def _served_template(runtime: str, kind: str) -> bool:
    """Whether ``runtime`` has a template for what it makes of a response of a ``kind`` case."""
    if kind in (BLOCKS.name, CONVERT.name):
        return SEED_TEMPLATES.get(runtime, ("", None))[0] == kind
    return runtime in RESULT_TEMPLATES or runtime in JS_TEMPLATES


RESULT_CHANGES = (
    "missing-key",
    "unexpected-key",
    "value",
    "type",
    "missing-item",
    "unexpected-item",
    "returned",
)
"""The differences of a result a script checks: at a place (``CHECKED_CHANGES`` but ``raised``, which is
checked on the whole result), and a return where an error was expected; an error of another category
(``wrong-error``) is checked for a Python runtime by the categories its class stands for (the harness's
reading, ``core.error_categories``, inlined in the script), a late text item (``not-incremental``) is
the harness's reading, left out, as is a difference of ``process_async`` alone where the runtime has no
asynchronous template."""
_ITEM = re.compile(r"\[\d+\]$")
YIELDED = "yielded-before-error"
"""A stream case's difference in the items yielded before the error it expects (``expect_error.yielded``)."""
ITEM_CHANGES = ("missing-item", "unexpected-item", "value", "type")
_RAISED = re.compile(r": raised \((\w+)\)$")
_WRONG_ERROR = re.compile(r": wrong-error \((?:\S+ )?(\w+) for [^)]*\)$")
OUTCOMES = frozenset(c.__name__ for c in RuntimeOutcome.__subclasses__()) - {NoResult.__name__}
"""What an adapter raises in its runtime's place (``adapter_contract.RuntimeOutcome``): no script raises
those, so an error of one is not reproduced; but ``NoResult``, the adapter's word for a return without
the result its users read, which a script shows as that return (its template returns the runtime's
response as it came: ``result_templates``)."""


def category_check(
    case: LoadedCase[Any], difference: dict[str, Any], rule: str, sentence: str
) -> Check | None:
    """A ``wrong-error`` difference as a check that the runtime raises an error of the category the case
    expects (``expect_error``), the class the harness saw named; ``None`` for an adapter's outcome or a
    case that names a class, not a category."""
    error = getattr(case.model, "expect_error", None)
    seen = _WRONG_ERROR.search(str(difference.get("signature", "")))
    if error is None or error.category is None or seen is None or seen.group(1) in OUTCOMES:
        return None
    wanted = {"category": error.category, "status": error.status}
    return Check(rule, sentence, "$", "category", wanted, raised=seen.group(1))


_QUOTED_STEP = re.compile(r"\['")


def result_checks(
    case: LoadedCase[Any],
    differences: list[dict[str, Any]],
    catalogue: Catalogue,
    selection: Selection,
    asynchronous: bool = False,
    categories: bool = False,
) -> list[Check]:
    """One check per selected difference of the result (several at one place: one): a raise checked on
    the whole result, an item too many or too few on its list (the harness aligns lists: a place alone
    would not say when it is fixed), a place inside a matcher (``['$json']``) at the matcher's place;
    with ``categories`` (a Python runtime's script), an error of another category."""
    expected_result = to_plain(case.raw.get("expect"))
    out: dict[tuple[str, str, str], Check] = {}
    # a list with an item too many or too few was aligned by the harness: a place inside one of its items
    # names the expected item, not the result's at that index, so such a place is checked on the list
    aligned = sorted(
        {
            _ITEM.sub("", str(d.get("path", "$")))
            for d in differences
            if d.get("subject") == "result" and d.get("change") in ("missing-item", "unexpected-item")
        },
        key=len,
    )
    for difference in differences:
        change = str(difference.get("change"))
        if difference.get("subject") == YIELDED and change in ITEM_CHANGES and selection.keeps(difference):
            rule, sentence = selection.rule_of(difference, catalogue)  # the items before the error
            yielded = to_plain(getattr(getattr(case.model, "expect_error", None), "yielded", None))
            out.setdefault((rule, "$", "yielded"), Check(rule, sentence, "$", "yielded", yielded))
            continue
        if difference.get("subject") != "result" or change not in (*RESULT_CHANGES, "raised", "wrong-error"):
            continue
        if (difference.get("variant") == PROCESS_ASYNC.name) != asynchronous:  # one processor a script
            continue
        if not selection.keeps(difference):
            continue
        rule, sentence = selection.rule_of(difference, catalogue)
        path = str(difference.get("path", "$"))
        path = path[: match.start()] if (match := _QUOTED_STEP.search(path)) else path
        if change == "wrong-error":  # the class raised stands for another error of the spec
            category = category_check(case, difference, rule, sentence) if categories else None
            if category is not None:
                out.setdefault((rule, "$", "category"), category)
            continue
        if change in ("missing-item", "unexpected-item"):
            path = _ITEM.sub("", path)
        path = next((list_ for list_ in aligned if path.startswith(list_ + "[")), path)
        if change == "returned":
            check = Check(rule, sentence, "$", change, _error_label(case))
        elif change == "raised":  # the class the harness saw: the same raise before any request shows it
            seen = _RAISED.search(str(difference.get("signature", "")))
            if seen is not None and seen.group(1) == NoResult.__name__:  # the adapter's word for a return
                check = Check(rule, sentence, "$", "value", expected_result, True)  # judged as returned
            else:
                raised = seen.group(1) if seen else ""
                check = Check(rule, sentence, "$", change, expected_result, raised=raised)
        else:
            present, expected = value_at(expected_result, path)
            check = Check(rule, sentence, path, "value", expected, present)
        out.setdefault((rule, check.path, check.change), check)
    return list(out.values())


def result_reproduction(verdict: Verdict) -> str:
    """The script reproducing ``runtime``'s verdict on a ``process`` or ``stream`` case: its recorded
    response inlined and served, what the runtime makes of it checked."""
    runtime, case, selection = verdict.runtime, verdict.case, verdict.selection
    template = RESULT_TEMPLATES.get(runtime)
    if not _served_template(runtime, case.kind):
        raise ReproError(
            f"no reproduction template for what {runtime!r} makes of a response in a {case.kind} case",
            case=case.id,
        )
    if has_references(to_plain(case.raw.get("expect"))):
        raise ReproError(
            f"{case.id} expects values of its recording ($recorded): not reproduced yet", case=case.id
        )
    mapping = runtime not in READS_HTTP and getattr(case.model, "response_as", "sdk") != "sdk"
    if mapping and (runtime not in MAPPING_TEMPLATES or case.kind != PROCESS.name):
        raise ReproError(f"{case.id} hands the runtime a mapping, not a response it reads", case=case.id)
    if mapping:
        template = MAPPING_TEMPLATES[runtime]
    python = runtime not in JS_TEMPLATES or runtime in JS_CATEGORIES  # its script reads a raise's category
    found = result_checks(case, verdict.differences, verdict.catalogue, selection, categories=python)
    if not found and runtime in ASYNC_TEMPLATES and case.kind == PROCESS.name:  # only process_async differs
        found = result_checks(
            case, verdict.differences, verdict.catalogue, selection, asynchronous=True, categories=python
        )
        template = ASYNC_TEMPLATES[runtime] if found else template
    if not found:
        raise verdict.nothing_to_check("difference of the result")
    stream = case.kind in (STREAM.name, BLOCKS.name) or bool(getattr(case.model, "stream", False))
    ctx = HarnessContext(CassetteStore(verdict.cassettes or case.path.parent), SdkReplay())
    recorded = recorded_response(ctx, case, case.model.response, stream=stream)
    answer = Answer(
        recorded.status,
        recorded.header("content-type") or ("text/event-stream" if stream else "application/json"),
        recorded.body.decode("utf-8"),
    )
    listed = getattr(case.model, "expect_keys", "all") == "listed"
    title = verdict.title(found[0].rule)
    if case.kind in (BLOCKS.name, CONVERT.name):  # the runtime's input is LiteLLM's result
        seed = SEED_TEMPLATES[runtime][1](case.api, stream, answer, os.environ.get(SRC_VARIABLE, ""))
        seed_frame = ResultFrame(title, verdict.command, case.id, verdict.location, False, listed)
        return render_result(seed_frame, seed, answer, to_plain(case.raw.get("expect")), found)
    agent = resolve_agent_paths(to_plain(case.raw["agent"]), case.path.parent)
    if template is None:  # a JavaScript runtime's
        mode: Mode = "stream" if stream else "result"
        js = JS_TEMPLATES[runtime](case.api, agent, None, mode, False, False)
        js_frame = JsFrame(title, verdict.command, case.id, verdict.location, mode, listed)
        return render_js(js_frame, js, answer, to_plain(case.raw.get("expect")), found)
    try:  # LangChain's template writes LangChain's own message objects: it runs where that is installed
        call = template(case.api, agent, stream)
    except ModuleNotFoundError as error:
        raise ReproError(
            f"{runtime} is not installed here ({error.name}): run wireconf repro with the Python of its"
            f" environment (`wireconf findings --runtime {runtime} --make-envs` names it)",
            case=case.id,
        ) from error
    frame = ResultFrame(
        title, verdict.command, case.id, verdict.location, stream, listed, about=HANDED if mapping else ""
    )
    return render_result(frame, call, answer, to_plain(case.raw.get("expect")), found)


def extract_reproduction(verdict: Verdict) -> str:
    """The script reproducing ``runtime``'s verdict on an ``extract`` case: the payloads the kind hands
    the adapter inlined, what the runtime's extractors return for them checked."""
    runtime, case, selection = verdict.runtime, verdict.case, verdict.selection
    template = EXTRACT_TEMPLATES.get(runtime)
    if template is None:
        raise ReproError(f"no reproduction template for {runtime!r}'s payload extractors", case=case.id)
    found = result_checks(case, verdict.differences, verdict.catalogue, selection)
    if not found:
        raise verdict.nothing_to_check("difference of the result")
    ctx = HarnessContext(CassetteStore(verdict.cassettes or case.path.parent), SdkReplay())
    request, response = payloads(ctx, case)
    listed = getattr(case.model, "expect_keys", "all") == "listed"
    title = verdict.title(found[0].rule)
    frame = ResultFrame(title, verdict.command, case.id, verdict.location, False, listed, about=EXTRACTED)
    call = template(case.api, request, response)
    return render_result(frame, call, None, to_plain(case.raw.get("expect")), found)


def reproducible(corpus: Corpus) -> Callable[[CaseRecord, dict[str, Any]], bool]:
    """Whether ``wireconf repro`` makes a script for a failing case of ``corpus`` that checks one of its
    differences: its runtime has a template for the case's kind and the script checks that difference.
    A wire case whose input names a media URL is in (a runtime downloads one before it sends: the script
    answers it as the harness does, ``script.MEDIA``); an e2e case that does is left out, as is a
    response case that expects values of its recording or hands a runtime that reads no HTTP (prompty's
    processor) a mapping. The findings page
    links those root causes to the command."""
    offline, responses, extracted, one_request, refusing, executes = set(), set(), set(), set(), set(), set()
    kinds: dict[str, str] = {}
    for case in corpus.cases():
        kinds[case.id] = case.kind
        if case.kind == WIRE.name:  # a media URL its input names is answered by the script
            offline.add(case.id)
            if getattr(case.model, "expect_error", None) is not None:
                refusing.add(case.id)
        elif case.kind == E2E.name and not named_media(to_plain(case.raw.get("messages", []))):
            if isinstance(to_plain(case.raw.get("expect_request")), dict):
                one_request.add(case.id)
        elif calls_execute(case):  # a trace case of execute: its raise before sending
            executes.add(case.id)
        elif case.kind in RESPONSE_KINDS and not has_references(to_plain(case.raw.get("expect"))):
            responses.add((case.id, getattr(case.model, "response_as", "sdk") == "sdk"))
        elif case.kind == EXTRACT.name:
            extracted.add(case.id)

    def shows(record: CaseRecord, difference: dict[str, Any]) -> bool:
        change, subject = difference.get("change"), difference.get("subject")
        e2e_template = record.impl in E2E_TEMPLATES or record.impl in JS_E2E
        if (record.id in one_request or record.id in executes) and record.impl in E2E_TEMPLATES:
            differences = record.differences or []  # raised before sending
            if sent_none(differences) and (
                (subject, change) == ("request", "requests")
                or (subject in ("result", "spans") and change in ("raised", "wrong-error"))
            ):
                return True
        if record.id in executes and subject == "spans" and change in SPAN_CHANGES:  # its spans, served
            return record.impl in TRACE_TEMPLATES and not sent_none(record.differences or [])
        if record.id in one_request and subject == "result" and change in ("raised", "wrong-error"):
            differences = record.differences or []  # raised after sending: what it made of the response
            seen = _WRONG_ERROR.search(str(difference.get("signature", "")))
            outcome = seen is not None and seen.group(1) in OUTCOMES
            return record.impl in E2E_TEMPLATES and not sent_none(differences) and not outcome
        if subject == "request" and change == "provider-rejects" and contract_check(difference) is None:
            return False
        if subject == "request" and record.id in one_request:
            return e2e_template and (change in CHECKED_CHANGES or change == "provider-rejects")
        if subject == "request":
            wire = record.impl in TEMPLATES or record.impl in JS_TEMPLATES
            return (
                wire and record.id in offline and (change in CHECKED_CHANGES or change == "provider-rejects")
            )
        if subject == "result" and change == "returned" and record.id in refusing:  # a wire case's error
            return record.impl in TEMPLATES or record.impl in JS_TEMPLATES
        if subject == "result" and change == "wrong-error" and record.id in refusing:  # another category
            seen = _WRONG_ERROR.search(str(difference.get("signature", "")))
            reads = record.impl in TEMPLATES or record.impl in JS_CATEGORIES
            return reads and seen is not None and seen.group(1) not in OUTCOMES
        if subject == YIELDED and change in ITEM_CHANGES:  # checked as the items before the raise
            subject = "result"
        if subject != "result" or change not in (*RESULT_CHANGES, "raised", "wrong-error"):
            return False
        if difference.get("variant") == PROCESS_ASYNC.name and record.impl not in ASYNC_TEMPLATES:
            return False
        if record.id in extracted:
            return record.impl in EXTRACT_TEMPLATES
        if change == "wrong-error":  # the category of a Python class, read as the harness reads it
            seen = _WRONG_ERROR.search(str(difference.get("signature", "")))
            reads = record.impl in RESULT_TEMPLATES or record.impl in JS_CATEGORIES
            if not reads or seen is None or seen.group(1) in OUTCOMES:
                return False
        if not _served_template(record.impl, kinds.get(record.id, "")):
            return False
        mapping = record.impl in READS_HTTP or (
            record.impl in MAPPING_TEMPLATES and kinds.get(record.id) == PROCESS.name
        )
        return (record.id, True) in responses or ((record.id, False) in responses and mapping)

    return shows
