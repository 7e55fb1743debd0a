"""``wireconf ci``: one CI job's work, as the composite action (``action.yml``) runs it.

It runs the corpus against a runtime through pytest (with the baseline gate, a shard, the JSONL report),
then renders that report: Markdown appended to ``$GITHUB_STEP_SUMMARY``, JUnit XML and an HTML page in
the output folder, and the files' paths and pytest's exit status in ``$GITHUB_OUTPUT``. With
``--merge``, it renders the reports of several jobs (shards, Pythons) instead of running anything.

Every option can come from the environment (``WIRECONF_IMPL``, ...), which is how ``action.yml`` hands
its inputs over without pasting them into a shell script. The exit status is pytest's: the gate's.
"""

from __future__ import annotations

import argparse
import glob
import os
import shlex
import subprocess
import sys
from pathlib import Path

from wireconf.commands import Subparsers
from wireconf.core.report_text import path_part
from wireconf.judging.profile import PROFILES

ENV_PREFIX = "WIRECONF_"
DEFAULT_OUT = "wireconf-out"
TRUE = ("1", "true", "yes", "on")


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(ENV_PREFIX + name.upper().replace("-", "_"))
    return value if value not in (None, "") else default


def _flag(name: str) -> bool:
    return (_env(name) or "").strip().lower() in TRUE


def _slug(text: str) -> str:
    return path_part(text) or "run"


def _job_name(args: argparse.Namespace) -> str:
    """``<impl>-py3.12[-shard2of4]``: unique per job of a matrix, so downloaded reports never collide."""
    name = f"{_slug(args.impl)}-py{sys.version_info.major}.{sys.version_info.minor}"
    if args.shard:
        name += "-shard" + _slug(args.shard.replace("/", "of"))
    return name


def pytest_command(args: argparse.Namespace, report: Path) -> list[str]:
    """The pytest command line of one job."""
    command = [sys.executable, "-m", "pytest", args.corpus or "--wireconf", f"--impl={args.impl}"]
    command.append(f"--report={report}")
    if args.baseline:
        command.append(f"--baseline={args.baseline}")
    if args.allow_new_failures:
        command.append("--allow-new-failures")
    if args.profile:
        command.append(f"--profile={args.profile}")
    if args.shard:
        command.append(f"--shard={args.shard}")
    return command + shlex.split(args.pytest_args or "")


