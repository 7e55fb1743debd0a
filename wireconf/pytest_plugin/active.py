"""The hooks of a run that uses wireconf: collection, the session, header and summary.

Registered by ``wireconf.pytest_plugin.plugin`` (the entry point, which defines the options) only when a
run uses wireconf. Only hooks live here; the work is done by the session, the items and the kind
drivers.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from wireconf import __version__
from wireconf.adapter_contract import out_of_process
from wireconf.corpus.loader import is_case_file
from wireconf.corpus.rules import RULES_FILE
from wireconf.pytest_plugin.installed_run import deselect_outside, plan_installed_run
from wireconf.pytest_plugin.items import CaseFile, CaseItem, RulesFile, plan_entries, streams_last
from wireconf.pytest_plugin.runners import CaseRunner, ForkedRunner
from wireconf.pytest_plugin.session import (
    SESSION_KEY,
    WireconfSession,
    corpus_root_of,
    get_session,
    resolved_folder,
)
from wireconf.pytest_plugin.summary import (
    late_faults,
    late_faults_section,
    receive_late_faults,
    send_late_faults,
)


class _Tallying:
    """Registered per config, so that nested runs (pytester) each count their own reports."""

    def __init__(self, session: WireconfSession) -> None:
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # On the xdist controller this receives the workers' reports too.
        self.session.tally.record(report)


class _Charging:
    """Registered per config: a case's runtime time is charged to its call phase (``CaseItem.charge``)
    before any other plugin reads the report (the terminal's ``--durations``, junitxml, an xdist
    worker's sending; a controller has no items of its own, its workers charged them)."""

    def __init__(self, session: WireconfSession) -> None:
        self.session = session

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown":  # charged nothing (``CaseItem.charge``)
            return
        item = self.session.case_items.get(report.nodeid)
        if isinstance(item, CaseItem):
            item.charge(report)


RECORDED_MODEL_WARNING = r"ignore:The model '.*' is deprecated:DeprecationWarning"
"""The anthropic SDK warns about the model id of a request; in replay the id is a recorded one (old by
nature), so the warning is about the cassette, never about the runtime under test."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", RECORDED_MODEL_WARNING)
    if config.getoption("wireconf_installed"):
        plan_installed_run(config)
    session = WireconfSession(config)
    config.stash[SESSION_KEY] = session
    config.pluginmanager.register(_Tallying(session), f"wireconf-tally-{id(config)}")
    config.pluginmanager.register(_Charging(session), f"wireconf-charge-{id(config)}")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix not in (".yaml", ".yml"):
        return None
    folder = resolved_folder(file_path.parent)
    root = corpus_root_of(folder)
    if root is None:
        return None
    if file_path.name == RULES_FILE and folder == root:
        return RulesFile.from_parent(parent, path=file_path, corpus_root=root)
    if is_case_file(folder / file_path.name, root):  # a symlink out of the corpus: its problem shows
        return CaseFile.from_parent(parent, path=file_path, corpus_root=root)
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_outside(config, items)
    kinds, apis = config.getoption("wireconf_kinds"), config.getoption("wireconf_apis")
    if not kinds and not apis:
        return
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        loaded = getattr(item, "loaded", None)
        selected = (
            loaded is not None and (not kinds or loaded.kind in kinds) and (not apis or loaded.api in apis)
        )
        (keep if selected else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """Hand the runner the run's cases, in the order pytest runs them, once: it decides what it starts
    early (``runners.Plan``); then start it (``CaseRunner.start_early``: the forked runner's process
    isolates itself while pytest begins the first item). For the forked runner, which works ahead, the
    cases whose input is an SDK stream run after the others (``items.streams_last``). Not on an xdist
    controller (its workers run the cases) nor on a worker, which is handed its items as it goes
    (``pytest_runtest_protocol``)."""
    config = session.config
    if hasattr(config, "workerinput") or config.pluginmanager.has_plugin("dsession"):
        return
    if session.config.option.collectonly:
        return
    wireconf = get_session(config)
    # pytest's own run loop stops at once after an error of collection: no runner for it
    stops = session.testsfailed and not config.option.continue_on_collection_errors
    runner: CaseRunner | None = None
    if not stops and any(isinstance(i, CaseItem) and i._unsupported is None for i in session.items):
        with contextlib.suppress(Exception):  # the first case makes it again: what fails is its error
            runner = wireconf.runner
    if isinstance(runner, ForkedRunner) and not wireconf.records:  # it works ahead of pytest
        streams_last(session.items)
    wireconf.plan.extend(plan_entries(session.items))  # before the fork: no page of it copied
    first = next((i for i in session.items if isinstance(i, CaseItem) and i._unsupported is None), None)
    if runner is not None and first is not None:  # its process isolates itself while pytest begins
        with contextlib.suppress(Exception):  # the first case starts it again: what fails is its error
            runner.start_early(first)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """On an xdist worker, the plan grows by the item it runs next, the only one it knows of."""
    if not hasattr(item.config, "workerinput"):
        return
    session = item.config.stash.get(SESSION_KEY, None)
    if session is None:
        return
    plan = session.plan
    last: object = plan.last()  # a case of the plan, or None: the item when it is already there
    if last is not item:
        plan.extend(plan_entries([item]))
    if nextitem is not None:
        plan.extend(plan_entries([nextitem]))


def pytest_report_header(config: pytest.Config) -> list[str]:
    session = get_session(config)
    impl = session.impl
    caps = ", ".join(sorted(impl.capabilities)) or "none"
    lines = [
        f"wireconf {__version__}: implementation {impl.name} {impl.version} ({impl.origin})",
        f"wireconf capabilities: {caps}; case timeout {session.timeout:g} s",
    ]
    for root in session.argument_corpora():
        lines.append(f"wireconf corpus {session.identity(root).label}: {root}")
    return lines


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """An ``exec:`` runtime's late faults (``summary.late_faults_section``) fail the run; an xdist
    worker's go to the controller (``summary.send_late_faults``)."""
    wireconf = session.config.stash.get(SESSION_KEY, None)
    remote = out_of_process(wireconf.impl.adapter) if wireconf is not None else None
    own = remote.late_faults if remote is not None else []
    send_late_faults(session.config, own)
    if late_faults(session.config, own) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """xdist, on the controller: a worker's runtime's late faults, sent with the worker's output."""
    config = getattr(node, "config", None)
    if isinstance(config, pytest.Config):
        receive_late_faults(config, getattr(node, "workeroutput", None))


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    if hasattr(config, "workerinput"):
        return
    session = get_session(config)
    remote = out_of_process(session.impl.adapter)
    late = late_faults_section(late_faults(config, remote.late_faults if remote is not None else []))
    if late:
        terminalreporter.write_sep("=", "wireconf: the runtime's late faults", red=True, bold=True)
        for line in late:
            terminalreporter.write_line(line, red=True)
    lines = session.tally.render(session.impl_label)
    if not lines:
        return
    terminalreporter.write_sep("=", "wireconf conformance")
    for line in lines:
        terminalreporter.write_line(line)
    abandoned = getattr(session.used_runner, "abandoned", 0)
    if abandoned:
        terminalreporter.write_line(
            f"{abandoned} adapter call(s) overran --case-timeout and were abandoned (thread runner)"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the case runner and an out-of-process runtime (``exec:``) when the run ends."""
    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.close()
