"""Scrubbing removes secrets where they are known to live; the scan stops the rest; writes are atomic."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO
from wireconf.cassettes.atomic import write_atomic
from wireconf.cassettes.scrub import before_record_request, scrub_interaction, scrub_uri
from wireconf.cassettes.secret_scan import scan
from wireconf.cassettes.writer import SecretInCassette, cassette_text, write_cassette


def interaction(request_headers=None, response_headers=None, uri="https://api.openai.com/v1/chat/completions",
                request_body=b'{"model":"m"}', response_body=b'{"id":"x"}'):  # fmt: skip
    return {
        "request": {"method": "POST", "uri": uri, "headers": request_headers or {}, "body": request_body},
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": response_headers or {"Content-Type": ["application/json"]},
            "body": {"string": response_body},
        },
    }


def test_headers_keep_only_the_allowlist_in_both_directions():
    out = scrub_interaction(
        interaction(
            {
                "Authorization": ["Bearer sk-x"],
                "x-api-key": ["k"],
                "x-goog-api-key": ["k"],
                "api-key": ["k"],
                "OpenAI-Organization": ["org-1"],
                "openai-project": ["proj_1"],
                "Cookie": ["a=b"],
                "Content-Type": ["application/json"],
                "anthropic-version": ["2023-06-01"],
                "x-stainless-os": ["Linux"],
            },
            {
                "Content-Type": ["application/json"],
                "set-cookie": ["a=b"],
                "anthropic-organization-id": ["o"],
                "openai-organization": ["org-1"],
                "x-request-id": ["r"],
                "date": ["now"],
                "retry-after": ["1"],
            },
        )
    )
    assert out["request"]["headers"] == {
        "Content-Type": ["application/json"],
        "anthropic-version": ["2023-06-01"],
    }
    assert out["response"]["headers"] == {"Content-Type": ["application/json"], "retry-after": ["1"]}


def test_request_uris_keep_only_allowlisted_query_parameters_byte_for_byte():
    uri = "https://g.example/v1beta/models/m:streamGenerateContent?alt=sse&key=AIzaXYZ&st=2024%3A01"
    assert scrub_uri(uri) == "https://g.example/v1beta/models/m:streamGenerateContent?alt=sse"
    assert scrub_uri("https://x/y?API_KEY=1") == "https://x/y"
    assert scrub_uri("https://x/y?api-version=2024-10-21&a=1") == "https://x/y?api-version=2024-10-21"


def test_body_credentials_urls_and_identifiers_are_scrubbed():
    request = json.dumps(
        {"model": "m", "metadata": {"api_key": "k-1", "user": "u"}, "access_token": "t"}
    ).encode()
    url = "https://blob.example/private/org-ABCDEFGHIJKLMNOPQRSTUVWX/img.png?se=1&sig=abc%2Fdef"
    response = json.dumps({"data": [{"url": url}], "max_tokens": 5}).encode()
    out = scrub_interaction(interaction(request_body=request, response_body=response))
    assert json.loads(out["request"]["body"]) == {
        "model": "m",
        "metadata": {"api_key": "<scrubbed>", "user": "u"},
        "access_token": "<scrubbed>",
    }
    assert json.loads(out["response"]["body"]["string"]) == {
        "data": [{"url": "https://blob.example/private/org-<scrubbed>/img.png?se=1"}],
        "max_tokens": 5,
    }


def test_an_event_stream_is_never_rewritten():
    sse = b'data: {"api_key": "x"}\n\n'
    out = scrub_interaction(
        interaction(response_body=sse, response_headers={"content-type": ["text/event-stream"]})
    )
    assert out["response"]["body"]["string"] == sse


@pytest.mark.parametrize(
    ("secret", "what"),
    [
        ("sk-proj-" + "A1b2" * 12, "OpenAI API key"),
        ("sk-ant-api03-" + "x" * 40, "Anthropic API key"),
        ("sk-ant-" + "x" * 16, "Anthropic API key"),  # 20 characters after sk-, as OpenAI's shortest
        ("AIza" + "B" * 35, "Google API key"),
        ("ya29." + "c" * 30, "Google OAuth access token"),
        ("Bearer " + "d" * 30, "bearer token"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijklmnop", "JSON Web Token"),
        ("AKIA" + "E" * 16, "AWS access key id"),
        ("ghp_" + "f" * 36, "GitHub token"),
        ("-----BEGIN RSA PRIVATE KEY-----", "private key"),
        ("org-" + "G" * 24, "OpenAI organisation id"),
    ],
)
def test_the_scan_finds_secret_shapes_and_never_prints_them(secret, what):
    (finding,) = scan(f"a: 1\nb: 'text {secret} text'\n", values={})
    assert finding.line == 2 and finding.what.startswith(what)
    assert secret not in str(finding) and f"({len(secret)} chars)" in str(finding)


def test_the_scan_finds_the_exact_values_of_the_key_variables():
    env = {"OPENAI_API_KEY": "plainvalue123", "ANTHROPIC_API_KEY": "short", "GEMINI_API_KEY": ""}
    from wireconf.cassettes.secret_scan import key_values

    values = key_values(env)
    assert values == {"OPENAI_API_KEY": "plainvalue123"}  # too short or empty values are not keys
    (finding,) = scan("x\ny plainvalue123\n", values)
    assert finding.what == "the value of $OPENAI_API_KEY" and finding.line == 2


def test_the_scan_finds_nothing_in_the_real_traffic_cassettes():
    from wireconf.cassettes.format import decoded_interaction, deserialize
    from wireconf.cassettes.secret_scan import scan_interactions

    for path in sorted((REPO / "cassettes").rglob("*.yaml")):
        text = path.read_text()
        assert scan(text, values={}) == [], path.name
        interactions = [decoded_interaction(i) for i in deserialize(text)["interactions"]]
        assert scan_interactions(interactions, values={}) == [], path.name


def test_a_hit_writes_nothing_and_keeps_the_old_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("old")
    leaking = {"interactions": [interaction(response_body=b'{"note": "sk-proj-' + b"z" * 40 + b'"}')]}
    with pytest.raises(SecretInCassette, match=r"refusing to write .*c\.yaml.*1 secret-looking"):
        write_cassette(path, leaking, environ={})
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["c.yaml"]
    with pytest.raises(SecretInCassette, match=r"the value of \$ANTHROPIC_API_KEY"):
        write_cassette(path, {"interactions": [interaction(request_body=b'{"q": "my-anthropic-key"}')]},
                       environ={"ANTHROPIC_API_KEY": "my-anthropic-key"})  # fmt: skip


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "c.yaml"
    path.write_text("old")

    def crash(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr("os.replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, "new")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["c.yaml"]


def test_the_text_is_scrubbed_before_it_is_scanned():
    text = cassette_text({"interactions": [interaction({"Authorization": ["Bearer sk-proj-" + "q" * 40]})]})
    assert "Bearer" not in text and scan(text, values={}) == []


def test_the_vcrpy_request_hook_scrubs_a_vcr_request():
    from vcr.request import Request

    request = Request(
        "POST", "https://x/v1/m?key=abc&alt=sse", b'{"api_key": "k"}', {"Authorization": "Bearer k"}
    )
    out = before_record_request(request)
    assert out.uri == "https://x/v1/m?alt=sse" and dict(out.headers) == {}
    assert json.loads(out.body) == {"api_key": "<scrubbed>"}


def test_credential_named_keys_inside_model_content_are_kept():
    """A tool argument or schema property named ``password`` is the model's data, not the recording's
    credential; the same key at the body's own level is a credential and is masked."""
    from wireconf.cassettes.scrub import SCRUBBED, scrub_json

    body = {
        "api_key": "k-123",
        "contents": [{"parts": [{"functionCall": {"name": "login", "args": {"password": "mellon"}}}]}],
        "tools": [{"input_schema": {"properties": {"password": {"type": "string"}}}}],
        "nested": {"client_secret": "s3cr3t", "count": 2},
    }
    cleaned = scrub_json(body)
    assert cleaned["api_key"] == SCRUBBED and cleaned["nested"]["client_secret"] == SCRUBBED
    assert cleaned["contents"][0]["parts"][0]["functionCall"]["args"] == {"password": "mellon"}
    assert cleaned["tools"][0]["input_schema"]["properties"]["password"] == {"type": "string"}


