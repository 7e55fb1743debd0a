"""The CI regression gate's file: what a runtime was known to fail, and what it passed, when it was written.

    # conformance/myruntime.yaml
    impl: myruntime
    version: 1.2.0
    corpus: {version: 1.0.0, hash: 'sha256:23061dd2539a5585'}
    expected_failures:
      wire.openai.chat.option-max-output-tokens: 'sends the deprecated max_tokens (7.1.5)'
    explanations:
      wire.openai.chat.option-max-output-tokens: {7.1.5/max-completion-tokens: 'maps the option by name'}
    waivers:
      - {subject: request, path: $.stream, change: unexpected-key, reason: '...', cases: [...]}
    passed:
      wire.openai.chat.single-text-part-is-string: 1ef6bd965a
      ...

``expected_failures`` maps case ids to reasons: a listed case that fails is expected, one that passes
fails the run until the entry is removed (``--update-baseline`` does it). ``passed`` maps the cases the
runtime passed to their fingerprint (``wireconf.corpus.identity``), so that the gate can tell a
*regression* (a listed case, unchanged since, now fails) from a *new* failure (a case the baseline never
judged: added to the corpus since, changed since, or unsupported then). ``corpus`` says which corpus the
file was written against. Files written before ``passed`` existed hold only ``impl``, ``version`` and
``expected_failures``; they still gate, but cannot tell new from regression (``unlisted``).
``explanations`` say, per case and per rule it breaks, why the runtime breaks it (``--update-baseline``
keeps them while the case fails; the findings page shows them beside each root cause). ``waivers`` set
aside one difference (a path and a kind of difference) in the cases they list, the rest
of each case still judged (``wireconf.judging.waivers``).

The sections are read by ``SECTIONS``, one function each. An unknown top-level key is an error, so a
typo never silently disables part of the gate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wireconf.cassettes.atomic import write_atomic
from wireconf.core.errors import WireconfError
from wireconf.core.untyped import YAML
from wireconf.core.yaml_source import YamlRefused, load_plain_yaml
from wireconf.corpus.identity import CorpusIdentity
from wireconf.judging.waivers import Waiver, WaiverError, parse_waivers

HEADER = (
    "# wireconf baseline: the cases this runtime is known to fail, each with a reason, and the cases it\n"
    "# passed (with their fingerprint) when this file was written. A listed failure that passes, or a\n"
    "# passed case that fails, fails the run (pytest --baseline FILE --update-baseline rewrites it).\n"
)

MAX_BASELINE_BYTES = 64 * 1024 * 1024
"""A baseline lists a reason per failing case and a fingerprint per passing one: a few hundred
kilobytes for the whole corpus. A larger file is not a baseline."""

REGRESSION = "regression"  # passed when the baseline was written, unchanged since, fails now
NEW = "new"  # fails, and the baseline never saw it pass as it is now
UNLISTED = "unlisted"  # fails, not listed, and the baseline does not record passes (an older file)
EXPECTED = "expected"  # listed as failing, fails
FIXED = "fixed"  # listed as failing, passes


class BaselineError(WireconfError):
    """The baseline file cannot be used; the message names the file and what is wrong."""

    default_hint = (
        "fix the file as the message says, or rewrite it from a run with --update-baseline (docs/ci.md)"
    )


@dataclass
class Baseline:
    path: Path
    impl: str | None = None
    version: str | None = None
    expected: dict[str, str] = field(default_factory=dict)
    passed: dict[str, str] | None = None  # None: a file from before passes were recorded
    corpus: CorpusIdentity | None = None
    waivers: list[Waiver] = field(default_factory=list)
    explanations: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per failing case, per rule it breaks: why the runtime breaks it (a person's text, written against
    the difference of that rule). The case's ``expected_failures`` reason is the gate's; the findings page
    shows these beside each root cause, so a case breaking two rules never shows one rule's explanation
    beside the other (``wireconf.reports.findings``)."""

    def reason(self, case_id: str) -> str | None:
        return self.expected.get(case_id)

    def history(self, case_id: str, fingerprint: str) -> tuple[str, str]:
        """What an unlisted failure of ``case_id`` (as it is now: ``fingerprint``) is, and why."""
        against = f"corpus {self.corpus.label}" if self.corpus else "its corpus"
        if self.passed is None:
            return UNLISTED, (
                "not listed in the baseline, which does not record the cases that passed (written by an "
                "older wireconf), so this cannot be told apart from a regression"
            )
        recorded = self.passed.get(case_id)
        if recorded == fingerprint:
            return REGRESSION, f"it passed when the baseline was written ({against}), and is unchanged since"
        if recorded is not None:
            return NEW, f"the case changed since the baseline was written ({against}): a new expectation"
        return NEW, (
            f"the baseline ({against}) never judged it: the case is newer than the baseline, "
            "or was not supported or not run then"
        )

    def render(self) -> str:
        data: dict[str, Any] = {"impl": self.impl, "version": self.version}
        if self.corpus is not None:
            data["corpus"] = {"version": self.corpus.version, "hash": self.corpus.hash}
        data["expected_failures"] = dict(sorted(self.expected.items()))
        kept = {case: dict(sorted(rules.items())) for case, rules in self.explanations.items() if rules}
        if any(case in self.expected for case in kept):  # a case that passes now needs none
            data["explanations"] = {case: kept[case] for case in sorted(kept) if case in self.expected}
        if self.waivers:
            data["waivers"] = [w.to_data() for w in self.waivers]
        if self.passed is not None:
            data["passed"] = dict(sorted(self.passed.items()))
        body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
        return HEADER + body

    def save(self) -> None:
        write_atomic(self.path, self.render())


