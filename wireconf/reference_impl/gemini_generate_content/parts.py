"""§7.9.2 part conversion: a ContentPart → a Gemini ``Part`` (text, inlineData or fileData)."""

from __future__ import annotations

import re
from typing import Any

MEDIA_KINDS = ("image", "audio", "file")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_DATA_URL = re.compile(r"^data:(?P<mime>[^;,]*)(?P<params>(;[^;,]*)*),(?P<data>.*)$", re.DOTALL)


def media_part(part: dict[str, Any]) -> dict[str, Any]:
    """Image, audio and file parts: base64 → ``inlineData``, a URI → ``fileData``; both need a MIME type.

    A ``data:`` URL carries its own MIME type and base64 payload, so it is unpacked into ``inlineData``
    rather than sent as a URI Gemini cannot fetch (7.9.2/data-url-unpacked). ``detail`` has no Gemini
    counterpart and is not sent (7.9.2/detail-not-sent).
    """
    value = part.get("value")
    mime = part.get("mediaType")
    if isinstance(value, str) and value.startswith("data:"):
        match = _DATA_URL.match(value)
        if match is None or ";base64" not in match["params"]:
            raise ValueError(f"{part.get('kind')} part: a data: URL must be base64, got {value[:40]!r}")
        data_mime = match["mime"] or _required_mime(part, mime)
        return {"inlineData": {"mimeType": data_mime, "data": match["data"]}}
    mime = _required_mime(part, mime)
    if isinstance(value, str) and _URI.match(value):
        return {"fileData": {"mimeType": mime, "fileUri": value}}
    return {"inlineData": {"mimeType": mime, "data": value}}


def _required_mime(part: dict[str, Any], mime: str | None) -> str:
    """Gemini's Blob and FileData both require a MIME type (7.9.2/media-type-required)."""
    if not mime:
        raise ValueError(
            f"a {part.get('kind')} part needs a mediaType for Gemini "
            "(inlineData and fileData require a mimeType)"
        )
    return mime


def part_to_wire(part: dict[str, Any]) -> dict[str, Any]:
    kind = part.get("kind")
    if kind == "text":
        return {"text": part.get("value")}
    if kind in MEDIA_KINDS:
        return media_part(part)
    raise ValueError(f"unknown content part kind {kind!r} (text, image, audio, file)")
