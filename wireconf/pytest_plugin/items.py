"""pytest collection of the corpus: a case file → one item per case (named by the case id).

The case runs during the item's setup (where, and under what time limit: ``wireconf.pytest_plugin.
runner``) and its verdict is reported in its call phase, so pytest's own outcomes mean what a
maintainer expects: FAILED is a deviation from a rule (with a diff), ERROR is a case the harness could
not judge (the adapter hung, ended its process or returned something that is not data, a cassette is
missing or broken, the runtime wrote into the cassettes folder), SKIPPED is a capability the adapter
does not declare. The adapter call's time is charged to the call phase all the same (``--durations``,
the reports' phase timings: ``CaseItem.charge``), and an item never looks ahead: the run loop hands
the runner the run's order once (``plan_entries``, ``runners.Plan``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from functools import cached_property
from pathlib import Path
from typing import Any, NoReturn, cast

import pytest

from wireconf.adapter_contract import CONCEPTS, concept
from wireconf.core.differences import Difference, Line
from wireconf.core.errors import Verdict, WireconfError
from wireconf.core.report_text import report_text
from wireconf.corpus.case import LoadedCase, Problem
from wireconf.corpus.model import CaseBase
from wireconf.corpus.rules import Catalogue, uncovered
from wireconf.judging.attribution import PROVIDER_SCHEMA, Attribution, failure_tier
from wireconf.judging.decision import CaseFacts, Decision, decide
from wireconf.judging.waivers import Waiver
from wireconf.kinds.concepts import needed_concepts
from wireconf.kinds.kind import capability
from wireconf.kinds.registry import KINDS
from wireconf.providers.secret_values import redact
from wireconf.pytest_plugin.case_run import CaseResult
from wireconf.pytest_plugin.runners import replay_logs
from wireconf.pytest_plugin.session import get_session, resolved_file, shown_path
from wireconf.pytest_plugin.summary import (
    INEXPRESSIBLE,
    PROP_API,
    PROP_CASE,
    PROP_CHECK,
    PROP_CORPUS,
    PROP_DIFFERENCES,
    PROP_EXPECTED_REJECTED,
    PROP_FAILING_PROFILES,
    PROP_KIND,
    PROP_OUTSIDE_PROFILE,
    PROP_PROBLEM,
    PROP_RECORDED,
    PROP_RULES,
    PROP_STALE_WAIVERS,
    PROP_TIER,
    PROP_UNSUPPORTED,
    PROP_WAIVED,
)
from wireconf.pytest_plugin.timeout import CaseAborted
from wireconf.reports.provider_schema import expected_problems_of

NETWORK_HELP = (
    "A runtime under test reaches a provider only at the case's endpoint on the harness's emulator (the "
    "base URL its methods get as `endpoint`) or through the SDK client the harness hands to execute (e2e "
    "cases); everything else runs on recorded bytes."
)
_DECIDED_BEFORE_SETUP = frozenset({"skip", "skipif", "xfail"})
"""Marks (on the item or a parent, as ``iter_markers`` finds them) with which pytest may skip an item
before its setup."""
TIER_NAMES = {"spec": "the spec's text", "vectors": "Prompty's vectors", "project": "a project decision"}
PROP_UNKNOWN_WRITES = "wireconf_unknown_writes"
"""A case report's property: the files (JSON list) no process the harness knows changed in the cassettes
folder while the case ran (``wireconf.cassettes.watch``), which fail the run (``corpus_guard``)."""


class ShownAsWritten(pytest.Item):
    """An item whose failures are wireconf's own errors, each already saying where and what to do: they
    are shown as written, without the harness's traceback (any other exception keeps pytest's)."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, WireconfError | Verdict):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    @property
    def corpus_root(self) -> Path:
        """The folder of the corpus this item's file belongs to."""
        parent = self.parent
        assert isinstance(parent, CaseFile | RulesFile), parent
        return parent.corpus_root


class CaseFailed(Verdict):
    """A case whose outcome differs from its expectation; carries the explanation lines and, apart,
    the lines that explain the difference (for reports)."""

    def __init__(self, lines: list[str], diff: list[str] | None = None) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines
        self.diff = lines if diff is None else diff


