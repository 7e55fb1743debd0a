"""The last check before a cassette is written: does anything in it look like a secret, in any form?

Scrubbing (``wireconf.cassettes.scrub``) removes secrets from the places they are known to live. This
scan is the backstop for everywhere else, and it reads what is written, not one rendering of it:

- the final serialized text, for secret-shaped strings (the key shapes of every provider record,
``wireconf.providers``; bearer tokens, JWTs, cloud and VCS tokens, private keys) and for the values of every
provider's key and credential variables in the environment, in every rendering
``wireconf.providers.secret_values`` knows (as is, base64, URL-safe base64, hex, percent-encoded,
JSON-escaped); - each body as bytes, whatever the YAML shows of it: a body that is not UTF-8 (written as
``base64:``), one cut in the middle of a character, UTF-16 text; - each body with its JSON escapes decoded
(``\\u0073k-…``, ``\\/``), and every string value of its JSON documents, decoded; - the concatenation of a
stream's (or a JSON array's, or JSON lines') string values at the same place in each chunk, so that a key a
model streamed four characters at a time is seen whole: by path, and by path per choice, candidate, output
item or content block (``index``, ``output_index``, ``content_index``, list positions), so that the deltas of
two choices interleaved in one stream do not hide a key either one spells; - the request's URI and every
header that is kept.

A hit means nothing is written. Findings never show a secret in full: only its first four characters
and its length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus

from wireconf.core.untyped import JSON
from wireconf.providers.registry import KEY_SHAPES
from wireconf.providers.secret_values import KEY_VARIABLES, MIN_VALUE_LENGTH, key_values, renderings

__all__ = ["KEY_VARIABLES", "MIN_VALUE_LENGTH", "Finding", "key_values", "scan", "scan_interactions"]

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
    """One secret-looking string: what it looks like, where (1-based line of the text, or a place in
    an interaction), and a masked preview."""

    what: str
    line: int
    preview: str
    where: str = ""

    def __str__(self) -> str:
        return f"{self.where or f'line {self.line}'}: {self.what} {self.preview}"


def mask(secret: str) -> str:
    return f"'{secret[:4]}…' ({len(secret)} chars)"


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _hits(text: str, values: Mapping[str, str], extra: Iterable[str]) -> Iterator[tuple[int, str, str]]:
    """``(index, what, secret)`` for every value rendering, declared secret and secret shape."""
    for name, how, rendering in renderings(values):
        start = text.find(rendering)
        while start != -1:
            what = f"the value of ${name}" + (f", {how}" if how else "")
            yield start, what, values[name]
            start = text.find(rendering, start + 1)
    for value in extra:
        if len(value) >= MIN_VALUE_LENGTH and value in text:
            yield text.index(value), "a value declared secret", value
    for what, pattern in PATTERNS:
        for match in pattern.finditer(text):
            yield match.start(), what, match.group(0)


def scan(text: str, values: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> list[Finding]:
    """Every secret-shaped string in ``text`` and every rendering of the given values (by name)."""
    found = values if values is not None else key_values()
    findings = [
        Finding(what, _line(text, at), mask(secret)) for at, what, secret in _hits(text, found, extra)
    ]
    return sorted(findings, key=lambda f: f.line)


# --- what the text does not show: bodies as bytes, streams put back together --------------------------


def _documents(body: bytes) -> list[Any]:
    """The JSON documents of a body: the body itself, each event's data of an event stream, or each
    line of JSON lines; ``[]`` when it holds none."""
    text = body.decode("utf-8", "replace")
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    documents = []
    for event in re.split(r"\r?\n\r?\n", text):
        data = "\n".join(
            line[5:].removeprefix(" ") for line in re.split(r"\r?\n", event) if line.startswith("data:")
        )
        candidate = data if data else event.strip()
        if not candidate:
            continue
        for piece in [candidate] if data else candidate.splitlines():
            try:
                documents.append(json.loads(piece))
            except ValueError:
                continue
    return documents


INDEX_KEYS = ("index", "output_index", "content_index")
"""Fields that say which choice, candidate, output item or content block a chunk continues: OpenAI
chat's ``choices[].index`` and ``tool_calls[].index``, the Responses API's ``output_index`` and
``content_index``, Anthropic's event ``index``, Gemini's ``candidates[].index``."""


def _strings(
    value: JSON, shape: tuple[str, ...], out: dict[tuple[str, ...], list[str]], keyed: bool, positions: bool
) -> None:
    """Collect the strings of ``value`` by place. ``keyed``: a mapping's index fields are part of the
    place (each choice or content block joined apart); ``positions``: so is a list position (Gemini's
    candidates, which may leave their index out)."""
    if isinstance(value, str):
        out.setdefault(shape, []).append(value)
    elif isinstance(value, dict):
        if keyed:
            shape = (*shape, *(f"{k}={value[k]}" for k in INDEX_KEYS if isinstance(value.get(k), int)))
        for key, item in value.items():
            _strings(item, (*shape, str(key)), out, keyed, positions)
    elif isinstance(value, list):
        for position, item in enumerate(value):
            _strings(item, (*shape, f"[{position}]" if positions else "[]"), out, keyed, positions)


_WAYS = ((False, False), (True, False), (True, True))
"""How chunks' strings are put together: by path alone, by path and index fields, and by path, index
fields and list positions."""


def joined_strings(body: bytes) -> list[str]:
    """For each place in a stream's chunks, the strings found there joined in order (the text a model
    streamed in deltas, a tool call's arguments), decoded from their JSON escapes; a place is a JSON
    path with list positions left out, then with each choice, candidate or content block apart."""
    documents = _documents(body)
    joined: dict[str, None] = {}
    for keyed, positions in _WAYS:
        places: dict[tuple[str, ...], list[str]] = {}
        for document in documents:
            _strings(document, (), places, keyed, positions)
        joined.update(dict.fromkeys("".join(strings) for strings in places.values()))
    return list(joined)


_JSON_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([/\\\"bfnrt]))")
_SHORT_ESCAPES = {"/": "/", "\\": "\\", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def json_unescaped(text: str) -> str:
    """``text`` with every JSON string escape decoded (``\\u0073`` is ``s``, ``\\/`` is ``/``), wherever
    it stands: a key escaped inside a body that is not JSON, or not JSON the scan can parse, is seen."""
    return _JSON_ESCAPE.sub(
        lambda m: chr(int(m.group(1), 16)) if m.group(1) else _SHORT_ESCAPES[m.group(2)], text
    )


def _views(interaction: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``(where, text)`` for every part of a decoded vcrpy interaction, as the scan reads it."""
    request, response = interaction["request"], interaction["response"]
    uri = str(request.get("uri", ""))
    yield "the request URI", uri
    yield "the request URI (decoded)", unquote_plus(uri)
    for side, part in (("request", request), ("response", response)):
        for name, values in (part.get("headers") or {}).items():
            for value in values if isinstance(values, list) else [values]:
                yield f"the {side} header {name}", str(value)
                if name.lower() == "content-encoding" and str(value).lower() not in ("", "identity"):
                    yield f"the {side} body", UNREADABLE + str(value)
        body = part.get("body")
        if isinstance(body, dict):
            body = body.get("string")
        if isinstance(body, str):
            body = body.encode("utf-8", "surrogateescape")
        if not body:
            continue
        yield f"the {side} body (as bytes)", body.decode("latin-1")
        if b"\\" in body:
            yield f"the {side} body (JSON escapes decoded)", json_unescaped(body.decode("utf-8", "replace"))
        for codec in ("utf-16-le", "utf-16-be"):
            yield f"the {side} body (as UTF-16)", body.decode(codec, "ignore")
        for joined in joined_strings(body):
            yield f"the {side} body's chunks joined", joined


UNREADABLE = "\0unreadable:"
"""Marks a body whose encoding the scan cannot read (its content-encoding was not decoded)."""


def scan_interactions(
    interactions: Iterable[Mapping[str, Any]],
    values: Mapping[str, str] | None = None,
    extra: Iterable[str] = (),
    known: Iterable[Finding] = (),
) -> list[Finding]:
    """Findings in the decoded interactions (``decoded_interaction`` dicts) that ``known`` (the text's
    own findings) does not already report."""
    found = values if values is not None else key_values()
    extra = list(extra)
    seen = {(f.what, f.preview) for f in known}
    findings = []
    for number, interaction in enumerate(interactions):
        for where, text in _views(interaction):
            if text.startswith(UNREADABLE):
                encoding = text.removeprefix(UNREADABLE)
                findings.append(
                    Finding(
                        f"a body the scan cannot read (content-encoding: {encoding})",
                        0,
                        "",
                        f"interaction {number}, {where}",
                    )
                )
                continue
            for _, what, secret in _hits(text, found, extra):
                key = (what, mask(secret))
                if key not in seen:
                    seen.add(key)
                    findings.append(Finding(what, 0, mask(secret), f"interaction {number}, {where}"))
    return findings
