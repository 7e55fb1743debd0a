"""Cassettes: readable on disk, loadable by vcrpy, produced by the importer and nothing else."""

from __future__ import annotations

import gzip
import json
import os
from datetime import date
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from wireconf.cassettes import format as cassette_format
from wireconf.cassettes.importer import import_real_traffic, real_traffic_cassette
from wireconf.cassettes.store import CassetteError, CassetteStore, read_cassette
from wireconf.core.stream_probe import split_events

CASSETTES = REPO / "cassettes"
REAL_TRAFFIC = Path(os.environ.get("WIRECONF_REAL_TRAFFIC", REPO.parent / "shared" / "real-traffic"))


def all_cassettes() -> list[Path]:
    return sorted(CASSETTES.rglob("*.yaml"))


@pytest.mark.parametrize("path", all_cassettes(), ids=lambda p: p.stem[:60])
def test_every_cassette_is_valid_and_imported_with_its_source(path):
    cassette = read_cassette(path)
    assert cassette.meta is not None
    assert cassette.meta.provenance in ("imported", "recorded", "synthetic")
    if cassette.meta.provenance == "imported":
        assert cassette.meta.source.repo and len(cassette.meta.source.commit) == 40


@pytest.mark.skipif(not REAL_TRAFFIC.is_dir(), reason="shared/real-traffic is not beside this checkout")
@pytest.mark.parametrize(
    "path", [p for p in all_cassettes() if "imported" in p.read_text()[:600]], ids=lambda p: p.stem[:60]
)
def test_imported_cassettes_are_exactly_what_the_importer_writes(path, tmp_path):
    """No hand edits: re-importing the source gives the same file (apart from the import date)."""
    meta = yaml.safe_load(path.read_text())["wireconf"]
    source = REAL_TRAFFIC / meta["source"]["file"]
    (written,) = import_real_traffic([source], tmp_path, today=date.fromisoformat(meta["date"]))
    assert written.written.read_text() == path.read_text()


def test_json_bodies_are_mappings_and_sse_events_are_items():
    text = (
        CASSETTES
        / "openai"
        / "chat_stream__05__openllmetry__test_open_ai_function_calls_tools_streaming_parallel_i0.yaml"
    ).read_text()
    assert "      json:\n        messages:\n" in text
    assert '      sse:\n      - \'data: {"id":"chatcmpl-9g58' in text
    assert "\n      - 'data: [DONE]'\n" in text
    anthropic = next((CASSETTES / "anthropic").glob("anthropic_stream__01__*.yaml")).read_text()
    assert '      - |-\n        event: ping\n        data: {"type": "ping"}\n' in anthropic
    gemini = next((CASSETTES / "google").glob("gemini_stream__01__*.yaml")).read_text()
    assert '      eol: "\\r\\n"' in gemini and "\\r\\n" not in gemini.split("eol:")[0]


def test_roundtrip_keeps_bytes_of_streams_and_json_values():
    sources = sorted(REAL_TRAFFIC.glob("chat_stream__01__*.json"))
    if not sources:
        pytest.skip("real traffic not available")
    source = sources[0]
    _, cassette = real_traffic_cassette(source, date(2026, 1, 1))
    back = cassette_format.deserialize(cassette_format.serialize(cassette))
    original = json.loads(source.read_text())
    assert back["interactions"][0]["response"]["body"]["string"] == original["response"]["body"].encode()
    assert json.loads(back["interactions"][0]["request"]["body"]) == original["request"]["body"]
    assert back["wireconf"]["source"]["repo"] == original["source_repo"]


def test_gzip_bodies_are_decoded_and_their_encoding_dropped():
    body = json.dumps({"ok": True}).encode()
    vcr_dict = {
        "interactions": [
            {
                "request": {"method": "POST", "uri": "https://x/v1", "body": None, "headers": {}},
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"Content-Type": ["application/json"], "Content-Encoding": ["gzip"]},
                    "body": {"string": gzip.compress(body)},
                },
            }
        ],
        "version": 1,
    }
    text = cassette_format.serialize(vcr_dict)
    assert "Content-Encoding" not in text and "json:\n        ok: true" in text
    assert (
        cassette_format.deserialize(text)["interactions"][0]["response"]["body"]["string"] == b'{"ok":true}'
    )


def test_vcrpy_loads_our_cassettes_with_the_registered_serializer(tmp_path):
    import vcr
    from vcr.cassette import Cassette

    name = "chat__07__ruby-openai__gpt_3_5_turbo_valid_tool_call_chat_i0.yaml"
    (tmp_path / name).write_text((CASSETTES / "openai" / name).read_text())
    my_vcr = vcr.VCR(cassette_library_dir=str(tmp_path), serializer="wireconf")
    my_vcr.register_serializer("wireconf", cassette_format)
    cassette = Cassette.load(path=str(tmp_path / name), serializer=cassette_format)
    assert len(cassette) == 1
    (request,) = cassette.requests
    assert request.uri == "https://api.openai.com/v1/chat/completions"
    assert json.loads(cassette.responses[0]["body"]["string"])["choices"][0]["finish_reason"] == "tool_calls"


def test_store_errors_name_the_file(tmp_path):
    store = CassetteStore(tmp_path)
    with pytest.raises(
        CassetteError, match=r"cassette openai/missing not found: .*openai/missing\.yaml does not exist"
    ):
        store.load("openai/missing")
    (tmp_path / "broken.yaml").write_text("interactions:\n- request: [\n")
    with pytest.raises(CassetteError, match=r"broken\.yaml:3: not valid YAML"):
        store.load("broken")
    (tmp_path / "one.yaml").write_text(
        "interactions:\n"
        "- request: {method: GET, uri: 'https://x'}\n"
        "  response: {status: {code: 200}, body: {string: hi}}\n"
    )
    with pytest.raises(CassetteError, match=r"has 1 interaction.*no interaction 3"):
        store.interaction("one", 3)
    with pytest.raises(CassetteError, match="not a relative path"):
        store.load("../etc/passwd")


def test_sse_events_are_split_keeping_their_bytes():
    body = b'data: {"a":1}\n\ndata: {"b":2}\r\n\r\ndata: [DONE]\n\n'
    assert split_events(body) == [b'data: {"a":1}\n\n', b'data: {"b":2}\r\n\r\n', b"data: [DONE]\n\n"]
    assert b"".join(split_events(body + b"data: tail")) == body + b"data: tail"
