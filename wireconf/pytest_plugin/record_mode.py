"""Record and replay in the pytest plugin: ``--record-mode``, keys kept out of everything reported, and
what the terminal summary says about cassettes (recorded, refused, unused) and the network.

Whatever a report carries (the failure text, captured output and logs, the diff and message that
``--report`` writes, what JUnit and the terminal show) has every rendering of the environment's key
values replaced before any other plugin sees it, so that a key a runtime echoed never reaches a CI
artifact; the cases' own text was already computed from redacted values, so nothing was cut in the
middle of a key.

Registered by ``wireconf.pytest_plugin.plugin`` in a run that uses wireconf; the option is defined in
``wireconf.pytest_plugin.options``. When pytest-recording is installed it owns ``--record-mode`` (same
name, same vcrpy meanings); wireconf then reads that option instead of adding its own, so the two
plugins live in one session.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeGuard

import pytest

from wireconf.cassettes.lock import remove_orphans
from wireconf.cassettes.recording import MODES, RecordingPolicy
from wireconf.core.report_text import MAX_CHARS, report_text
from wireconf.core.untyped import JSON
from wireconf.corpus.unused import is_full_run, unused
from wireconf.providers.secret_values import key_values, redact
from wireconf.pytest_plugin.ci import PROP_DIFF, PROP_REASON
from wireconf.pytest_plugin.items import CaseItem
from wireconf.pytest_plugin.session import POLICY_KEY, get_session
from wireconf.pytest_plugin.summary import PROP_RECORDED

RECORD_TIMEOUT = 300.0
"""--case-timeout in record mode, unless given: a real provider takes seconds, not milliseconds."""

REFUSED_MARK = "RECORDING REFUSED"

_UNUSED = pytest.StashKey[list[str] | None]()
_WORKER_KEY = "wireconf_unused"


def _mode(config: pytest.Config) -> str:
    mode = str(config.getoption("record_mode", default="none") or "none")
    return "all" if mode == "rewrite" else mode  # pytest-recording's rewrite: re-record everything


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    mode = _mode(config)
    if mode not in MODES:
        raise pytest.UsageError(f"--record-mode={mode}: wireconf knows {', '.join(MODES)}")
    config.stash[POLICY_KEY] = RecordingPolicy(mode)
    given = any(str(arg).startswith("--case-timeout") for arg in config.invocation_params.args)
    if mode != "none" and not given:
        session = get_session(config)
        session.timeout = max(session.timeout, RECORD_TIMEOUT)


def pytest_report_header(config: pytest.Config) -> list[str]:
    mode = _mode(config)
    if mode == "none":
        return ["wireconf replay: cassettes only, network blocked for the whole run"]
    return [f"wireconf RECORD MODE {mode}: e2e cases may call the real providers with the keys set"]


# --- keys kept out of reports ---------------------------------------------------------------------


SHORT_TEXT = 1024
"""A property no longer than this is redacted once per process for a set of keys (``_redacted_short``):
a case's properties (its id, api, kind, rules, corpus) come back in each of its three reports, most
of them in every case's."""


@lru_cache(maxsize=4096)
def _redacted_short(value: str, values: tuple[tuple[str, str], ...]) -> str:
    return redact(value, dict(values))


def _redacted(value: JSON, values: dict[str, str]) -> JSON:
    if not isinstance(value, str):
        return value
    if len(value) <= SHORT_TEXT:
        return _redacted_short(value, tuple(values.items()))
    return redact(value, values)


_BOUNDED_PROPERTIES = frozenset({PROP_DIFF, PROP_REASON})
"""The report's user properties that are text for people, each cut as a whole; the others are data
(JSON, or a scalar), whose every string is cut instead, so that they stay data (``_bounded_property``)."""


def _bounded_data(data: JSON) -> JSON:
    """``data`` with every string in it (keys too) made fit for a report (``report_text``)."""
    if isinstance(data, str):
        return report_text(data)
    if isinstance(data, list):
        return [_bounded_data(item) for item in data]
    if isinstance(data, dict):
        return {report_text(str(k)): _bounded_data(v) for k, v in data.items()}
    return data


