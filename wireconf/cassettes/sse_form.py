"""The readable form of an event stream in a cassette: one list item per event, byte for byte.

``{sse: [...]}`` lists the events in order. An event of one line is a string; an event of several
lines is a literal block; an event with a line that ends in spaces (Anthropic pads some ``data:``
lines) is a list of its lines, each quoted, because a literal block cannot show trailing spaces (YAML
emitters refuse it, editors and pre-commit hooks strip them). Lines end with ``\\n`` unless the mapping
also has ``eol: "\\r\\n"`` (Gemini frames ``alt=sse`` with CRLF). Every event ends with a blank line.

The form is used only when it gives back exactly the original bytes (checked on encoding); anything
else (a stream cut before its final blank line, mixed line endings) stays a plain string.
"""

from __future__ import annotations

from typing import Any

from wireconf.core.errors import WireconfError


class CassetteFormatError(WireconfError, ValueError):
    """A body (or a cassette) written in none of the forms a cassette file has; a ``ValueError`` too,
    for vcrpy, whose serializer's callers expect one, and for the readers that add the file's name."""


EventItem = str | list[str]


class LiteralText(str):
    """A string the cassette dumper writes as a YAML literal block (``|``)."""


def _event_item(event: str, eol: str) -> EventItem:
    lines = event.split(eol)
    if len(lines) == 1:
        return lines[0]
    if any(line != line.rstrip(" \t") for line in lines):
        return lines
    return LiteralText("\n".join(lines))


def _line_ending(text: str) -> str | None:
    """``\\r\\n`` when every line ends so, ``\\n`` when no line has a CR, else ``None`` (mixed)."""
    if "\r\n" in text:
        rest = text.replace("\r\n", "")
        return "\r\n" if "\r" not in rest and "\n" not in rest else None
    return None if "\r" in text else "\n"


def decode_sse(form: Any, eol: Any = None) -> str:
    """The stream text of ``{sse: [...], eol: ...}``; also accepts the older form, one literal string."""
    if isinstance(form, str):
        return form
    if not isinstance(form, list):
        raise CassetteFormatError("an sse body is a list of events (strings or lists of lines)")
    ending = "\n" if eol is None else eol
    if ending not in ("\n", "\r\n"):
        raise CassetteFormatError('eol is "\\n" or "\\r\\n"')
    out = []
    for index, item in enumerate(form):
        if isinstance(item, str):
            lines = item.split("\n")
        elif isinstance(item, list) and all(isinstance(line, str) for line in item):
            lines = item
        else:
            raise CassetteFormatError(f"sse event {index} is neither a string nor a list of lines")
        out.append(ending.join(lines) + ending + ending)
    return "".join(out)


def encode_sse(text: str) -> dict[str, Any] | None:
    """``{sse: [...]}`` (plus ``eol``) for ``text``, or ``None`` when that form cannot hold it exactly."""
    eol = _line_ending(text)
    if eol is None or not text:
        return None
    chunks = text.split(eol + eol)
    if chunks[-1] != "":
        return None  # the stream does not end with a blank line
    form: dict[str, Any] = {"sse": [_event_item(event, eol) for event in chunks[:-1]]}
    if eol != "\n":
        form["eol"] = eol
    if decode_sse(form["sse"], form.get("eol")) != text:
        return None
    return form


def looks_like_sse(text: str) -> bool:
    """A body without a content type that is framed as server-sent events."""
    return text.lstrip().startswith(("data:", "event:", "id:", ":"))
