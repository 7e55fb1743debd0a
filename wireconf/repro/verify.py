"""``wireconf repro --verify``: run the reproduction of every root cause of a runtime and record what it
shows, so that the findings page can say which explanations their reproduction proves
(``wireconf.reports.findings_proofs``).

Each root cause by difference that has a reproduction (the case, rule and place the page links) gets its
script, run with the runtime's Python while a profile hook notes which of the functions its explanation
names (`` `module:qualname` ``; a class: one of its methods) are called, the local server's thread
included. The scripts import the
runtime alone; they run in a child forked from a process that has imported the runtime's modules
once (the scripts' own import lines, and what a run of one script per kind and api loaded: an SDK's
lazily imported parts), so that three hundred scripts cost three hundred calls rather than three
hundred imports of LiteLLM. A JavaScript runtime's scripts run with ``node`` beside its
``node_modules``, V8's own coverage (``NODE_V8_COVERAGE``) saying which named functions ran. The
standalone run, in a fresh environment without wireconf, is what ``tests/integration/test_repro.py``
proves for a sample.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from wireconf.reports.findings_proofs import Proof, named_functions, text_hash

TIMEOUT = 120.0
"""Seconds a reproduction may run before it counts as not reproduced (exit 2)."""


@dataclass(frozen=True)
class Run:
    """A script's run: its exit code, what it printed and which of the named functions were called."""

    exit: int
    output: str
    called: frozenset[str]


WARM_SAMPLES = 16
"""At most this many scripts run once before the others, to learn the modules they load lazily."""


def warm(scripts: list[str], samples: Sequence[str] = ()) -> None:
    """Import, in this process, the modules the scripts import, so that each forked run finds them
    loaded: their top-level import lines, then every module a run of each of ``samples`` loaded (in a
    forked child, ``loaded_by``): an SDK imports much of itself lazily, on its first call (a client's
    resources, a parser), which each forked script would otherwise import again. A module that fails
    to import here is left to the script to fail on."""
    lines = dict.fromkeys(
        line for text in scripts for line in text.splitlines() if line.startswith(("import ", "from "))
    )
    for line in lines:
        with contextlib.suppress(Exception):
            exec(compile(line, "<repro imports>", "exec"), {})
    for sample in samples:
        for name in loaded_by(sample):
            if name not in sys.modules:
                with contextlib.suppress(Exception):
                    importlib.import_module(name)


def samples_of(scripts: list[tuple[str, str]]) -> list[str]:
    """One script per kind and api of the cases (``wire.openai.chat``: the first three parts of a case id),
    up to ``WARM_SAMPLES``: the calls whose lazily loaded modules differ."""
    first: dict[str, str] = {}
    for case, script in scripts:
        first.setdefault(".".join(case.split(".")[:3]), script)
    return list(first.values())[:WARM_SAMPLES]


def loaded_by(script: str, timeout: float = TIMEOUT) -> list[str]:
    """The modules a run of ``script`` imports that this process has not, in the order it imported them:
    the script run in a forked child (its output and exit code dropped)."""
    with tempfile.TemporaryDirectory(prefix="wireconf-warm-") as tmp:
        path, listed = Path(tmp) / "warm.py", Path(tmp) / "modules.json"
        path.write_text(script, encoding="utf-8")
        before = set(sys.modules)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child never returns into the caller's code
            try:
                with (
                    open(os.devnull, "w", encoding="utf-8") as sink,
                    contextlib.redirect_stdout(sink),
                    contextlib.redirect_stderr(sink),
                    contextlib.suppress(BaseException),
                ):
                    runpy.run_path(str(path), run_name="__main__")
                new = [n for n in list(sys.modules) if n not in before and not n.startswith("__")]
                listed.write_text(json.dumps(new), encoding="utf-8")
            finally:
                os._exit(0)
        _wait(pid, timeout)
        return list(json.loads(listed.read_text(encoding="utf-8"))) if listed.is_file() else []


def _wait(pid: int, timeout: float) -> int:
    """A forked child's exit code, once it ends or is killed past ``timeout`` (then 2)."""
    deadline = time.monotonic() + timeout
    while True:
        done, raw = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(raw)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return 2
        time.sleep(0.05)