def _text(path: Path, key: str, value: YAML) -> str | None:
    if value is None:
        return None
    if isinstance(value, dict | list):
        raise BaselineError(f"--baseline {path}: `{key}` must be a string, got {value!r}")
    return str(value)


def _read_impl(baseline: Baseline, value: YAML) -> None:
    baseline.impl = _text(baseline.path, "impl", value)


def _read_version(baseline: Baseline, value: YAML) -> None:
    baseline.version = _text(baseline.path, "version", value)


def _read_corpus(baseline: Baseline, value: YAML) -> None:
    if value is None:
        return
    shaped = isinstance(value, dict) and isinstance(value.get("hash"), str)
    if not shaped or set(value) - {"version", "hash"}:
        raise BaselineError(
            f"--baseline {baseline.path}: `corpus` must be a mapping with `version` and `hash`, got {value!r}"
        )
    version = _text(baseline.path, "corpus.version", value.get("version"))
    baseline.corpus = CorpusIdentity(version, value["hash"])


def _read_expected(baseline: Baseline, value: YAML) -> None:
    entries = value or {}
    if not isinstance(entries, dict):
        raise BaselineError(f"--baseline {baseline.path}: `expected_failures` must map case ids to reasons")
    for case_id, reason in entries.items():
        if not isinstance(case_id, str) or not isinstance(reason, str) or not reason.strip():
            raise BaselineError(
                f"--baseline {baseline.path}: entry {case_id!r} needs a reason (a non-empty string), "
                f"got {reason!r}"
            )
    baseline.expected = dict(entries)


def _read_explanations(baseline: Baseline, value: YAML) -> None:
    entries = value or {}
    shaped = isinstance(entries, dict) and all(
        isinstance(case, str)
        and isinstance(rules, dict)
        and all(isinstance(r, str) and isinstance(t, str) and t.strip() for r, t in rules.items())
        for case, rules in entries.items()
    )
    if not shaped:
        raise BaselineError(
            f"--baseline {baseline.path}: `explanations` must map case ids to a mapping of rule ids to "
            "explanations (non-empty strings)"
        )
    baseline.explanations = {case: dict(rules) for case, rules in entries.items()}


def _read_waivers(baseline: Baseline, value: YAML) -> None:
    try:
        baseline.waivers = parse_waivers(value, baseline.path)
    except WaiverError as exc:
        raise BaselineError(str(exc)) from exc