# --- every rendering of a key is found, not only the one in the YAML text ----------------------------

PLAIN_KEY = "plainKeyValue-0123456789abcdefXYZ"
"""A key with no known shape: only its value (from the environment) can tell it is a secret."""
ENV = {"OPENAI_API_KEY": PLAIN_KEY}


def _sse(deltas: list[str]) -> bytes:
    chunks = [{"choices": [{"index": 0, "delta": {"content": d}}]} for d in deltas]
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


def _b64(prefix: bytes) -> bytes:
    import base64

    return json.dumps({"blob": base64.b64encode(prefix + PLAIN_KEY.encode() + b"!").decode()}).encode()


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        pytest.param(
            b"\xff\xfe\x00 " + PLAIN_KEY.encode() + b" \x80\x81", "application/octet-stream", id="not-utf8"
        ),
        pytest.param(
            ("caf\u00e9 " + PLAIN_KEY + " caf\u00e9").encode()[:-1], "text/plain", id="cut-mid-character"
        ),
        pytest.param(_b64(b""), "application/json", id="base64"),
        pytest.param(_b64(b"x"), "application/json", id="base64-offset-1"),
        pytest.param(_b64(b"xy"), "application/json", id="base64-offset-2"),
        pytest.param(
            json.dumps(
                {"blob": __import__("base64").urlsafe_b64encode(b"\xfb\xff" + PLAIN_KEY.encode()).decode()}
            ).encode(),
            "application/json",
            id="urlsafe-base64",
        ),
        pytest.param(json.dumps({"hex": PLAIN_KEY.encode().hex()}).encode(), "application/json", id="hex"),
        pytest.param(
            json.dumps({"HEX": PLAIN_KEY.encode().hex().upper()}).encode(), "application/json", id="hex-upper"
        ),
        pytest.param(
            json.dumps({"q": "".join(f"%{b:02X}" for b in PLAIN_KEY.encode())}).encode(),
            "application/json",
            id="percent-encoded",
        ),
        pytest.param(
            _sse([PLAIN_KEY[i : i + 4] for i in range(0, len(PLAIN_KEY), 4)]),
            "text/event-stream",
            id="stream-deltas",
        ),
        pytest.param(
            _sse(["sk-p", "roj-", *["Abc1"] * 8]),
            "text/event-stream",
            id="key-shape-in-stream-deltas",
        ),
    ],
)
def test_a_key_is_found_in_every_rendering_of_a_body(tmp_path, body, content_type):
    path = tmp_path / "c.yaml"
    cassette = {
        "interactions": [interaction(response_body=body, response_headers={"content-type": [content_type]})]
    }
    with pytest.raises(SecretInCassette):
        write_cassette(path, cassette, environ=ENV)
    assert not path.exists()