def _profile(names: frozenset[str], seen: set[str]) -> Callable[[FrameType, str, Any], None]:
    def hook(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            module, qualname = frame.f_globals.get("__name__"), getattr(code, "co_qualname", code.co_name)
            parts = qualname.split(".")
            for end in range(len(parts), 0, -1):  # a named class ran when one of its methods did
                name = f"{module}:{'.'.join(parts[:end])}"
                if name in names:
                    seen.add(name)

    return hook


def _child(script: Path, names: frozenset[str], out: Path, called: Path) -> int:
    """In the forked child: the script run as ``__main__``, its output to ``out``, the named functions
    called to ``called``; the script's exit code."""
    seen: set[str] = set()
    hook = _profile(names, seen)
    code = 1
    with (
        out.open("w", encoding="utf-8") as stream,
        contextlib.redirect_stdout(stream),
        contextlib.redirect_stderr(stream),
    ):
        sys.setprofile(hook)
        threading.setprofile(hook)
        try:
            runpy.run_path(str(script), run_name="__main__")
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 1
        except BaseException as error:  # the script's own crash: not a verdict
            print(f"the script crashed: {type(error).__name__}: {error}")
            code = 3
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
    called.write_text(json.dumps(sorted(seen)), encoding="utf-8")
    return code


def run_script(script: Path, names: list[str], timeout: float = TIMEOUT) -> Run:
    """``script`` run in a forked child (exit 2 when it runs past ``timeout``)."""
    with tempfile.TemporaryDirectory(prefix="wireconf-verify-") as tmp:
        out, called = Path(tmp) / "out.txt", Path(tmp) / "called.json"
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child never returns into the caller's code
            code = 3
            try:
                code = _child(script, frozenset(names), out, called)
            finally:
                os._exit(code)
        status = _wait(pid, timeout)
        output = out.read_text(encoding="utf-8") if out.is_file() else ""
        seen = frozenset(json.loads(called.read_text(encoding="utf-8"))) if called.is_file() else frozenset()
    return Run(status if status >= 0 else 2, output, seen)


def _covered(folder: Path, names: list[str]) -> frozenset[str]:
    """Which of ``names`` (``package:Qual.name``) V8's coverage in ``folder`` saw run: a function of that
    name (its last part: V8 names a method by itself) with a call, in a file of that npm package (or,
    for ``packages/<name>/src/x.ts:f``, of that workspace package, whose build keeps the names)."""
    wanted = {}
    for name in names:
        package, function = name.rsplit(":", 1)
        place = (
            "/".join(package.split("/")[:2]) if package.startswith("packages/") else f"node_modules/{package}"
        )
        wanted[name] = (place, function.rsplit(".", 1)[-1])
    seen: set[str] = set()
    for file in folder.glob("*.json"):
        for script in json.loads(file.read_text(encoding="utf-8")).get("result", []):
            url = str(script.get("url", ""))
            for function in script.get("functions", []):
                ranges = function.get("ranges") or [{}]
                if not ranges[0].get("count"):
                    continue
                for name, (package, last) in wanted.items():
                    if function.get("functionName") == last and f"/{package}/" in url:
                        seen.add(name)
    return frozenset(seen)


@dataclass(frozen=True)
class NodeRun:
    """How a JavaScript runtime's scripts run: beside its ``node_modules`` (the AI SDK's install), with
    ``node`` flags and arguments after the script (Prompty's built runtime folder)."""

    modules: Path | None = None
    flags: tuple[str, ...] = ()
    args: tuple[str, ...] = ()


def run_node(script: Path, names: list[str], timeout: float = TIMEOUT, how: NodeRun = NodeRun()) -> Run:
    """An ES module ``script`` run by ``node`` as ``how`` says, V8's coverage telling which of the named
    functions ran (exit 2 past ``timeout``)."""
    node = shutil.which("node") or "node"
    with tempfile.TemporaryDirectory(prefix="wireconf-verify-v8-") as coverage:
        try:
            done = subprocess.run(
                [node, *how.flags, script.name, *how.args],
                cwd=script.parent,
                capture_output=True,
                text=True,
                timeout=timeout,
                env={**os.environ, "NODE_V8_COVERAGE": coverage},
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Run(2, "", frozenset())
        return Run(done.returncode, done.stdout + done.stderr, _covered(Path(coverage), names))


@dataclass(frozen=True)
class Target:
    """A root cause to verify: its reproduction's case, rule and place, the script, and its explanation."""

    case: str
    rule: str
    place: str
    script: str
    explanation: str | None


def verify(
    targets: list[Target], progress: Callable[[str], None] | None = None, node: NodeRun | None = None
) -> Iterator[Proof]:
    """Each target's script run, as a ``Proof`` of its explanation: a Python script forked from this
    process (``run_script``), or a JavaScript runtime's ES module run by node as ``node`` says
    (``run_node``)."""
    if node is None:
        warm([t.script for t in targets], samples_of([(t.case, t.script) for t in targets]))
    with tempfile.TemporaryDirectory(prefix="wireconf-verify-") as tmp:
        if node is not None and node.modules is not None:
            (Path(tmp) / "node_modules").symlink_to(node.modules)
        for index, target in enumerate(targets):
            script = Path(tmp) / (f"repro_{index}.mjs" if node is not None else f"repro_{index}.py")
            script.write_text(target.script, encoding="utf-8")
            names = named_functions(target.explanation or "", javascript=node is not None)
            run = run_script(script, names) if node is None else run_node(script, names, how=node)
            shown = run.exit == 1 and f"{target.rule}: " in run.output
            if progress is not None:
                progress(f"{index + 1}/{len(targets)} {target.case} {target.place}: exit {run.exit}")
            yield Proof(
                target.case,
                target.rule,
                target.place,
                run.exit,
                shown,
                text_hash(target.explanation) if target.explanation else "",
                {name: name in run.called for name in names},
            )
