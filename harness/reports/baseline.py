"""The CI regression gate's file: the cases a runtime is known to fail, each with a reason.

    # conformance/myruntime.yaml
    impl: myruntime
    version: 1.2.0
    expected_failures:
      wire.openai.chat.option-max-output-tokens: sends the deprecated max_tokens (7.1.5)

A listed case that fails is expected; a listed case that passes fails the run until the entry is
removed (``--update-baseline`` does it); a failure that is not listed fails the run. ``waivers`` set
aside one difference (a path and a kind of difference) in the cases they list, the rest of each case
still judged (``harness.reports.waivers``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.cassettes.atomic import write_atomic
from harness.reports.waivers import Waiver, WaiverError, parse_waivers

HEADER = (
    "# wireconf baseline: the cases this runtime is known to fail, each with a reason.\n"
    "# A listed case that passes fails the run until it is removed\n"
    "# (pytest --baseline FILE --update-baseline rewrites it from a run).\n"
)


class BaselineError(Exception):
    """The baseline file cannot be used; the message names the file and what is wrong."""


@dataclass
class Baseline:
    path: Path
    impl: str | None = None
    version: str | None = None
    expected: dict[str, str] = field(default_factory=dict)
    waivers: list[Waiver] = field(default_factory=list)

    def reason(self, case_id: str) -> str | None:
        return self.expected.get(case_id)

    def render(self) -> str:
        data: dict[str, Any] = {
            "impl": self.impl,
            "version": self.version,
            "expected_failures": dict(sorted(self.expected.items())),
        }
        if self.waivers:
            data["waivers"] = [w.to_data() for w in self.waivers]
        body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
        return HEADER + body

    def save(self) -> None:
        write_atomic(self.path, self.render())


def load_baseline(path: Path, *, missing_ok: bool = False) -> Baseline:
    """Read ``path``; with ``missing_ok`` an absent file is an empty baseline (to be written)."""
    if not path.exists():
        if missing_ok:
            return Baseline(path)
        raise BaselineError(f"--baseline {path}: no such file (create it with --update-baseline)")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise BaselineError(f"--baseline {path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise BaselineError(f"--baseline {path}: expected a mapping with `expected_failures`")
    unknown = set(data) - {"impl", "version", "expected_failures", "waivers"}
    if unknown:
        raise BaselineError(f"--baseline {path}: unknown key(s) {', '.join(sorted(unknown))}")
    entries = data.get("expected_failures") or {}
    if not isinstance(entries, dict):
        raise BaselineError(f"--baseline {path}: `expected_failures` must map case ids to reasons")
    for case_id, reason in entries.items():
        if not isinstance(case_id, str) or not isinstance(reason, str) or not reason.strip():
            raise BaselineError(
                f"--baseline {path}: entry {case_id!r} needs a reason (a non-empty string), got {reason!r}"
            )
    try:
        waivers = parse_waivers(data.get("waivers"), path)
    except WaiverError as exc:
        raise BaselineError(str(exc)) from exc
    impl, version = data.get("impl"), data.get("version")
    return Baseline(
        path, None if impl is None else str(impl), None if version is None else str(version), entries, waivers
    )


def default_reason(rules: list[str], diff: str | None, message: str | None) -> str:
    """A first reason for a new entry: the rules the case checks and the first line of its diff."""
    lines = [line.strip() for line in (diff or message or "").splitlines() if line.strip()]
    first = next((line for line in lines if not line.endswith(":")), lines[0] if lines else "")
    rules_text = ", ".join(rules)
    return f"{rules_text}: {first}"[:300] if first else rules_text or "fails"
