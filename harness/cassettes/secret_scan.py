"""The last check before a cassette is written: does its text contain anything that looks like a secret?

Scrubbing (``harness.cassettes.scrub``) removes secrets from the places they are known to live. This scan is
the backstop for everywhere else: it reads the final serialized text for secret-shaped strings (the
key shapes of every provider record, ``harness.providers``; bearer tokens, JWTs, cloud and VCS tokens,
private keys) and for the exact values of every provider's key and credential variables in the
environment. A hit means nothing is written. Findings never show a secret in full: only its first
four characters and its length.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harness.providers.registry import KEY_SHAPES, SECRET_VARIABLES

KEY_VARIABLES = SECRET_VARIABLES
"""Environment variables whose exact values must never appear in a cassette: every provider's key
variables and other credential variables."""

MIN_VALUE_LENGTH = 8
"""Values shorter than this are not scanned for (a real key never is that short, ``test`` is a word)."""

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    *((shape.what, re.compile(shape.pattern)) for shape in KEY_SHAPES),
    ("bearer token", re.compile(r"(?i)bearer\s+[A-Za-z0-9._~+/-]{16,}=*")),
    ("JSON Web Token", re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("AWS access key id", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])")),
    ("GitHub token", re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})")),
    ("Slack token", re.compile(r"xox[abprs]-[A-Za-z0-9-]{10,}")),
    ("private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
)


@dataclass(frozen=True)
class Finding:
    """One secret-looking string: what it looks like, where (1-based line), and a masked preview."""

    what: str
    line: int
    preview: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.what} {self.preview}"


def mask(secret: str) -> str:
    return f"'{secret[:4]}…' ({len(secret)} chars)"


def key_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The key variables that are set (long enough to be keys), name → value."""
    env = os.environ if environ is None else environ
    return {name: env[name] for name in KEY_VARIABLES if len(env.get(name, "").strip()) >= MIN_VALUE_LENGTH}


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def scan(text: str, values: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> list[Finding]:
    """Every secret-shaped string in ``text`` and every occurrence of the given values (by name)."""
    findings: list[Finding] = []
    for name, value in (values if values is not None else key_values()).items():
        start = text.find(value)
        while start != -1:
            findings.append(Finding(f"the value of ${name}", _line(text, start), mask(value)))
            start = text.find(value, start + 1)
    for value in extra:
        if len(value) >= MIN_VALUE_LENGTH and value in text:
            findings.append(Finding("a value declared secret", _line(text, text.index(value)), mask(value)))
    for what, pattern in PATTERNS:
        for match in pattern.finditer(text):
            findings.append(Finding(what, _line(text, match.start()), mask(match.group(0))))
    return sorted(findings, key=lambda f: f.line)