def _events(chunks: list[object]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)


def _interleaved(key: str, other: str = "harmless-words-of-choice-one") -> list[tuple[int, str]]:
    """``(index, piece)``: choice 0 spells ``key`` four characters at a time, between choice 1's."""
    mine = [key[i : i + 4] for i in range(0, len(key), 4)]
    theirs = [other[i : i + 4] for i in range(0, len(other), 4)]
    return [pair for a, b in zip(mine, theirs, strict=False) for pair in ((0, a), (1, b))] + [
        (0, piece) for piece in mine[len(theirs) :]
    ]


def _pieces(text: str) -> list[str]:
    return [text[i : i + 4] for i in range(0, len(text), 4)]


def _tool_call_delta(index: int, piece: str) -> dict[str, object]:
    call = {"index": index, "function": {"arguments": piece}}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


def _candidate(text: str) -> dict[str, object]:
    return {"content": {"parts": [{"text": text}]}}


def _escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


ESCAPED_EVENT = (
    b'data: {"choices":[{"index":0,"delta":{"content":"' + _escaped(PLAIN_KEY).encode() + b'"}}]}\n\n'
)
"""One SSE event whose content is the key, every character ``\\u``-escaped (one string, no join)."""


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(ESCAPED_EVENT, id="u-escaped-in-one-event"),
        pytest.param(
            b'data: {"delta":"'
            + PLAIN_KEY[:6].encode()
            + _escaped(PLAIN_KEY[6:9]).encode()
            + PLAIN_KEY[9:].encode()
            + b'"}\n\n',
            id="partly-u-escaped",
        ),
        pytest.param(
            b"data: {not json " + _escaped(PLAIN_KEY).encode() + b"}\n\n", id="u-escaped-outside-json"
        ),
        pytest.param(
            _events(
                [{"choices": [{"index": i, "delta": {"content": p}}]} for i, p in _interleaved(PLAIN_KEY)]
            ),
            id="openai-chat-n2-interleaved",
        ),
        pytest.param(
            _events([_tool_call_delta(i, p) for i, p in _interleaved(PLAIN_KEY)]),
            id="openai-chat-tool-calls-interleaved",
        ),
        pytest.param(
            _events(
                [
                    {"type": "response.output_text.delta", "output_index": i, "content_index": 0, "delta": p}
                    for i, p in _interleaved(PLAIN_KEY)
                ]
            ),
            id="responses-output-items-interleaved",
        ),
        pytest.param(
            _events(
                [
                    {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": p}}
                    for i, p in _interleaved(PLAIN_KEY)
                ]
            ),
            id="anthropic-content-blocks-interleaved",
        ),
        pytest.param(
            _events(
                [
                    {"candidates": [_candidate(a), _candidate(b)]}
                    for a, b in zip(_pieces(PLAIN_KEY), ["lore", "m ip", "sum "] * 3, strict=False)
                ]
            ),
            id="gemini-candidates-without-index",
        ),
    ],
)
def test_a_key_is_found_in_every_rendering_a_provider_stream_can_carry(tmp_path, body):
    path = tmp_path / "c.yaml"
    cassette = {
        "interactions": [
            interaction(response_body=body, response_headers={"content-type": ["text/event-stream"]})
        ]
    }
    with pytest.raises(SecretInCassette, match=r"\$OPENAI_API_KEY"):
        write_cassette(path, cassette, environ=ENV)
    assert not path.exists()


