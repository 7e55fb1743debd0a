"""Media downloads answered with fixture bytes (``wireconf.cassettes.downloads``): valid files of each
media type, only for URLs the case's input names; any other URL is a kept network attempt."""

from __future__ import annotations

import re
import wave
from io import BytesIO

import pytest

from tests.png import read_png
from wireconf.cassettes.downloads import Downloads, fixture, named_media
from wireconf.cassettes.network_guard import GUARD, NetworkBlocked
from wireconf.exec_protocol.client import _http_answer

MESSAGES = [
    {"role": "system", "content": [{"kind": "text", "value": "https://not-a-part.example/x.png"}]},
    {
        "role": "user",
        "content": [
            {"kind": "image", "value": "https://example.com/a%20b.png"},
            {"kind": "file", "value": "https://example.com/report", "mediaType": "application/pdf"},
            {"kind": "audio", "value": "gs://bucket/a.mp3", "mediaType": "audio/mpeg"},
            {"kind": "image", "value": "data:image/png;base64,iVBORw0KGgo="},
            {"kind": "file", "value": "https://example.com/blob"},
        ],
    },
]


def test_only_http_urls_of_parts_are_named_with_the_parts_media_type():
    assert named_media(MESSAGES) == {
        "https://example.com/a%20b.png": "image/png",  # guessed from the file name
        "https://example.com/report": "application/pdf",  # as the part says
        "https://example.com/blob": "application/octet-stream",
    }
    assert named_media(None) == {} and named_media([{"content": "plain text"}]) == {}


def test_fixtures_are_valid_files_of_their_type():
    width, height, rows = read_png_bytes(fixture("image/png"))
    assert (width, height, rows) == (1, 1, [b"\xff\xff\xff"])
    with wave.open(BytesIO(fixture("audio/wav"))) as audio:
        assert (audio.getnchannels(), audio.getframerate(), audio.getnframes()) == (1, 8000, 8)
    assert fixture("audio/x-wav") == fixture("audio/wav")
    pdf = fixture("application/pdf")
    startxref = int(re.search(rb"startxref\n(\d+)", pdf).group(1))
    assert pdf.startswith(b"%PDF-") and pdf[startxref:].startswith(b"xref")
    for number, offset in enumerate(re.findall(rb"(\d{10}) 00000 n", pdf), 1):
        assert pdf[int(offset) :].startswith(b"%d 0 obj" % number)
    jpeg = fixture("image/jpeg; charset=binary")
    assert jpeg.startswith(b"\xff\xd8") and jpeg.endswith(b"\xff\xd9")
    assert fixture("image/webp")[8:12] == b"WEBP" and fixture("image/gif").startswith(b"GIF89a")
    assert fixture("audio/mpeg")[:2] == b"\xff\xfb"
    assert b"text/x-unknown" in fixture("text/x-unknown")


def read_png_bytes(data: bytes) -> tuple[int, int, list[bytes]]:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fixture.png"
        path.write_bytes(data)
        return read_png(path)


def test_a_named_url_is_answered_as_written_or_normalised():
    downloads = Downloads(MESSAGES)
    found = downloads.fetch("GET", "https://EXAMPLE.com:443/a b.png")
    assert (found.status, found.media_type, found.body) == (200, "image/png", fixture("image/png"))
    assert ("content-length", str(len(found.body))) in found.headers
    assert downloads.fetch("GET", "https://example.com/report").media_type == "application/pdf"


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("GET", "https://example.com/elsewhere.png"),
        ("GET", "https://not-a-part.example/x.png"),  # in a text part: words, not media
        ("POST", "https://example.com/report"),
        ("GET", "gs://bucket/a.mp3"),
    ],
)
def test_anything_else_is_a_kept_network_attempt(method, url):
    mark = GUARD.mark()
    with pytest.raises(NetworkBlocked):
        Downloads(MESSAGES).fetch(method, url)
    assert [a.action for a in GUARD.since(mark)] == ["fetch"]


def test_the_exec_protocols_http_is_answered_from_the_calls_messages():
    downloads = Downloads(MESSAGES)
    head, chunks = _http_answer({"method": "GET", "url": "https://example.com/report"}, downloads, None)
    assert chunks is None and head["status"] == 200
    assert head["headers"]["content-type"] == ["application/pdf"]
    assert head["body"] == fixture("application/pdf").decode()  # a PDF of ASCII travels as text
    mark = GUARD.mark()
    refused, _ = _http_answer({"method": "GET", "url": "https://example.com/x"}, downloads, None)
    assert "example.com" in refused["error"] and len(GUARD.since(mark)) == 1
