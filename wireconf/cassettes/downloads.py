"""Media downloads a runtime makes while it builds a request, answered with fixture bytes.

Some runtimes fetch a media part's URL to inline its bytes (LiteLLM for Gemini and Anthropic images,
langchain-google-genai through ``requests``, the Vercel AI SDK's ``download()`` for PDFs, audio ...).
The case runner has no network, so without an answer the case ends in the runtime's download error
(``ImageFetchError``, ``DownloadError``, ``fetch failed``) and what the runtime would really send is
never seen. A download of a URL **that the case's input names** (a part's ``value``) is answered here
with a small valid file of the part's media type (``Download``), always the same bytes; the runtime
then builds the request it builds in production, and where it inlines the bytes where the spec sends
the URL, that is the difference judged. Any other URL is refused as a network attempt
(``GUARD.refuse``): the case is an error naming the host, never a verdict.

One module serves every runtime: the Python HTTP transports (``wireconf.adapters.http_answer``: httpx
and ``requests``) and the exec protocol's ``http`` message (``wireconf.exec_protocol.client``), which
the JavaScript client's fetch sends, so the JavaScript side gets these bytes from the harness, and the
provider emulator's download proxy (``wireconf.emulator``), for any HTTP library pointed at it.
"""

from __future__ import annotations

import base64
import mimetypes
import struct
import wave
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from io import BytesIO
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from wireconf.cassettes.network_guard import GUARD, NetworkBlocked

DEFAULT_PORTS = {"http": 80, "https": 443}
"""The schemes a runtime downloads from (a ``gs://`` or ``data:`` value is never fetched over HTTP), with
the port an HTTP client leaves out of the URL."""
DOWNLOADABLE = tuple(DEFAULT_PORTS)

OCTET_STREAM = "application/octet-stream"


@dataclass(frozen=True)
class Download:
    """The answer to a download: the media type served as ``content-type`` and the file's bytes."""

    url: str
    media_type: str
    body: bytes

    @property
    def status(self) -> int:
        return 200

    @property
    def headers(self) -> list[tuple[str, str]]:
        return [("content-type", self.media_type), ("content-length", str(len(self.body)))]


def _png() -> bytes:
    """A 1x1 white PNG (8-bit RGB)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\xff\xff")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _wav() -> bytes:
    """A WAV of eight samples of silence (8 kHz, mono, 8-bit), written by the standard library."""
    out = BytesIO()
    with wave.open(out, "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(1)
        audio.setframerate(8000)
        audio.writeframes(b"\x80" * 8)
    return out.getvalue()


def _mp3() -> bytes:
    """One silent MPEG-1 Layer III frame (128 kbit/s, 44.1 kHz: 417 bytes)."""
    return b"\xff\xfb\x90\x00" + b"\x00" * 413


def _pdf() -> bytes:
    """A one-page PDF with a correct cross-reference table."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


JPEG = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19i"
    "Z2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj"
    "Y2NjY2NjY2P/wAARCAABAAEDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAf/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QA"
    "FAEBAAAAAAAAAAAAAAAAAAAAAP/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AKAAD//Z"
)
"""A 1x1 white baseline JPEG (written by Chromium's encoder, its ICC profile left out)."""

WEBP = base64.b64decode("UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAsBMJaQAA3AA/veMAAA=")
"""A 1x1 white lossy WebP (Chromium's encoder, the bare ``VP8`` chunk)."""

GIF = base64.b64decode("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==")
"""A 1x1 transparent GIF."""


FIXTURES: dict[str, Callable[[], bytes]] = {
    "image/png": _png,
    "image/jpeg": lambda: JPEG,
    "image/jpg": lambda: JPEG,
    "image/webp": lambda: WEBP,
    "image/gif": lambda: GIF,
    "application/pdf": _pdf,
    "audio/wav": _wav,
    "audio/x-wav": _wav,
    "audio/wave": _wav,
    "audio/vnd.wave": _wav,
    "audio/mpeg": _mp3,
    "audio/mp3": _mp3,
    "text/csv": lambda: b"name,value\nwireconf,1\n",
    "application/json": lambda: b'{"wireconf": "fixture"}\n',
}
"""The file served for each media type a fixture is known for (aliases beside their names)."""


@cache
def fixture(media_type: str) -> bytes:
    """The fixture bytes served for ``media_type`` (parameters such as ``; charset`` ignored): a small
    valid file of that type where one is known (``FIXTURES``), otherwise a short text naming the type."""
    kind = media_type.split(";")[0].strip().lower()
    make = FIXTURES.get(kind)
    return make() if make is not None else f"wireconf fixture ({kind or OCTET_STREAM})\n".encode()


def _parts(messages: Any) -> Iterable[Mapping[str, Any]]:
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, Mapping):
            continue
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, Mapping):
                yield part


def named_media(messages: Any) -> dict[str, str]:
    """The http(s) URLs the case's messages name as a media part's value, each with the media type it is
    served as: the part's ``mediaType``, else the one its file name suggests, else octet-stream."""
    named: dict[str, str] = {}
    for part in _parts(messages):
        if part.get("kind") == "text":  # a URL in a text is words, not media
            continue
        value = part.get("value")
        if not isinstance(value, str) or urlsplit(value).scheme.lower() not in DOWNLOADABLE:
            continue
        media_type = part.get("mediaType")
        if not isinstance(media_type, str) or not media_type:
            media_type = mimetypes.guess_type(urlsplit(value).path)[0] or OCTET_STREAM
        named.setdefault(value, media_type)
    return named


class Downloads:
    """The downloads of one call, answered for the URLs its input names (``named_media``)."""

    def __init__(self, messages: Any = None) -> None:
        self.named = named_media(messages)

    def lookup(self, url: str) -> Download | None:
        """The fixture for ``url`` when the input names it (as written, or as an HTTP client writes it
        back: percent-encoding and default ports normalised), else None."""
        media_type = self.named.get(url)
        if media_type is None:
            wanted = _normalised(url)
            media_type = next((t for u, t in self.named.items() if _normalised(u) == wanted), None)
        return None if media_type is None else Download(url, media_type, fixture(media_type))

    def answer(self, method: str, url: str) -> Download | None:
        """The answer to a runtime's ``method`` request for ``url``: a download (``GET`` or ``HEAD``) of
        a URL the input names; ``None`` for anything else (the caller keeps it as a network attempt)."""
        return self.lookup(url) if method.upper() in ("GET", "HEAD") else None

    def fetch(self, method: str, url: str) -> Download:
        """``answer``, or ``NetworkBlocked`` (the attempt kept, so the case is an error naming the
        host) for anything the input does not name."""
        found = self.answer(method, url)
        if found is None:
            raise refused(url)
        return found


def refused(url: str) -> NetworkBlocked:
    """A request nothing answers, kept as a network attempt (``GUARD.refuse``): the error to raise."""
    parts = urlsplit(url)
    port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower())
    return GUARD.refuse("fetch", parts.hostname or url, port)


def _normalised(url: str) -> tuple[str, str, str, str]:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    default = DEFAULT_PORTS.get(parts.scheme.lower())
    netloc = host if parts.port in (None, default) else f"{host}:{parts.port}"
    path = quote(unquote(parts.path or "/"), safe="/:@!$&'()*+,;=-._~")
    return parts.scheme.lower(), netloc, path, parts.query
