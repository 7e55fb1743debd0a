"""The secrets of this environment (the values of the provider key variables) in every rendering a
runtime, an SDK or a provider might give them, and ``redact``, which takes them out of a text.

A key can reach a cassette or a report in other clothes than its own: base64 (a body a runtime
encoded, an image of a request), URL-safe base64, hex, percent-encoding, a JSON string escape. The
scan before a cassette is written (``wireconf.cassettes.secret_scan``) looks for every form, and
everything wireconf shows (diffs, errors, captured output and logs in reports) is passed through
``redact`` before it is cut to length, so that not even the start of a key is shown.

A base64 rendering depends on where the key starts inside the encoded bytes (its offset modulo 3), so
each of the three alignments contributes the characters that only the key's own bits decide.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterable, Mapping
from functools import lru_cache
from urllib.parse import quote, quote_plus

from wireconf.providers.registry import SECRET_VARIABLES

KEY_VARIABLES = SECRET_VARIABLES
"""Environment variables whose values must never appear in a cassette or a report, in any form: every
provider record's key and credential variables (``wireconf.providers``)."""

MIN_VALUE_LENGTH = 8
"""Values shorter than this are not keys (``test`` is a word, not a secret)."""


_ENCODED_NAMES = tuple((name, os.fsencode(name)) for name in KEY_VARIABLES)


def key_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The key variables that are set (long enough to be keys), name → value.

    Called for every report of every case: on POSIX the process's environment is read from the bytes
    mapping behind ``os.environ`` (what ``os.environ`` itself reads and writes), since
    ``os.environ.get`` raises and catches a ``KeyError`` for each variable that is not set."""
    raw = getattr(os.environ, "_data", None) if environ is None and os.name == "posix" else None
    if isinstance(raw, dict):
        pairs = [(name, os.fsdecode(value)) for name, key in _ENCODED_NAMES if (value := raw.get(key))]
    else:
        env = os.environ if environ is None else environ
        pairs = [(name, env.get(name, "")) for name in KEY_VARIABLES]
    return {name: value for name, value in pairs if len(value.strip()) >= MIN_VALUE_LENGTH}


def _base64_cores(data: bytes, alphabet: bytes | None) -> list[str]:
    """The characters of ``data``'s base64 that do not depend on its neighbours, for each offset."""
    cores = []
    for offset in range(3):
        padded = b"\0" * offset + data + b"\0\0"
        encoded = base64.b64encode(padded, altchars=alphabet).decode("ascii")
        first = -(-8 * offset // 6)  # the first character made only of the data's bits
        last = 8 * (offset + len(data)) // 6  # one past the last one
        core = encoded[first:last]
        if len(core) >= MIN_VALUE_LENGTH:
            cores.append(core)
    return cores


@lru_cache(maxsize=64)
def encoded_forms(value: str) -> tuple[tuple[str, str], ...]:
    """``(how, text)`` for every rendering of ``value`` looked for: itself first.

    A value with whitespace around it (``KEY="sk-… "`` in a shell, a trailing newline from a file) is
    looked for as set and as the SDKs and HTTP libraries send it, stripped."""
    forms: list[tuple[str, str]] = []
    for variant in dict.fromkeys((value, value.strip())):
        if len(variant) >= MIN_VALUE_LENGTH:
            forms += _forms(variant)
    seen: set[str] = set()
    unique = []
    for how, text in forms:
        if text not in seen:
            seen.add(text)
            unique.append((how, text))
    return tuple(unique)


def _forms(value: str) -> list[tuple[str, str]]:
    """``(how, text)`` for every rendering of one spelling of a value."""
    data = value.encode("utf-8")
    forms: list[tuple[str, str]] = [("", value)]
    forms += [("base64-encoded", core) for core in _base64_cores(data, None)]
    forms += [("URL-safe base64-encoded", core) for core in _base64_cores(data, b"-_")]
    forms += [("hex-encoded", data.hex()), ("hex-encoded", data.hex().upper())]
    forms += [("percent-encoded", quote(value, safe="")), ("percent-encoded", quote_plus(value))]
    forms += [("percent-encoded", "".join(f"%{b:02X}" for b in data))]
    forms += [("percent-encoded", "".join(f"%{b:02x}" for b in data))]
    forms += [("JSON-escaped", json.dumps(value)[1:-1])]
    forms += [("JSON-escaped", json.dumps(value, ensure_ascii=True)[1:-1])]
    return forms


def renderings(values: Mapping[str, str]) -> tuple[tuple[str, str, str], ...]:
    """``(variable, how, text)`` for every rendering of every value, longest first (so that a
    longer form is replaced before a shorter one inside it). Worked out once per process for a set of
    values (``_renderings``): with a key set, every text of every report of every case is redacted,
    each property of each report apart, always against the same few keys."""
    return _renderings(tuple(values.items()))


@lru_cache(maxsize=64)
def _renderings(values: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str, str], ...]:
    out = [(name, how, text) for name, value in values for how, text in encoded_forms(value)]
    return tuple(sorted(out, key=lambda item: -len(item[2])))


def redact(text: str, values: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> str:
    """``text`` with every rendering of every key value (and each ``extra`` secret) replaced by
    ``<$NAME>``; the environment's keys when ``values`` is not given."""
    found = key_values() if values is None else values
    if not found and not extra:
        return text
    for name, _, rendering in renderings(found):
        if rendering in text:
            text = text.replace(rendering, f"<${name}>")
    for secret in extra:
        if len(secret) >= MIN_VALUE_LENGTH and secret in text:
            text = text.replace(secret, "<secret>")
    return text
