"""Every command-line option of the plugin, defined without importing anything of wireconf's.

pytest reads options before any test runs, so they must all be known when the plugin loads, in every
project where wireconf is installed; the registries, the implementation under test and the rest come
into being only in a run that uses wireconf (``wireconf.pytest_plugin.plugin``). The choices below are
therefore spelled out here; ``tests/integration/test_inert_plugin.py`` checks that they are the ones the
modules that act on them know (``wireconf.judging.profile``, ``wireconf.pytest_plugin.runners``,
``wireconf.cassettes.recording``).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys

import pytest

DEFAULT_CASE_TIMEOUT = 5.0
DEFAULT_IMPL = "reference"
PROFILE_NAMES = ("spec", "interop", "full")
RUNNER_NAMES = ("process", "thread")
DEFAULT_RUNNER = "process" if sys.platform.startswith("linux") and hasattr(os, "fork") else "thread"
RECORD_MODES = ("none", "once", "new_episodes", "all")


def timeout_seconds(text: str) -> float:
    """``--case-timeout``'s type: a finite number of seconds, 0 or more (0 disables the limit). ``nan``
    would disable it silently and ``inf`` make every wait overflow; a negative limit has no meaning."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a finite number of seconds, 0 or more (0 disables the limit)"
        )
    return seconds


def owned_by_pytest_recording() -> bool:
    """Whether pytest-recording is installed: it then owns ``--record-mode`` (same name, same vcrpy
    meanings) and wireconf reads that option instead of adding its own."""
    return importlib.util.find_spec("pytest_recording") is not None


def add_options(parser: pytest.Parser) -> None:
    """The options of the corpus run, the CI gate and record mode."""
    _corpus_options(parser.getgroup("wireconf", "wireconf conformance corpus"))
    _ci_options(parser.getgroup("wireconf-ci", "wireconf CI gate and reports"))
    if not owned_by_pytest_recording():
        _record_option(parser.getgroup("wireconf"))


def _corpus_options(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--wireconf",
        dest="wireconf_installed",
        action="store_true",
        default=False,
        help="run the corpus installed with wireconf, from any directory, instead of pytest's default "
        "paths (testpaths or the current directory); a path in the corpus selects from it (also relative "
        "to the corpus: <kind>/<api>/<file>.yaml::<case id>), a path elsewhere runs besides it",
    )
    group.addoption(
        "--impl",
        dest="wireconf_impl",
        default=None,
        metavar="IMPL",
        help="implementation under test: an entry point of the group wireconf.adapters (e.g. reference), "
        f"module:attribute, or module (default: {DEFAULT_IMPL})",
    )
    group.addoption(
        "--case-timeout",
        dest="wireconf_case_timeout",
        type=timeout_seconds,
        default=DEFAULT_CASE_TIMEOUT,
        metavar="SECONDS",
        help="time limit per case for everything the runtime's code can make hang (the adapter call, "
        "canonicalising and judging its result; an exec: restart is bounded by the runtime's measured "
        "first start instead); the harness's preparation of the inputs has a budget of its own; 0 "
        f"disables it (default: {DEFAULT_CASE_TIMEOUT:g})",
    )
    group.addoption(
        "--case-runner",
        dest="wireconf_case_runner",
        choices=RUNNER_NAMES,
        default=DEFAULT_RUNNER,
        help="where in-process adapters run: process (a forked process with no network, killed when a "
        "case overruns: the time limit holds whatever the adapter does) or thread (a thread abandoned "
        f"on timeout; for platforms without fork, debuggers and coverage) (default: {DEFAULT_RUNNER})",
    )
    group.addoption(
        "--profile",
        dest="wireconf_profile",
        choices=PROFILE_NAMES,
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
        help="run only cases of this kind (the first part of a case id: wire, process, stream, ...); "
        "repeatable",
    )
    group.addoption(
        "--api",
        dest="wireconf_apis",
        action="append",
        default=[],
        metavar="API",
        help="run only cases of this api (the second part of a case id, as README's coverage table lists "
        "them); repeatable",
    )
    group.addoption(
        "--cassettes",
        dest="wireconf_cassettes",
        default=None,
        metavar="DIR",
        help="folder of cassettes (default: the 'cassettes' folder beside the corpus)",
    )


def _ci_options(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--baseline",
        dest="wireconf_baseline",
        default=None,
        metavar="FILE",
        help="YAML file of what this runtime failed (each case with a reason) and passed when the file "
        "was written: listed failures are expected (xfail), a listed case that passes fails the run, a "
        "regression (a case that passed, unchanged since) fails the run, a new failure fails it unless "
        "--allow-new-failures",
    )
    group.addoption(
        "--allow-new-failures",
        dest="wireconf_allow_new_failures",
        action="store_true",
        default=False,
        help="with --baseline: report failures of cases the baseline never judged (added or changed since, "
        "or unsupported then) as new, without failing the run; regressions still fail it",
    )
    group.addoption(
        "--update-baseline",
        dest="wireconf_update_baseline",
        action="store_true",
        default=False,
        help="rewrite the --baseline file from this run (failures added, passing cases moved to `passed`, "
        "cases not run kept, the corpus's version recorded); the gate does not fail the run",
    )
    group.addoption(
        "--report",
        dest="wireconf_report",
        default=None,
        metavar="PATH.jsonl",
        help="write one JSON line per case (impl, version, id, rules, status, diff, duration, the gate's "
        "verdict, the corpus's version and hash); render with `wireconf report`",
    )
    group.addoption(
        "--shard",
        dest="wireconf_shard",
        default=None,
        metavar="I/N",
        help="run only the I-th of N disjoint parts of the collection (stable across machines)",
    )


def _record_option(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--record-mode",
        dest="record_mode",
        choices=RECORD_MODES,
        default="none",
        help="e2e cassettes, vcrpy's meanings: none (replay only, the default), once (record missing "
        "cassettes), new_episodes (record unmatched requests), all (re-record); keys from each "
        "provider's key variables (docs/recording.md)",
    )


ASKING = ("wireconf_installed", "wireconf_impl", "wireconf_baseline", "wireconf_report", "wireconf_shard")
"""The options that only a corpus run reads: given, they make the run one from its start (its header,
its report file opened when the session starts) even where the paths reach a corpus only below them."""


def asks_for_wireconf(config: pytest.Config) -> bool:
    """Whether the command line asks for a corpus run by option (``--wireconf``, ``--impl``, the CI
    gate's and report's)."""
    return any(config.getoption(name) not in (None, False) for name in ASKING)