def _read_passed(baseline: Baseline, value: YAML) -> None:
    entries = value or {}
    if not isinstance(entries, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in entries.items()
    ):
        raise BaselineError(
            f"--baseline {baseline.path}: `passed` must map case ids to fingerprints (strings)"
        )
    baseline.passed = dict(entries)


SECTIONS: dict[str, Callable[[Baseline, Any], None]] = {
    "impl": _read_impl,
    "version": _read_version,
    "corpus": _read_corpus,
    "expected_failures": _read_expected,
    "explanations": _read_explanations,
    "waivers": _read_waivers,
    "passed": _read_passed,
}


def _read(path: Path) -> YAML:
    """The file's YAML, read within ``MAX_BASELINE_BYTES`` and the case files' bounds on depth and
    aliases (a ten-line file of aliases can stand for gigabytes)."""
    if path.is_dir():
        raise BaselineError(f"--baseline {path}: is a folder, not a file")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BASELINE_BYTES + 1)
    except OSError as exc:
        raise BaselineError(f"--baseline {path}: cannot read: {exc.strerror or exc}") from exc
    if len(data) > MAX_BASELINE_BYTES:
        raise BaselineError(f"--baseline {path}: larger than {MAX_BASELINE_BYTES:,} bytes (not a baseline?)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BaselineError(
            f"--baseline {path}: not UTF-8 text ({exc.reason} at byte {exc.start}; not a baseline?)"
        ) from exc
    try:
        return load_plain_yaml(text)
    except YamlRefused as exc:
        raise BaselineError(f"--baseline {path}: refused: {exc.message}") from exc
    except yaml.YAMLError as exc:
        raise BaselineError(f"--baseline {path}: not valid YAML: {exc}") from exc


def load_baseline(path: Path, *, missing_ok: bool = False) -> Baseline:
    """Read ``path``; with ``missing_ok`` an absent file is an empty baseline (to be written)."""
    if not path.exists():
        if missing_ok:
            return Baseline(path, passed={})
        raise BaselineError(f"--baseline {path}: no such file (create it with --update-baseline)")
    data = _read(path) or {}
    if not isinstance(data, dict):
        raise BaselineError(f"--baseline {path}: expected a mapping with `expected_failures`")
    unknown = set(data) - set(SECTIONS)
    if unknown:
        raise BaselineError(
            f"--baseline {path}: unknown key(s) {', '.join(sorted(map(str, unknown)))} "
            f"(known: {', '.join(SECTIONS)})"
        )
    baseline = Baseline(path)
    for key, read in SECTIONS.items():
        if key in data:
            read(baseline, data[key])
    return baseline


def default_reason(
    rules: list[str],
    diff: str | None,
    message: str | None,
    differences: list[dict[str, Any]] | None = None,
) -> str:
    """A first reason for a new entry: the rule broken and the difference. With the case's attributed
    ``differences`` (the report's; the waived ones are never among them), the first one's rules (``no
    rule requires this`` when unruled) and the first line of its text, never a line from the middle of a
    multi-line exception; without them (an error, an older report), the rules given and the first line
    of the diff or message that is neither a heading nor a waived difference."""
    if differences:
        first_difference = differences[0]
        rejected = first_difference.get("basis") == "provider-schema"
        unnamed = "the provider's contract rejects this request" if rejected else "no rule requires this"
        named = ", ".join(first_difference.get("rules") or []) or unnamed
        text = str(first_difference.get("text") or first_difference.get("signature") or "")
        line = next((part.strip() for part in text.splitlines() if part.strip()), "")
        return f"{named}: {line}"[:300] if line else named
    lines = [
        line.strip()
        for line in (diff or message or "").splitlines()
        if line.strip() and "(waived by the baseline:" not in line
    ]
    first = next((line for line in lines if not line.endswith(":")), lines[0] if lines else "")
    rules_text = ", ".join(rules)
    return f"{rules_text}: {first}"[:300] if first else rules_text or "fails"
