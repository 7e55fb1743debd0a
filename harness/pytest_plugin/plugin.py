"""The pytest plugin (entry point ``pytest11: wireconf``): options, collection, header and summary.

Only hooks live here; the work is done by the session, the items and the kind drivers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import __version__
from harness.corpus.installed import CorpusNotFound, installed_corpus
from harness.corpus.loader import is_case_file
from harness.corpus.rules import RULES_FILE
from harness.judging.profile import PROFILES
from harness.kinds.registry import KIND_NAMES
from harness.providers.registry import API_NAMES
from harness.pytest_plugin.items import CaseFile, RulesFile
from harness.pytest_plugin.runner import DEFAULT_RUNNER, RUNNERS
from harness.pytest_plugin.session import (
    SESSION_KEY,
    WireconfSession,
    corpus_root_of,
    get_session,
    resolved_folder,
)
from harness.pytest_plugin.timeout import timeout_seconds

DEFAULT_CASE_TIMEOUT = 5.0

# The other parts of the plugin, each a module of its own (pytest honours this in plugin modules).
pytest_plugins = [
    "harness.pytest_plugin.record_mode",
    "harness.pytest_plugin.ci",
    "harness.pytest_plugin.frozen_heap",
    "harness.pytest_plugin.corpus_guard",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("wireconf", "wireconf conformance corpus")
    group.addoption(
        "--wireconf",
        dest="wireconf_installed",
        action="store_true",
        default=False,
        help="run the corpus installed with wireconf, from any directory: it replaces pytest's default "
        "paths (testpaths or the current directory); paths given on the command line are run too",
    )
    group.addoption(
        "--impl",
        dest="wireconf_impl",
        default="reference",
        metavar="IMPL",
        help="implementation under test: an entry point of the group wireconf.adapters (e.g. reference), "
        "module:attribute, or module (default: reference)",
    )
    group.addoption(
        "--case-timeout",
        dest="wireconf_case_timeout",
        type=timeout_seconds,
        default=DEFAULT_CASE_TIMEOUT,
        metavar="SECONDS",
        help="time limit per case for everything the runtime's code can make hang (the adapter call, "
        "canonicalising and judging its result; an exec: restart may take twice the runtime's first "
        "start if that is longer); the harness's preparation of the inputs has a budget of its own; 0 "
        f"disables it (default: {DEFAULT_CASE_TIMEOUT:g})",
    )
    group.addoption(
        "--case-runner",
        dest="wireconf_case_runner",
        choices=RUNNERS,
        default=DEFAULT_RUNNER,
        help="where in-process adapters run: process (a forked process with no network, killed when a "
        "case overruns: the time limit holds whatever the adapter does) or thread (a thread abandoned "
        f"on timeout; for platforms without fork, debuggers and coverage) (default: {DEFAULT_RUNNER})",
    )
    group.addoption(
        "--profile",
        dest="wireconf_profile",
        choices=tuple(PROFILES),
        default="full",
        help="the rules a failure must break to fail the run: spec (the spec's text and pseudocode only; "
        "a deviation from a project decision or from Prompty's vectors is reported as xfailed), interop "
        "(what the provider would do: every rule, but a difference the provider treats as the same "
        "request is representation, xfailed when nothing else differs) or full (every rule; the default). "
        "The three profiles' figures are always reported",
    )
    group.addoption(
        "--kind",
        dest="wireconf_kinds",
        action="append",
        default=[],
        metavar="KIND",
        help=f"run only cases of this kind ({', '.join(KIND_NAMES)}); repeatable",
    )
    group.addoption(
        "--api",
        dest="wireconf_apis",
        action="append",
        default=[],
        metavar="API",
        help=f"run only cases of this api ({', '.join(API_NAMES)}); repeatable",
    )
    group.addoption(
        "--cassettes",
        dest="wireconf_cassettes",
        default=None,
        metavar="DIR",
        help="folder of cassettes (default: the 'cassettes' folder beside the corpus)",
    )


class _Tallying:
    """Registered per config, so that nested runs (pytester) each count their own reports."""

    def __init__(self, session: WireconfSession) -> None:
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # On the xdist controller this receives the workers' reports too.
        self.session.tally.record(report)


RECORDED_MODEL_WARNING = r"ignore:The model '.*' is deprecated:DeprecationWarning"
"""The anthropic SDK warns about the model id of a request; in replay the id is a recorded one (old by
nature), so the warning is about the cassette, never about the runtime under test."""


def _add_installed_corpus(config: pytest.Config) -> None:
    """``--wireconf``: collect the installed corpus. Node ids are then relative to the corpus folder
    (``wire/openai.chat/options.yaml::<case id>``) unless it lies under pytest's rootdir (a checkout)."""
    try:
        root = str(installed_corpus())
    except CorpusNotFound as exc:
        raise pytest.UsageError(f"--wireconf: {exc}") from exc
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = [root]
    elif root not in config.args:
        config.args.append(root)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", RECORDED_MODEL_WARNING)
    if config.getoption("wireconf_installed"):
        _add_installed_corpus(config)
    session = WireconfSession(config)
    config.stash[SESSION_KEY] = session
    config.pluginmanager.register(_Tallying(session), f"wireconf-tally-{id(config)}")


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
    kinds, apis = config.getoption("wireconf_kinds"), config.getoption("wireconf_apis")
    if not kinds and not apis:
        return
    keep, drop = [], []
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
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Note the item pytest runs after this one: a case's runner may start it early."""
    session = item.config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.upcoming = nextitem


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


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    session = get_session(config)
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