def _bounded_property(key: str, value: JSON) -> JSON:
    """A user property as every report carries it (pytest's ``--junitxml`` writes each one whole): text
    cut, and a JSON value longer than a text may be (a difference quoting a runtime's 50 MB exception)
    cut string by string, still JSON."""
    if not isinstance(value, str):
        return value
    if key in _BOUNDED_PROPERTIES:
        return report_text(value)
    if len(value) <= MAX_CHARS:
        return value
    try:
        data = json.loads(value)
    except ValueError:
        return report_text(value)
    return json.dumps(_bounded_data(data))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[Any]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """The outermost wrapper: runs after every other plugin has filled the report in. Keys are
    redacted, then every text bounded and made encodable (``wireconf.core.report_text``): a runtime's
    300 MB of stderr or its lone surrogate reaches no report."""
    report = yield
    values = key_values()
    if report.longrepr is not None:
        text = str(report.longrepr)
        shown = report_text(redact(text, values))
        if shown != text:
            report.longrepr = shown
    if report.sections:
        report.sections = [(title, report_text(redact(c, values))) for title, c in report.sections]
    properties = report.user_properties
    rebuild = bool(values)
    for key, value in properties:  # most reports: no key set, nothing to cut (a loop, not a call each)
        if rebuild:
            break
        rebuild = key in _BOUNDED_PROPERTIES or (isinstance(value, str) and len(value) > MAX_CHARS)
    if rebuild:
        report.user_properties = [
            (key, _bounded_property(key, _redacted(value, values) if values else value))
            for key, value in properties
        ]
    return report


# --- reporting: recorded, refused, unused, the network ---------------------------------------------


def _is_case(item: pytest.Item) -> TypeGuard[CaseItem]:
    return isinstance(item, CaseItem)


def pytest_collection_finish(session: pytest.Session) -> None:
    cases = [item for item in session.items if _is_case(item)]
    session.config.stash[_UNUSED] = None
    if not cases:
        return
    parent = cases[0].parent
    root = getattr(parent, "corpus_root", None)
    if root is None:
        return
    wireconf = get_session(session.config)
    remove_orphans(wireconf.cassettes_root(root))  # what a write killed midway left
    corpus = wireconf.corpus(root)
    if not is_full_run(corpus, (item.loaded.id for item in cases)):
        return
    found = unused(corpus, wireconf.cassettes_root(root))
    session.config.stash[_UNUSED] = found
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[_WORKER_KEY] = found


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: keep what a worker found (every worker collects the same selection)."""
    found = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
    if found is not None:
        node.config.stash[_UNUSED] = found


def _relative(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    if hasattr(config, "workerinput"):
        return
    # only a recording run records cassettes or has a recording refused: a replay's reports hold neither
    recording = _mode(config) != "none"
    reports = [r for key in ("passed", "failed", "error") for r in terminalreporter.stats.get(key, [])]
    reports = reports if recording else []
    # collection errors are CollectReports, which have no user_properties
    recorded = sorted(
        {value for r in reports for key, value in getattr(r, "user_properties", ()) if key == PROP_RECORDED}
    )
    refused = [r for r in reports if r.failed and REFUSED_MARK in str(r.longrepr)]
    found = config.stash.get(_UNUSED, None)
    runner = get_session(config).used_runner
    if runner is not None and (terminalreporter.verbosity > 0 or recording):
        terminalreporter.write_sep("-", "wireconf network")
        terminalreporter.write_line(
            f"network blocked for the whole run ({runner.name} runner): {runner.network}"
        )
    if not (recorded or refused or found):
        return
    terminalreporter.write_sep("=", "wireconf cassettes")
    for path in recorded:
        terminalreporter.write_line(f"recorded {_relative(path)}")
    if refused:
        terminalreporter.write_line(
            f"{len(refused)} recording(s) REFUSED: a secret was found after scrubbing; nothing was written "
            "for them (see the failures above)",
            red=True,
            bold=True,
        )
    if found:
        shown = found if config.get_verbosity() > 0 else found[:5]
        more = "" if len(shown) == len(found) else f" (first {len(shown)}; -v lists all)"
        terminalreporter.write_line(f"{len(found)} cassette(s) are used by no case{more}:")
        for name in shown:
            terminalreporter.write_line(f"  {name}")
