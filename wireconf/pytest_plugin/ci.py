"""The CI side of the plugin: ``--baseline`` / ``--update-baseline`` (the regression gate),
``--report`` (one JSON line per case) and ``--shard i/n`` (one part of the run per machine).

The gate acts where each verdict is made (on the xdist worker that ran the case): a listed failure is
turned into an xfail with the baseline's reason, a listed case that passes into a failure that says
so, and an unlisted failure is named a *regression* (the baseline saw it pass, unchanged) or *new*
(it did not; ``--allow-new-failures`` turns those into xfails). Everything the controller needs
travels in the reports' ``user_properties``, so the report file and the baseline update are written
once, by the process that sees every verdict.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Generator
from pathlib import Path
from typing import IO, Any

import pytest

from wireconf.cassettes.lock import cassette_lock
from wireconf.corpus.identity import CorpusIdentity
from wireconf.providers.contract import judged_by, versions_line
from wireconf.pytest_plugin.items import CaseFailed, CaseItem
from wireconf.pytest_plugin.session import get_session
from wireconf.pytest_plugin.shard import Shard, parse_shard
from wireconf.pytest_plugin.summary import (
    INEXPRESSIBLE,
    PROP_API,
    PROP_BASELINE,
    PROP_CASE,
    PROP_CORPUS,
    PROP_DIFFERENCES,
    PROP_EXPECTED_REJECTED,
    PROP_FAILING_PROFILES,
    PROP_KIND,
    PROP_OUTSIDE_PROFILE,
    PROP_PROBLEM,
    PROP_RULES,
    PROP_STALE_WAIVERS,
    PROP_TIER,
    PROP_UNSUPPORTED,
    PROP_WAIVED,
    classify,
)
from wireconf.reports.baseline import (
    EXPECTED,
    FIXED,
    NEW,
    REGRESSION,
    UNLISTED,
    Baseline,
    BaselineError,
    load_baseline,
)
from wireconf.reports.gate import GatedCase, decide
from wireconf.reports.jsonl import CaseRecord
from wireconf.reports.reason_check import true_explanations, true_reason

PROP_DIFF = "wireconf_diff"
PROP_REASON = "wireconf_reason"
PROP_LOCATION = "wireconf_location"
PROP_FINGERPRINT = "wireconf_fingerprint"
PROP_ACCEPTED = "wireconf_accepted"  # a failure the gate let pass: expected, or new with --allow-new-failures

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
MAX_LISTED = 10  # case ids listed per baseline category in the terminal summary

BASELINE_KEY = pytest.StashKey[Baseline | None]()
SHARD_KEY = pytest.StashKey[Shard | None]()


@pytest.hookimpl(trylast=True)  # after the plugin's own, which creates the session
def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("wireconf_baseline")
    update = config.getoption("wireconf_update_baseline")
    if update and not path:
        raise pytest.UsageError("--update-baseline needs --baseline FILE (the file to write)")
    if config.getoption("wireconf_allow_new_failures") and not path:
        raise pytest.UsageError("--allow-new-failures needs --baseline FILE (new is relative to a baseline)")
    try:
        baseline = load_baseline(Path(path), missing_ok=update) if path else None
    except BaselineError as exc:
        raise pytest.UsageError(str(exc)) from exc
    config.stash[BASELINE_KEY] = baseline
    if baseline is not None:
        session = get_session(config)
        session.waivers = baseline.waivers
        session.updating_baseline = update
    shard = config.getoption("wireconf_shard")
    try:
        config.stash[SHARD_KEY] = parse_shard(shard) if shard else None
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from exc
    # the records are for the report file and the baseline: without either, a run does not build them
    wanted = baseline is not None or config.getoption("wireconf_report")
    if wanted and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Controller(config, baseline), f"wireconf-ci-{id(config)}")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shard = config.stash.get(SHARD_KEY, None)
    if shard is None:
        return
    keep = [item for item in items if shard.holds(_shard_key(item))]
    drop = [item for item in items if not shard.holds(_shard_key(item))]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _shard_key(item: pytest.Item) -> str:
    loaded = getattr(item, "loaded", None)
    return loaded.id if loaded is not None else item.nodeid


def pytest_report_header(config: pytest.Config) -> list[str]:
    lines = [f"wireconf: {versions_line()}"]
    baseline = config.stash.get(BASELINE_KEY, None)
    if baseline is not None:
        lines += _baseline_header(config, baseline)
    shard = config.stash.get(SHARD_KEY, None)
    if shard is not None:
        lines.append(f"wireconf shard {shard}")
    return lines


def _baseline_header(config: pytest.Config, baseline: Baseline) -> list[str]:
    session = get_session(config)
    mode = "update" if config.getoption("wireconf_update_baseline") else "gate"
    written = f" for {baseline.impl} {baseline.version or ''}".rstrip() if baseline.impl else ""
    against = f", written against corpus {baseline.corpus.label}" if baseline.corpus else ""
    passed = "" if baseline.passed is None else f", {len(baseline.passed)} passed case(s)"
    lines = [
        f"wireconf baseline ({mode}): {baseline.path}{written}{against}: "
        f"{len(baseline.expected)} expected failure(s){passed}"
    ]
    if baseline.impl not in (None, session.impl.name):
        lines.append(
            f"wireconf baseline WARNING: the file is for {baseline.impl}, the run is {session.impl.name}"
        )
    if baseline.passed is None:
        lines.append(
            "wireconf baseline: the file does not record passed cases (an older format): an unlisted "
            "failure cannot be told new from regression and fails the run; --update-baseline adds them"
        )
    now = [session.identity(root) for root in session.argument_corpora()]
    if baseline.corpus is not None and now and baseline.corpus.hash not in {i.hash for i in now}:
        policy = "failing the run (--allow-new-failures reports them only)"
        if config.getoption("wireconf_allow_new_failures"):
            policy = "reported, not failing the run"
        lines.append(
            f"wireconf baseline: the corpus changed since ({baseline.corpus.label} -> "
            f"{', '.join(i.label for i in now)}): failures of cases added or changed since are new, {policy}"
        )
    return lines


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report: pytest.TestReport = yield
    if not isinstance(item, CaseItem):
        return report
    if call.excinfo is not None and isinstance(call.excinfo.value, CaseFailed):
        report.user_properties.append((PROP_DIFF, "\n".join(call.excinfo.value.diff)))
    if report.when == "setup":
        report.user_properties.append((PROP_LOCATION, _relative_location(item)))
        if report.skipped and isinstance(report.longrepr, tuple):
            report.user_properties.append((PROP_REASON, str(report.longrepr[2])))
    baseline = item.config.stash.get(BASELINE_KEY, None)
    if baseline is not None and report.when == "call":
        _gate(item, report, baseline)
    return report


def _relative_location(item: CaseItem) -> str:
    """``path:line`` of the case, the same on every machine (``CaseItem.where``)."""
    return item.where(item.loaded.line)


def _gate(item: CaseItem, report: pytest.TestReport, baseline: Baseline) -> None:
    """Apply the baseline to the verdict of one case (its call phase): the policy is
    ``wireconf.reports.gate.decide``; here its decision is written into pytest's report."""
    config = item.config
    fingerprint = get_session(config).fingerprint(item.corpus_root, item.loaded)
    report.user_properties.append((PROP_FINGERPRINT, fingerprint))
    props: dict[str, Any] = dict(report.user_properties)  # the values wireconf's items put there
    case = GatedCase(
        case_id=item.loaded.id,
        fingerprint=fingerprint,
        failed=report.failed,
        passed=report.passed,
        outside_profile=PROP_OUTSIDE_PROFILE in props,
        differences_left=PROP_DIFFERENCES in props,
        stale=tuple(json.loads(props.get(PROP_STALE_WAIVERS, "[]"))),
    )
    decision = decide(
        baseline,
        case,
        updating=config.getoption("wireconf_update_baseline"),
        allow_new=config.getoption("wireconf_allow_new_failures"),
    )
    if decision.kind is None or decision.reason is None:
        return
    if decision.accepted is not None:
        _accept(report, decision.kind, decision.reason, decision.accepted)
        return
    report.user_properties += [(PROP_BASELINE, decision.kind), (PROP_REASON, decision.reason)]
    if decision.section is not None:
        report.sections.append(("wireconf baseline", decision.section))
    if decision.fails_run is not None:
        report.outcome = "failed"
        report.longrepr = decision.fails_run


