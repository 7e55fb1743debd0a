"""A run's verdicts hold only for the corpus it started with: every file of each corpus the run
judges against is hashed when the run starts (the command line's corpora, in ``pytest_configure``,
before an ``exec:`` runtime is started: ``corpus_snapshot``; a corpus found only by collecting, when
collection ends), compared when collection ends and again when the session ends, and a file that
changed, appeared, went away or was rewritten in between fails the run with an error naming it. A
change found at collection stops the run before any case runs: its cases were read from it.

A corpus file that cannot be read at all (a case file or the catalogue: not UTF-8, not YAML) fails
every run that collects from its corpus, whatever it selects, with one error naming it
(``items.unreadable_items``): a selection must never turn it into cases silently skipped.

A runtime (or anything else on the machine) that edits ``cases/`` while it is judged could make its
own expectations; the case files are read at collection, but the data files, the rules and a later
``wireconf`` command read them again. The check is cheap (the corpus is a few megabytes, hashed twice)
and it runs in the pytest process, which a runtime under the forked runner or ``exec:`` never ran in.

The cassettes are that evidence too, and the run fails the same way when something no process the
harness knows wrote into their folder while a case ran (``wireconf.cassettes.watch``: not the case's
runtime, which is that case's error, nor another wireconf process recording there): the process that
ran the case says so on the case's report (``PROP_UNKNOWN_WRITES``), which reaches an xdist controller
as well, and the run names the files and the cases that were running.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path

import pytest

from wireconf.cassettes import netns
from wireconf.pytest_plugin.corpus_snapshot import SNAPSHOTS, Snapshot, changes, restat, take
from wireconf.pytest_plugin.items import PROP_UNKNOWN_WRITES, unreadable_items
from wireconf.pytest_plugin.session import get_session

_HASHES = pytest.StashKey[dict[Path, Snapshot]]()
"""Each corpus's files as the run started (``corpus_snapshot``), what the later comparisons are to."""
_CHANGED = pytest.StashKey[list[str]]()
_BEFORE_COLLECTED = pytest.StashKey[int]()
"""How many of ``_CHANGED`` were found when collection ended (no case ran)."""
_UNKNOWN = pytest.StashKey[dict[str, list[str]]]()
"""Files of a cassettes folder no known process wrote, each with the cases that were running."""


def _roots(session: pytest.Session) -> set[Path]:
    roots = {root for item in session.items if (root := getattr(item, "corpus_root", None)) is not None}
    return roots | set(get_session(session.config).argument_corpora())


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> Generator[None, None, None]:
    """Once every plugin has selected (``-k``, ``--kind``, ``--shard``, the paths given), a corpus file
    that cannot be read is put back first (``items.unreadable_items``): it fails any run, naming it."""
    yield
    items[:0] = unreadable_items(session, items)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Compare each corpus the run started with (hashed in ``pytest_configure``) with what it is now,
    and hash the others (found only by collecting). A change stops the run before its first case:
    the cases were read from the changed files. Every sandbox made from now on shows every root
    read-only (``netns.protect``)."""
    started = session.config.stash.get(SNAPSHOTS, {})
    hashed: dict[Path, Snapshot] = {}
    found = []
    for root in sorted(_roots(session)):
        if root in started:
            hashed[root] = started[root]
            found += [f"{root / line}" for line in changes(started[root], restat(root, started[root]))]
        else:
            hashed[root] = take(root)
    session.config.stash[_HASHES] = hashed
    session.config.stash[_CHANGED] = found
    session.config.stash[_BEFORE_COLLECTED] = len(found)
    netns.protect([str(root) for root in hashed])


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """No case runs from a corpus that changed before it was collected (``pytest_collection_finish``)."""
    if session.config.stash.get(_BEFORE_COLLECTED, 0):
        raise session.Failed("wireconf: the corpus changed before its cases were collected")


class _UnknownWrites:
    """Registered per config (nested runs each keep their own): the unknown writes a case's report names
    (on an xdist controller, its workers' reports), by file, with the cases that were running."""

    def __init__(self, config: pytest.Config) -> None:
        self.found = config.stash.setdefault(_UNKNOWN, {})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key != PROP_UNKNOWN_WRITES or not isinstance(value, str):
                continue
            try:
                paths = json.loads(value)
            except ValueError:
                continue
            for path in paths if isinstance(paths, list) else []:
                cases = self.found.setdefault(str(path), [])
                if report.nodeid not in cases:
                    cases.append(report.nodeid)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_UnknownWrites(config), f"wireconf-unknown-writes-{id(config)}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    hashed = session.config.stash.get(_HASHES, {})
    found = session.config.stash.get(_CHANGED, [])
    found += [
        line
        for root, before in hashed.items()
        for line in (f"{root / change}" for change in changes(before, take(root)))
        if line not in found
    ]
    session.config.stash[_CHANGED] = found
    unknown = session.config.stash.get(_UNKNOWN, {})
    if (found or unknown) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    _unknown_summary(terminalreporter, config.stash.get(_UNKNOWN, {}))
    found = config.stash.get(_CHANGED, [])
    if not found:
        return
    terminalreporter.write_sep("=", "wireconf: the corpus changed during the run", red=True, bold=True)
    terminalreporter.write_line(
        f"error: {len(found)} corpus file(s) changed after the run started (hashed before any runtime "
        "ran) while the run judged against them, so its verdicts are not results (the run fails):",
        red=True,
    )
    if config.stash.get(_BEFORE_COLLECTED, 0):
        terminalreporter.write_line(
            f"{config.stash[_BEFORE_COLLECTED]} of them before its cases were collected (the cases were read "
            "from the changed files): no case was run.",
            red=True,
        )
    for line in found:
        terminalreporter.write_line(f"  {line}")
    terminalreporter.write_line("Restore the corpus (git status / git checkout cases/) and run again.")


def _unknown_summary(terminalreporter: pytest.TerminalReporter, unknown: dict[str, list[str]]) -> None:
    if not unknown:
        return
    terminalreporter.write_sep("=", "wireconf: the cassettes changed during the run", red=True, bold=True)
    terminalreporter.write_line(
        f"error: {len(unknown)} file(s) of the cassettes folder changed while cases ran, written by no "
        "process the harness knows (neither a case's runtime nor a wireconf process recording), so the "
        "run's verdicts may rest on evidence that changed under them (the run fails; no case is blamed):",
        red=True,
    )
    for path, cases in sorted(unknown.items()):
        terminalreporter.write_line(f"  {path} (while {', '.join(cases)} ran)")
    terminalreporter.write_line("Find what wrote them, restore the cassettes (git status) and run again.")