def _outputs(values: dict[str, str]) -> None:
    """``name=value`` lines for the step's outputs (``$GITHUB_OUTPUT``), when running in GitHub Actions."""
    path = os.environ.get("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.writelines(f"{key}={value}\n" for key, value in values.items())


def _render(
    reports: list[Path], out: Path, name: str, title: str, corpus: str | None
) -> dict[str, str] | str:
    """Markdown (to the step summary, else a file), JUnit and HTML of ``reports``; the paths written, or
    what went wrong."""
    from wireconf.cassettes.atomic import write_atomic
    from wireconf.commands.report import catalogue_for_reports
    from wireconf.reports.html import render_html
    from wireconf.reports.jsonl import ReportError, read_records
    from wireconf.reports.junit import render_junit
    from wireconf.reports.markdown import render_markdown
    from wireconf.reports.matrix import build_matrix

    try:
        records = read_records(reports)
    except ReportError as exc:
        return str(exc)
    if not records:
        return "the reports hold no case (did pytest run?)"
    matrix = build_matrix(records)
    written = {"junit": out / f"{name}.junit.xml", "html": out / f"{name}.html"}
    write_atomic(written["junit"], render_junit(matrix))
    write_atomic(written["html"], render_html(matrix, title, catalogue_for_reports(corpus)))
    markdown = render_markdown(matrix)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(markdown)
    else:
        written["markdown"] = out / f"{name}.md"
        write_atomic(written["markdown"], markdown)
    return {key: str(path) for key, path in written.items()}


def _merge(args: argparse.Namespace, out: Path, outputs: dict[str, str]) -> int:
    patterns = shlex.split(args.merge)
    reports = sorted({Path(p) for pattern in patterns for p in glob.glob(pattern, recursive=True)})
    if not reports:
        print(f"wireconf ci: --merge {args.merge!r} matches no report file", file=sys.stderr)
        return 2
    done = _render(reports, out, "merged", args.title, args.corpus)
    if isinstance(done, str):
        print(f"wireconf ci: {done}", file=sys.stderr)
        return 2
    outputs.update(done)
    print(f"wireconf ci: merged {len(reports)} report(s) into {', '.join(done.values())}")
    return 0


def _job(args: argparse.Namespace, out: Path, outputs: dict[str, str]) -> int:
    if not args.impl:
        print("wireconf ci: --impl (or WIRECONF_IMPL) is required", file=sys.stderr)
        return 2
    name = _job_name(args)
    report = out / f"{name}.jsonl"
    command = pytest_command(args, report)
    print("wireconf ci: " + shlex.join(command), flush=True)
    status = subprocess.run(command, check=False).returncode
    if not report.exists():
        print(f"wireconf ci: pytest wrote no report (exit status {status})", file=sys.stderr)
        return status or 2
    outputs["report"] = str(report)
    done = _render([report], out, name, args.title, args.corpus)
    if isinstance(done, str):
        print(f"wireconf ci: {done}", file=sys.stderr)
        return status or 2
    outputs.update(done)
    return status


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    outputs: dict[str, str] = {}
    status = _merge(args, out, outputs) if args.merge else _job(args, out, outputs)
    _outputs({"exit-code": str(status), **outputs})
    return status


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "ci",
        help="one CI job: run the corpus with the baseline gate, render the report for the CI "
        "(what action.yml runs)",
        description="Run pytest on the corpus against a runtime (gate, shard, report), then write the "
        "Markdown to $GITHUB_STEP_SUMMARY, JUnit XML and HTML to the output folder, and their paths and "
        "the exit status to $GITHUB_OUTPUT. Each option defaults to the environment variable named in "
        "its help. The exit status is pytest's.",
    )
    parser.add_argument(
        "--impl", default=_env("impl"), help="the runtime under test, as pytest's --impl (WIRECONF_IMPL)"
    )
    parser.add_argument(
        "--baseline",
        default=_env("baseline"),
        metavar="FILE",
        help="the runtime's baseline, as pytest's --baseline (WIRECONF_BASELINE)",
    )
    parser.add_argument(
        "--allow-new-failures",
        action="store_true",
        default=_flag("allow-new-failures"),
        help="new failures are reported without failing the run (WIRECONF_ALLOW_NEW_FAILURES=true)",
    )
    parser.add_argument(
        "--profile",
        default=_env("profile"),
        choices=tuple(PROFILES),
        help="the rules a failure must break to fail the run, as pytest's --profile (WIRECONF_PROFILE)",
    )
    parser.add_argument(
        "--shard", default=_env("shard"), metavar="I/N", help="this job's shard (WIRECONF_SHARD)"
    )
    parser.add_argument(
        "--corpus",
        default=_env("corpus"),
        metavar="DIR",
        help="a corpus folder to run instead of the installed one (WIRECONF_CORPUS)",
    )
    parser.add_argument(
        "--pytest-args",
        default=_env("pytest-args"),
        metavar="ARGS",
        help="more pytest arguments, split as a shell would (WIRECONF_PYTEST_ARGS), e.g. '-n auto -k wire'",
    )
    parser.add_argument(
        "--out",
        default=_env("out", DEFAULT_OUT),
        metavar="DIR",
        help=f"where the report, JUnit and HTML files go (WIRECONF_OUT; default: {DEFAULT_OUT})",
    )
    parser.add_argument(
        "--merge",
        default=_env("merge"),
        metavar="GLOBS",
        help="render these --report files (space-separated globs, ** allowed) instead of running pytest: "
        "the fan-in job of a sharded run (WIRECONF_MERGE)",
    )
    parser.add_argument(
        "--title",
        default=_env("title", "wireconf conformance report"),
        help="title of the HTML page (WIRECONF_TITLE)",
    )
    parser.set_defaults(run=run)