def _accept(report: pytest.TestReport, kind: str, reason: str, wasxfail: str) -> None:
    """A failure the gate lets pass: shown by pytest as xfailed, still a failure in every report."""
    report.user_properties += [(PROP_BASELINE, kind), (PROP_REASON, reason), (PROP_ACCEPTED, True)]
    report.outcome = "skipped"
    report.wasxfail = wasxfail


class _Controller:
    """Collects every case's verdict (its own or the xdist workers') for the report and the update."""

    def __init__(self, config: pytest.Config, baseline: Baseline | None) -> None:
        self.config = config
        self.baseline = baseline
        path = config.getoption("wireconf_report")
        self.report_path = Path(path) if path else None
        self._out: IO[str] | None = None
        self._pending: dict[str, CaseRecord] = {}
        self.records: list[CaseRecord] = []
        self.fingerprints: dict[str, str] = {}
        self.inexpressible: set[str] = set()
        """Cases the adapter said it cannot express: no failure to expect any more (the update drops them)."""

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.report_path is not None:
            self.report_path.parent.mkdir(parents=True, exist_ok=True)
            # records are encodable (CaseRecord.to_json): the error handler is for what slips past it
            self._out = self.report_path.open("w", encoding="utf-8", errors="backslashreplace")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props: dict[str, Any] = dict(report.user_properties)
        if PROP_CASE not in props and PROP_PROBLEM not in props:
            return
        record = self._pending.get(report.nodeid)
        if record is None:
            record = self._pending[report.nodeid] = self._new_record(props)
        record.duration += report.duration
        outcome = classify(report, props) if PROP_CASE in props else ("error" if report.failed else None)
        if outcome is not None and record.status in ("passed", "pending"):
            record.status = outcome
            if outcome != "passed" or props.get(PROP_BASELINE) == FIXED:
                record.message = str(report.longrepr) if report.longrepr else None
        for key, attr in (
            (PROP_DIFF, "diff"),
            (PROP_BASELINE, "baseline"),
            (PROP_REASON, "reason"),
            (PROP_ACCEPTED, "accepted"),
        ):
            if key in props:
                setattr(record, attr, props[key])
        for key, attr in (
            (PROP_DIFFERENCES, "differences"),
            (PROP_WAIVED, "waived"),
            (PROP_EXPECTED_REJECTED, "expected_rejected"),
        ):
            if key in props:
                setattr(record, attr, json.loads(props[key]))
        record.tier = props.get(PROP_TIER) or record.tier
        record.outside_profile = props.get(PROP_OUTSIDE_PROFILE, record.outside_profile)
        if PROP_FAILING_PROFILES in props:
            record.failing_profiles = [p for p in props[PROP_FAILING_PROFILES].split(",") if p]
        if PROP_FINGERPRINT in props:
            self.fingerprints[record.id] = props[PROP_FINGERPRINT]
        if props.get(PROP_UNSUPPORTED) == INEXPRESSIBLE:
            self.inexpressible.add(record.id)
        record.location = props.get(PROP_LOCATION, record.location)
        if report.when == "teardown":
            self._finish(self._pending.pop(report.nodeid))

    def _new_record(self, props: dict[str, Any]) -> CaseRecord:
        impl = get_session(self.config).impl
        shard = self.config.stash.get(SHARD_KEY, None)
        problem = props.get(PROP_PROBLEM)
        root = props.get(PROP_CORPUS)
        corpus = get_session(self.config).identity(Path(root)) if root else None
        return CaseRecord(
            impl=impl.name,
            version=impl.version,
            id=problem or props[PROP_CASE],
            kind=None if problem else props.get(PROP_KIND),
            api=None if problem else props.get(PROP_API),
            rules=[r for r in str(props.get(PROP_RULES, "")).split(",") if r],
            status="pending",
            duration=0.0,
            shard=None if shard is None else str(shard),
            corpus=corpus.version if corpus else None,
            corpus_hash=corpus.hash if corpus else None,
            python=PYTHON,
            judged_by=None if problem else judged_by(props.get(PROP_API)),
        )

    def _finish(self, record: CaseRecord) -> None:
        if record.status == "pending":  # a phase that settled nothing (cannot happen for a full run)
            record.status = "error"
        record.duration = round(record.duration, 6)
        self.records.append(record)
        if self._out is not None:
            self._out.write(record.to_json() + "\n")
            self._out.flush()

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None
        if self.baseline is not None and self.config.getoption("wireconf_update_baseline"):
            self.baseline = self._locked_update(self.baseline.path)

    def _locked_update(self, path: Path) -> Baseline:
        """Update the baseline as it is on disk now, under its lock: another run that updated it since
        this one started (a disjoint selection, another shard) keeps what it wrote, and this run
        changes only the entries of the cases it ran."""
        with cassette_lock(path):
            try:
                baseline = load_baseline(path, missing_ok=True)
            except BaselineError as exc:  # rewritten with something unreadable while the run ran
                raise pytest.UsageError(str(exc)) from exc
            self._update_baseline(baseline)
        return baseline

    def _update_baseline(self, baseline: Baseline) -> None:
        impl = get_session(self.config).impl
        passed = dict(baseline.passed or {})
        corpora: Counter[tuple[str | None, str]] = Counter()
        for record in self.records:
            if record.kind is None:  # a corpus problem, not a case
                continue
            if record.corpus_hash is not None:
                corpora[(record.corpus, record.corpus_hash)] += 1
            if record.status == "passed":
                baseline.expected.pop(record.id, None)
                if record.id in self.fingerprints:
                    passed[record.id] = self.fingerprints[record.id]
                continue
            passed.pop(record.id, None)  # failing, unsupported or not judged now
            if record.id in self.inexpressible:  # the runtime cannot be handed the input: nothing fails
                baseline.expected.pop(record.id, None)
            if record.status == "failed":  # a kept reason stays only while it is true of the failure
                baseline.expected[record.id] = true_reason(
                    baseline.expected.get(record.id),
                    record.broken,
                    record.diff,
                    record.message,
                    record.differences,
                )
                if record.id in baseline.explanations:  # each kept only while true of its rule's difference
                    explained = baseline.explanations[record.id]
                    baseline.explanations[record.id] = true_explanations(explained, record.differences or [])
        baseline.passed = passed
        if corpora:
            baseline.corpus = CorpusIdentity(*corpora.most_common(1)[0][0])
        waived = {(w["waiver"], record.id) for record in self.records for w in record.waived or []}
        run = {r.id for r in self.records}
        for waiver in baseline.waivers:  # each waiver lists the cases it matched in this run
            kept = [c for c in waiver.cases if c not in run]  # cases not run here stay listed
            waiver.cases = sorted({*kept, *(case for label, case in waived if label == waiver.label)})
        baseline.impl, baseline.version = impl.name, impl.version
        baseline.save()

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        lines = []
        if self.baseline is not None:
            lines += self._baseline_summary(self.baseline)
        if self.report_path is not None:
            lines.append(f"report: {self.report_path} ({len(self.records)} cases)")
        if lines:
            terminalreporter.write_sep("-", "wireconf CI")
            for line in lines:
                terminalreporter.write_line(line)

    def _baseline_summary(self, baseline: Baseline) -> list[str]:
        counts = Counter(r.baseline for r in self.records)
        if self.config.getoption("wireconf_update_baseline"):
            added = counts[REGRESSION] + counts[NEW] + counts[UNLISTED]
            return [
                f"baseline {baseline.path} updated: {len(baseline.expected)} expected failure(s) "
                f"({added} added, {counts[FIXED]} removed because they pass), "
                f"{len(baseline.passed or {})} passed case(s), corpus "
                f"{baseline.corpus.label if baseline.corpus else 'unknown'}"
            ]
        allowed = self.config.getoption("wireconf_allow_new_failures")
        new = f"{counts[NEW]} new failure(s)" + (
            " (allowed by --allow-new-failures)" if allowed and counts[NEW] else ""
        )
        lines = [
            f"baseline {baseline.path}: {counts[EXPECTED]} expected failure(s), "
            f"{counts[REGRESSION]} regression(s), {new}, {counts[FIXED]} listed case(s) now passing"
        ]
        if counts[UNLISTED]:
            lines.append(
                f"{counts[UNLISTED]} unlisted failure(s): the baseline records no passed cases, so they "
                "cannot be told new from regression (--update-baseline records them)"
            )
        for kind in (REGRESSION, NEW, UNLISTED, FIXED):
            ids = sorted(r.id for r in self.records if r.baseline == kind)
            if ids:
                shown = ", ".join(ids[:MAX_LISTED]) + (
                    f", ... ({len(ids) - MAX_LISTED} more)" if len(ids) > MAX_LISTED else ""
                )
                lines.append(f"  {kind}: {shown}")
        return lines