def test_a_key_with_an_escaped_slash_is_found(tmp_path):
    key = "keyWith/slash-0123456789abcdef"
    body = json.dumps({"text": key}).replace("/", "\\/").encode()
    assert key.encode() not in body
    with pytest.raises(SecretInCassette, match=r"\$ANTHROPIC_API_KEY"):
        write_cassette(
            tmp_path / "c.yaml",
            {"interactions": [interaction(response_body=body)]},
            environ={"ANTHROPIC_API_KEY": key},
        )


@pytest.mark.parametrize("padding", [" ", "\n", "\t ", " \r\n"])
def test_a_key_variable_with_whitespace_is_found_and_redacted_as_sent(tmp_path, padding):
    from wireconf.providers.secret_values import key_values, redact

    environ = {"ANTHROPIC_AUTH_TOKEN": padding + PLAIN_KEY + padding}
    with pytest.raises(SecretInCassette, match=r"\$ANTHROPIC_AUTH_TOKEN"):
        write_cassette(
            tmp_path / "c.yaml",
            {"interactions": [interaction(response_body=json.dumps({"echo": PLAIN_KEY}).encode())]},
            environ=environ,
        )
    shown = redact(f"Bearer {PLAIN_KEY}, again {PLAIN_KEY}!", key_values(environ))
    assert PLAIN_KEY not in shown and PLAIN_KEY[:8] not in shown
    assert shown == "Bearer <$ANTHROPIC_AUTH_TOKEN>, again <$ANTHROPIC_AUTH_TOKEN>!"


def test_a_percent_encoded_key_in_the_request_is_found(tmp_path):
    key = "key/with+special=chars0123456789"
    uri = "https://x/v1/chat/completions/" + __import__("urllib.parse").parse.quote(key, safe="")
    with pytest.raises(SecretInCassette, match=r"\$OPENAI_API_KEY"):
        write_cassette(
            tmp_path / "c.yaml", {"interactions": [interaction(uri=uri)]}, environ={"OPENAI_API_KEY": key}
        )


def test_query_parameters_off_the_allowlist_are_never_written():
    uri = "https://apim.example/v1/chat/completions?subscription-key=0f1e2d3c4b5a69788796a5b4c3d2e1f0&alt=sse"
    text = cassette_text({"interactions": [interaction(uri=uri)]})
    assert "0f1e2d3c4b5a" not in text and "subscription-key" not in text
    assert "chat/completions?alt=sse" in text


def test_the_renderings_of_a_set_of_keys_are_worked_out_once_and_redact_every_text_alike():
    """With a key set, every property of every report of every case is redacted: the renderings (about
    seventeen per key, sorted) are made once per set of keys, not once per text; a changed key is
    another set, and its own renderings are used."""
    from wireconf.providers.secret_values import redact, renderings

    key = "sk-once-" + "9" * 40
    first = renderings({"OPENAI_API_KEY": key})
    assert renderings({"OPENAI_API_KEY": key}) is first
    assert [text for _, _, text in first] == sorted((text for _, _, text in first), key=len, reverse=True)
    assert redact(f"a {key} b", {"OPENAI_API_KEY": key}) == "a <$OPENAI_API_KEY> b"
    other = "sk-other-" + "8" * 40
    assert renderings({"OPENAI_API_KEY": other}) is not first
    assert redact(f"a {key} {other}", {"OPENAI_API_KEY": other}) == f"a {key} <$OPENAI_API_KEY>"


def test_a_report_property_is_redacted_once_per_set_of_keys_whatever_its_length():
    """The report wrapper redacts each property of each of a case's three reports: a short one (an id,
    an api, the rules) once per process for a set of keys, a long one each time, both alike."""
    from wireconf.pytest_plugin import record_mode

    key = "sk-prop-" + "7" * 40
    values = {"OPENAI_API_KEY": key}
    short = f"case {key}"
    assert record_mode._redacted(short, values) == "case <$OPENAI_API_KEY>"
    assert record_mode._redacted(short, values) is record_mode._redacted(short, values)
    long = "x" * (record_mode.SHORT_TEXT + 1) + key
    assert record_mode._redacted(long, values) == "x" * (record_mode.SHORT_TEXT + 1) + "<$OPENAI_API_KEY>"
    assert record_mode._redacted(short, {"OPENAI_API_KEY": "sk-else-" + "6" * 40}) == short
    assert record_mode._redacted(7, values) == 7