class CaseFile(pytest.File):
    """A YAML file of cases inside a corpus (a folder tree that holds ``rules.yaml``)."""

    def __init__(self, *, corpus_root: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.corpus_root = corpus_root
        self._shown: dict[Path, str] = {}

    def shown(self, path: Path) -> str:
        """``shown_path`` of a case's file, worked out once per file (it resolves the path, a look at
        the file system for each of its parts), not for every case's report."""
        found = self._shown.get(path)
        if found is None:
            found = self._shown[path] = shown_path(path, self.config.rootpath, self.corpus_root)
        return found

    def collect(self) -> Iterator[pytest.Item]:
        corpus = get_session(self.config).corpus(self.corpus_root)
        for entry in corpus.entries.get(resolved_file(self.path), []):
            if isinstance(entry, Problem):
                yield ProblemItem.from_parent(self, name=entry.name, problem=entry)
            else:
                yield CaseItem.from_parent(self, name=entry.id, loaded=entry)


class CaseItem(ShownAsWritten):
    """One case of the corpus, run against the implementation named by ``--impl``."""

    def __init__(self, *, loaded: LoadedCase[CaseBase], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.loaded = loaded
        self.case_kind = KINDS[loaded.kind]
        self._result: CaseResult | None = None
        self._runtime_seconds = 0.0
        self.extra_keyword_matches.update({loaded.kind, loaded.api, *loaded.model.rules})
        self.user_properties += [
            (PROP_CASE, loaded.id),
            (PROP_API, loaded.api),
            (PROP_KIND, loaded.kind),
            (PROP_RULES, ",".join(loaded.model.rules)),
            (PROP_CORPUS, str(self.corpus_root)),
        ]
        get_session(self.config).case_items[self.nodeid] = self

    @property
    def corpus_root(self) -> Path:
        return cast(CaseFile, self.parent).corpus_root  # collected from its case file, always

    @property
    def catalogue(self) -> Catalogue:
        return get_session(self.config).corpus(self.corpus_root).catalogue

    def where(self, line: int) -> str:
        """``file:line`` in the case's file as reports name it (``cases/wire/...``: ``shown_path``)."""
        return f"{cast(CaseFile, self.parent).shown(self.loaded.path)}:{line}"

    def _header(self) -> list[str]:
        session = get_session(self.config)
        catalogue = self.catalogue
        lines = [f"case {self.loaded.id} ({self.where(self.loaded.line)}) against {session.impl_label}"]
        for rule_id in self.loaded.model.rules:
            rule = catalogue.rules.get(rule_id)
            lines.append(f"  rule {rule_id}" + (f" [{rule.level}]: {rule.statement}" if rule else ""))
        return lines

    def _error(self, message: str) -> NoReturn:
        pytest.fail("\n".join([*self._header(), message]), pytrace=False)

    def _note_recorded(self, paths: Iterable[str]) -> None:
        for path in paths:
            self.user_properties.append((PROP_RECORDED, str(path)))

    @cached_property
    def _unsupported(self) -> str | None:
        """Why the implementation under test cannot run this case (what it does not declare), or
        ``None``; worked out once, since the run loop asks it of every case to plan the run
        (``plan_entries``)."""
        session = get_session(self.config)
        catalogue = session.corpus(self.corpus_root).catalogue
        if catalogue.unread:  # its citations cannot be checked, nor a failure's rules named
            return f"not judged: {catalogue.path} cannot be read (its own error says why)"
        cap = capability(self.loaded.kind, self.loaded.api)
        if session.impl.unavailable:
            return f"{cap}: {session.impl.name} is unavailable here: {session.impl.unavailable}"
        if not session.impl.supports(cap):
            return f"{cap} not supported by {session.impl.name}"
        lacking = [
            name
            for name in needed_concepts(self.loaded.kind, self.loaded.api, self.loaded.raw)
            if not session.impl.supports(concept(name))
        ]
        if lacking:
            needs = "; ".join(f"{concept(name)}: {CONCEPTS[name]}" for name in lacking)
            return f"{cap} case needs what {session.impl.name} does not declare: {needs}"
        # a kind that needs more than its own capability says so
        return self.case_kind.unsupported(self.loaded, session.impl.adapter, session.impl.supports)

    def setup(self) -> None:
        session = get_session(self.config)
        reason = self._unsupported
        if reason is not None:
            self.user_properties.append((PROP_UNSUPPORTED, True))
            pytest.skip(reason)
        try:
            result = session.runner.run(self)
        except CaseAborted as exc:
            self._note_recorded(exc.recorded)
            aborted: str | None = redact(f"error: {exc}")
        else:
            aborted = None
        if aborted is not None:
            self._error(aborted)  # outside the except block: no chained traceback in the report
        self._result = result
        self._runtime_seconds = result.runtime_seconds
        self._note_recorded(result.recorded)
        if result.stdout:  # shown as is under -s: no report to redact (and bound) it later
            sys.stdout.write(report_text(redact(result.stdout)))
        if result.stderr:
            sys.stderr.write(report_text(redact(result.stderr)))
        replay_logs(result)
        self._check_cassettes(result)
        if result.attempts:  # not a verdict: the case's own code reached for the network
            tried = "\n".join(f"  {attempt}" for attempt in result.attempts)
            self._error(
                f"error: the network is blocked while a runtime runs, and it tried to reach:\n{tried}\n"
                f"{NETWORK_HELP}"
            )
        if result.status == "unsupported":
            self.user_properties.append((PROP_UNSUPPORTED, INEXPRESSIBLE))
            pytest.skip(result.message)
        if result.status == "skipped":
            pytest.skip(result.message)
        if result.status == "error":
            self._error(result.message)

    def charge(self, report: pytest.TestReport) -> None:
        """Charge the adapter call's time to the call phase of the reports (``--durations``, phase
        timings): the case runs during setup, so that what keeps it from a verdict is an error, but the
        runtime's time is the test's own. Kept in setup when setup ends the item (an error, a skip)."""
        seconds = self._runtime_seconds
        if report.when == "setup" and report.passed:
            report.duration = max(0.0, report.duration - seconds)
        elif report.when == "call":
            report.duration += seconds

    def _check_cassettes(self, result: CaseResult) -> None:
        """An error when the process that ran the case wrote into the cassettes folder, other than as the
        harness's recording, while it ran (the runner that ran it watched the folder:
        ``wireconf.cassettes.watch``). What no process the harness knows wrote meanwhile is kept on the
        report for the run (``corpus_guard``): an error of the run, not of this case."""
        if result.unknown:
            self.user_properties.append((PROP_UNKNOWN_WRITES, json.dumps(result.unknown)))
        if not result.changed:
            return
        recorded = {Path(path).resolve() for path in result.recorded}
        changed = sorted(p for p in map(Path, result.changed) if p.resolve() not in recorded)
        if changed:
            root = Path(result.watched)
            names = ", ".join(str(p.relative_to(root)) for p in changed)
            self._error(
                f"error: the cassettes folder {root} changed while this case ran: {names}. Cassettes "
                "are the recorded evidence every case is judged on, and the process that ran the case "
                "(the runtime's, not the harness's recording) wrote these. Restore them (git status / git "
                "checkout on the folder)."
            )

    def runtest(self) -> None:
        """The verdict (``wireconf.judging.decision.decide``), rendered: pass, a failure that names the
        rules its differences break, or one outside the profile (xfailed)."""
        result = self._result
        assert result is not None
        session = get_session(self.config)
        loaded = self.loaded
        rejected = expected_problems_of(session.corpus(self.corpus_root), loaded)
        if rejected:  # the report says so beside the verdict, passing or not
            self.user_properties.append((PROP_EXPECTED_REJECTED, json.dumps([p.text for p in rejected])))
        if not result.lines and not session.waivers:  # a pass, and no baseline waiver that could go stale
            return
        paths = tuple(dict.fromkeys(p.path for p in rejected))
        facts = CaseFacts(loaded.id, loaded.kind, loaded.api, tuple(loaded.model.rules), loaded.raw, paths)
        decision = decide(
            result.lines,
            facts,
            self.catalogue,
            waivers=session.waivers,
            profile=session.profile,
            updating_baseline=session.updating_baseline,
        )
        broken, stale = decision.attributions, decision.stale
        if decision.waived:
            data = [
                {**_difference_data(d), "waiver": w.label, "reason": w.reason} for d, w in decision.waived
            ]
            self.user_properties.append((PROP_WAIVED, json.dumps(data)))
        if broken:
            self.user_properties.append((PROP_DIFFERENCES, json.dumps([a.to_data() for a in broken])))
            self.user_properties.append((PROP_TIER, decision.tier or ""))
        if stale:  # the gate fails the run for them, as for a listed case that passes
            self.user_properties.append((PROP_STALE_WAIVERS, json.dumps([w.label for w in stale])))
        if decision.outcome == "pass":
            return
        self.user_properties.append((PROP_FAILING_PROFILES, ",".join(decision.failing_profiles)))
        waived = {id(d): w for d, w in decision.waived}
        text = [str(line) + _waived_note(line, waived) for line in result.lines]
        expect_key = "expect_error" if loaded.model.expect_error is not None else "expect"
        line = self.where(loaded.line_of(expect_key))
        where = f"  expectation at {line}"
        explained = [*text, *self._broken(broken, line), *_stale(stale)]
        if decision.outcome == "outside-profile":
            self.user_properties.append((PROP_OUTSIDE_PROFILE, session.profile))
            pytest.xfail(f"outside the {session.profile} profile: {_outside(decision)}")
        raise CaseFailed([*self._header(), where, *explained], diff=[*text, *_stale(stale)])

    def _broken(self, broken: list[Attribution], where: str) -> list[str]:
        """The rules the differences break, each with the differences it explains; the differences no
        rule governs apart, as what they are: a defect of the corpus (shown with the expectation's line,
        ``where``), not a claim against the runtime, and no tier."""
        if not broken:
            return []
        by_rule: dict[tuple[str, ...], list[Attribution]] = {}
        for item in broken:
            by_rule.setdefault(item.rules, []).append(item)
        tier = failure_tier(broken)
        rejected_only = all(a.basis == PROVIDER_SCHEMA for a in broken if not a.rules)
        none = "none: the provider's contract rejects the request" if rejected_only else "none: unruled"
        out = [f"rules broken (the failure's tier: {tier or none}):"]
        for rules, items in by_rule.items():
            if not rules:
                continue
            paths = ", ".join(dict.fromkeys(_declared(a) for a in items))
            names = []
            for rule_id in rules:
                rule = self.catalogue.rules.get(rule_id)
                cited = "" if rule_id in self.loaded.model.rules else ", not cited by the case"
                names.append(f"{rule_id} [{rule.level}, {rule.tier}{cited}]" if rule else rule_id)
            out.append(f"  {' / '.join(names)} (declares {paths})")
        rejected = [a for a in by_rule.get((), []) if a.basis == PROVIDER_SCHEMA]
        if rejected:
            out.append(
                "  the provider would reject this request (its pinned contract): "
                + "; ".join(dict.fromkeys(a.difference.text for a in rejected))
            )
        unruled_here = [a for a in by_rule.get((), []) if a.basis != PROVIDER_SCHEMA]
        if unruled_here:
            paths = ", ".join(dict.fromkeys(_declared(a) for a in unruled_here))
            out.append(
                f"  no rule requires this: {paths}, asked by the expectation at {where} (unruled, no "
                "tier: a defect of the corpus, not a claim against the runtime; no rule in rules.yaml "
                "declares that it governs this difference, so the expectation asks for more than any rule "
                "does)"
            )
        return out

    def teardown(self) -> None:
        """Let go of the result: the report has the verdict, and a run of thousands of cases should not
        keep every one's output and logs alive to its end."""
        self._result = None

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, self.loaded.line - 1, f"{self.loaded.kind} {self.loaded.api}: {self.loaded.id}"


def streams_last(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place so that the cases whose input is an SDK stream (their kind's
    ``streams_only``: ``stream``, ``blocks``) come after the other cases; nothing else moves (the other
    tests keep their places, each group its own order, a case file its cases together).

    For the forked runner, which works ahead of pytest: in those cases the SDK parses every event as
    the runtime reads it, so the runner spends several times the pytest process's time on each, and
    pytest waits for it, unless the runner comes to them with a lead. The cheaper cases before them
    give it one (in the corpus's own order, ``process``, ``stream``, ``wire``, the stream cases came
    before the wire cases' slack). Every case still runs alone, in the order pytest reports it."""
    places = [i for i, item in enumerate(items) if isinstance(item, CaseItem)]
    cases = [cast(CaseItem, items[i]) for i in places]
    ordered = [c for c in cases if not c.case_kind.streams_only] + [
        c for c in cases if c.case_kind.streams_only
    ]
    for place, case in zip(places, ordered, strict=True):
        items[place] = case


def plan_entries(items: Iterable[pytest.Item]) -> Iterator[CaseItem | None]:
    """The ``runners.Plan`` entries of ``items``, in their order: a case whose setup asks the runner for
    it unless its adapter's answer decides otherwise (the runner may start it early); ``None`` for a case
    pytest's own skipping decides on before its setup (a skip or xfail mark: nothing past it starts
    early); nothing for an item that never asks (unsupported here, a corpus problem, another test)."""
    marked: dict[int, bool] = {}  # by the item's file: its chain's marks are every case's of it
    for item in items:
        if not isinstance(item, CaseItem) or item._unsupported is not None:
            continue
        parent = item.parent
        assert parent is not None
        if id(parent) not in marked:
            names = (mark.name for node in parent.listchain() for mark in node.own_markers)
            marked[id(parent)] = not _DECIDED_BEFORE_SETUP.isdisjoint(names)
        own = (mark.name for mark in item.own_markers)
        yield None if marked[id(parent)] or not _DECIDED_BEFORE_SETUP.isdisjoint(own) else item


def unreadable_items(session: pytest.Session, items: list[pytest.Item]) -> list[pytest.Item]:
    """The failing items of the corpus files that cannot be read at all (``Problem.unreadable``, a
    catalogue ``unread``), of every corpus the run collected from, that ``items`` (the selection) lacks:
    whatever ``-k``, ``--shard``, ``--kind`` or the paths given select, such a file fails the run with
    one error naming it (an unreadable catalogue leaves every case unjudged; a file of cases lost to a
    run that did not select them would be seen by none). Made here when the selection never collected
    them."""
    present = {item.nodeid for item in items}
    added: list[pytest.Item] = []
    for corpus in get_session(session.config).loaded_corpora():
        if corpus.catalogue.unread:
            rules = RulesFile.from_parent(session, path=corpus.catalogue.path, corpus_root=corpus.root)
            check = RuleCheckItem.from_parent(rules, name="catalogue", check="catalogue")
            if check.nodeid not in present:
                added.append(check)
        for path, entries in corpus.entries.items():
            problems = [e for e in entries if isinstance(e, Problem) and e.unreadable]
            if not problems or path != resolved_file(path):  # a symlink's second name: once
                continue
            case_file = CaseFile.from_parent(session, path=path, corpus_root=corpus.root)
            for problem in problems:
                item = ProblemItem.from_parent(case_file, name=problem.name, problem=problem)
                if item.nodeid not in present:
                    added.append(item)
    return added


def _declared(a: Attribution) -> str:
    """``$.stream unexpected-key``, and the provider equivalence that makes it representation."""
    shown = f"{a.difference.path} {a.difference.change}"
    return shown + (f" [representation: {a.representation}]" if a.representation else "")


def _outside(decision: Decision) -> str:
    """Why a failure does not count under the run's profile: the tier of the rules it breaks, or only
    differences the provider treats as the same request."""
    judged = [a for a in decision.attributions if not a.representation]
    if decision.attributions and not judged:
        names = ", ".join(dict.fromkeys(a.representation for a in decision.attributions))
        return f"representation only (the provider reads both requests alike: {names})"
    source = TIER_NAMES.get(decision.tier or "", decision.tier)
    return f"breaks {source}: {', '.join(decision.broken)}"


def _difference_data(d: Difference) -> dict[str, Any]:
    return {
        "subject": d.subject,
        "path": d.path,
        "change": d.change,
        "text": d.text,
        "signature": d.signature,
    }


def _waived_note(line: Line, waived: dict[int, Waiver]) -> str:
    waiver = waived.get(id(line)) if isinstance(line, Difference) else None
    return f"  (waived by the baseline: {waiver.reason})" if waiver else ""


def _stale(stale: list[Waiver]) -> list[str]:
    return [
        f"the baseline's waiver of `{w.label}` ({w.reason}) lists this case, but no difference of the case "
        "matches it any more: remove the case from the waiver's `cases`, or run with --update-baseline"
        for w in stale
    ]


class CorpusProblem(WireconfError):
    pass


class ProblemItem(ShownAsWritten):
    """A case (or a whole file) that could not be loaded: one failing item naming the file and line."""

    def __init__(self, *, problem: Problem, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = problem
        self.user_properties += [(PROP_PROBLEM, problem.name), (PROP_CORPUS, str(self.corpus_root))]

    def runtest(self) -> None:
        raise CorpusProblem(str(self.problem))

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, max(self.problem.line - 1, 0), f"corpus problem: {self.problem.name}"


class RulesFile(pytest.File):
    """``rules.yaml``: checks the catalogue itself and that every rule has at least one case."""

    def __init__(self, *, corpus_root: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.corpus_root = corpus_root

    def collect(self) -> Iterator[pytest.Item]:
        yield RuleCheckItem.from_parent(self, name="catalogue", check="catalogue")
        yield RuleCheckItem.from_parent(self, name="coverage", check="coverage")


class RuleCheckItem(ShownAsWritten):
    def __init__(self, *, check: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.user_properties.append((PROP_CHECK, check))

    def runtest(self) -> None:
        corpus = get_session(self.config).corpus(self.corpus_root)
        if self.check == "catalogue":
            problems = [str(p) for p in corpus.catalogue.problems]
            if problems:
                raise CorpusProblem("the rule catalogue has problems:\n  " + "\n  ".join(problems))
        else:
            missing = uncovered(corpus.catalogue, corpus.cited_rules)
            if missing:
                raise CorpusProblem(
                    f"{len(missing)} rule(s) of {corpus.catalogue.path} have no case:\n  "
                    + "\n  ".join(missing)
                )

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"rule catalogue: {self.check}"
