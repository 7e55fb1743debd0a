"""The readable forms: every recorded byte comes back; streams are one item per event."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import pytest

from tests.conftest import REPO
from wireconf.cassettes import format as cassette_format
from wireconf.cassettes.importer import real_traffic_cassette
from wireconf.cassettes.sse_form import decode_sse, encode_sse

REAL_TRAFFIC = Path(os.environ.get("WIRECONF_REAL_TRAFFIC", REPO.parent / "shared" / "real-traffic"))
SOURCES = sorted(REAL_TRAFFIC.glob("*.json")) if REAL_TRAFFIC.is_dir() else []


@pytest.mark.skipif(not SOURCES, reason="shared/real-traffic is not beside this checkout")
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem[:50])
def test_every_recorded_response_body_comes_back_byte_for_byte(source):
    _, cassette = real_traffic_cassette(source, date(2026, 1, 1))
    text = cassette_format.serialize(cassette)
    back = cassette_format.deserialize(text)["interactions"][0]["response"]["body"]["string"]
    original = json.loads(source.read_text())["response"]["body"]
    if isinstance(original, str) and original.startswith(("data:", "event:")):
        assert back == original.encode()
        assert "      sse:\n" in text  # every event stream of real traffic has the readable form
    elif isinstance(original, str) and not original.lstrip().startswith(("{", "[")):
        assert back == original.encode()
    else:  # JSON (a Gemini stream without alt=sse is a JSON array): the same value
        assert json.loads(back) == (json.loads(original) if isinstance(original, str) else original)


def test_padded_lines_are_quoted_lines_and_nothing_trails():
    stream = 'event: a\ndata: {"x":1}   \n\nevent: b\ndata: {"y":2}\n\ndata: one line  \n\n'
    form = encode_sse(stream)
    assert form == {"sse": [["event: a", 'data: {"x":1}   '], 'event: b\ndata: {"y":2}', "data: one line  "]}
    text = cassette_format.dump_yaml({"body": form})
    assert not any(line != line.rstrip() for line in text.splitlines())
    assert "  - - 'event: a'\n    - 'data: {\"x\":1}   '\n" in text and "  - |-\n    event: b\n" in text
    assert decode_sse(form["sse"]) == stream


def test_crlf_streams_say_so_once_and_mixed_or_cut_streams_stay_strings():
    crlf = 'data: {"a":1}\r\n\r\ndata: {"b":2}\r\n\r\n'
    assert encode_sse(crlf) == {"sse": ['data: {"a":1}', 'data: {"b":2}'], "eol": "\r\n"}
    assert encode_sse("data: 1\r\n\r\ndata: 2\n\n") is None  # mixed line endings
    assert encode_sse("data: 1\n\ndata: cut") is None  # no final blank line
    body = cassette_format.encode_body(b"data: 1\n\ndata: cut", "text/event-stream")
    assert body == {"string": "data: 1\n\ndata: cut"}


def test_a_stream_without_a_content_type_is_recognised_by_its_framing():
    assert cassette_format.encode_body(b"data: {}\r\n\r\n", None) == {"sse": ["data: {}"], "eol": "\r\n"}
    assert cassette_format.encode_body(b'{"a": 1}', None) == {"json": {"a": 1}}


def test_older_literal_sse_bodies_still_load():
    assert cassette_format.decode_body({"sse": "data: 1\n\n"}) == b"data: 1\n\n"
    with pytest.raises(ValueError, match="sse event 0 is neither"):
        cassette_format.decode_body({"sse": [{"event": "x"}]})
    with pytest.raises(ValueError, match="eol is"):
        cassette_format.decode_body({"sse": ["data: 1"], "eol": "\r"})
