"""The JavaScript/TypeScript exec client (``wireconf/exec_protocol/js``, ``@wireconf/exec``): its generated
types and constants are current, its own tests (node's test runner) pass, and the tarball ``wireconf
exec-client --path`` prints installs with npm and exports the API."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest

from wireconf.exec_protocol.js_client import PACKAGE, generated, tarball, tarball_bytes
from wireconf.exec_protocol.schema import generate

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(
    NODE is None and not os.environ.get("CI"),
    reason="node (Node.js) is not on PATH: the JS client is not run",
)


def test_the_generated_files_are_the_ones_the_schema_gives():
    """protocol.d.ts and lib/protocol.js are generated from the same records as schema.json."""
    for path, text in generated(generate()).items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run `wireconf exec-schema --write`"
        )


def test_every_message_of_the_schema_has_a_type_and_a_side():
    schema = generate()
    text = (PACKAGE / "protocol.d.ts").read_text(encoding="utf-8")
    messages = [
        name
        for name in schema["$defs"]
        if "const" in schema["$defs"][name].get("properties", {}).get("type", {})
    ]
    assert {"hello", "call", "http", "response", "error", "stop"} <= set(messages)
    sides = {
        side: line.split("=", 1)[1].strip(" ;").split(" | ")
        for line in text.splitlines()
        for side in ("HarnessMessage", "RuntimeMessage")
        if line.startswith(f"export type {side} =")
    }
    named = [f"{m[:1].upper()}{m[1:]}Message" for m in messages]
    assert sorted(sides["HarnessMessage"] + sides["RuntimeMessage"]) == sorted(named)
    assert "export type Capability = `${Kind}:${Api}` | `concept:${Concept}`;" in text
    assert '"gemini.generate_content"' in text.split("export type Api =", 1)[1].split(";", 1)[0]


def test_the_tarball_is_the_package_files_and_the_same_every_time(tmp_path):
    name, data = tarball_bytes()
    assert tarball_bytes() == (name, data) and name == "wireconf-exec-0.1.0.tgz"
    path = tarball(tmp_path)
    assert path.read_bytes() == data and tarball(tmp_path) == path
    with tarfile.open(path) as archive:
        names = set(archive.getnames())
    assert {
        "package/package.json",
        "package/index.js",
        "package/index.d.ts",
        "package/protocol.d.ts",
    } <= names
    assert "package/lib/protocol.js" in names and not any("/test/" in n for n in names)


@needs_node
def test_the_client_passes_its_own_tests():
    """node --test, as `npm test` runs it in the package (its tests speak to a stand-in harness)."""
    done = subprocess.run(
        [NODE or "node", "--test", "test/"], cwd=PACKAGE, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    counts = dict(
        line[2:].split(" ", 1)
        for line in done.stdout.splitlines()
        if line.startswith("# ") and " " in line[2:]
    )
    assert int(counts["pass"]) >= 10 and counts["fail"] == "0"


@needs_node
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not on PATH")
def test_the_printed_tarball_installs_offline_and_exports_the_api(tmp_path):
    printed = subprocess.run(
        ["wireconf", "exec-client", "--path", "--cache", str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"},
    ).stdout.strip()
    project = tmp_path / "runtime"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "r", "private": True, "type": "module"}))
    subprocess.run(
        ["npm", "install", "--offline", "--no-audit", "--no-fund", printed],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    script = "const m = await import('@wireconf/exec'); console.log(JSON.stringify(Object.keys(m).sort()))"
    shown = subprocess.run(
        [NODE or "node", "--input-type=module", "-e", script],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    exported = set(json.loads(shown.stdout))
    assert {"serve", "Call", "ValueError", "errorPayload", "responseOf", "PROTOCOL_VERSION"} <= exported
    assert (project / "node_modules" / "@wireconf" / "exec" / "index.d.ts").is_file()


def test_a_bad_capability_of_an_exec_runtime_points_at_the_exec_schema(pytester):
    """The hint names where an exec runtime's author finds the capabilities: `wireconf exec-schema`."""
    import shlex

    from tests.conftest import CASES

    path = pytester.path / "runtime.py"
    path.write_text(
        'print(\'{"type":"hello","protocol":2,"name":"x","version":"1","capabilities":["wire:openai.chatt"]}\')\n'
        "import sys; sys.stdin.read()\n"
    )
    result = pytester.runpytest(str(CASES), f"--impl=exec:{shlex.quote(sys.executable)} {path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*wireconf exec-schema lists them*"])
    assert "wireconf schema lists" not in result.stderr.str()


def test_every_providers_e2e_client_is_bridged_and_described_in_each_sdks_form():
    """Gemini's client included (its HTTP client sits elsewhere in google-genai): a request the runtime
    sends reaches the case's transport byte for byte, and the description gives the base URL in the
    forms SDKs take (Anthropic's TypeScript SDK: no /v1; the AI SDK's providers: with it)."""
    import httpx
    import httpx2

    from wireconf.exec_protocol.http_bridge import HttpBridge
    from wireconf.providers import anthropic, google, openai

    seen = []

    def answering(http):
        def answer(request):
            seen.append((request.method, str(request.url), request.content))
            return http.Response(200, json={})

        return http.MockTransport(answer)

    gemini_uri = "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent"
    clients = {
        "openai": openai.client(answering(httpx)),
        "anthropic": anthropic.client(answering(httpx)),
        "google": google.client(answering(httpx2), [gemini_uri]),
    }
    records = {"openai": openai.PROVIDER, "anthropic": anthropic.PROVIDER, "google": google.PROVIDER}
    described = {
        name: HttpBridge(client, records[name].version_path).description for name, client in clients.items()
    }
    assert described["openai"]["api_base_url"] == "https://api.openai.com/v1"
    assert (described["anthropic"]["base_url"], described["anthropic"]["api_base_url"]) == (
        "https://api.anthropic.com",
        "https://api.anthropic.com/v1",
    )
    assert described["google"] == {
        "base_url": "https://generativelanguage.googleapis.com/",
        "origin": "https://generativelanguage.googleapis.com",
        "api_base_url": "https://generativelanguage.googleapis.com/v1beta",
    }
    head, chunks = HttpBridge(clients["google"]).send(
        {
            "method": "POST",
            "url": gemini_uri,
            "headers": {"content-type": ["application/json"]},
            "body": '{"a":1}',
        }
    )
    assert head["status"] == 200 and chunks is None
    assert seen == [("POST", gemini_uri, b'{"a":1}')]


def test_the_guides_javascript_example_is_the_code_that_runs():
    """Each ```js block of docs/adapters.md that names a file (`// file: PATH (excerpt)`) is that file's
    own text, so the worked example is what tests/integration/test_ai_sdk.py runs."""
    import re

    from tests.conftest import REPO

    guide = (REPO / "docs" / "adapters.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```js\n// file: (\S+)[^\n]*\n(.*?)```", guide, re.S)
    assert [name for name, _ in blocks] == ["wireconf/adapters/ai_sdk/server.mjs"]
    for name, code in blocks:
        assert code in (REPO / name).read_text(encoding="utf-8"), f"the guide's excerpt of {name} is stale"
        assert "serve(" in code and "@wireconf/exec" in (REPO / name).read_text(encoding="utf-8")


def test_an_e2e_capability_the_harness_cannot_bridge_is_refused_at_hello(monkeypatch):
    """A provider whose SDK client exposes no HTTP client (say one installed by an extension) cannot
    have its e2e cases handed to another process: the hello that declares it is refused with why,
    instead of each case failing later with the harness's own error."""
    import dataclasses

    from wireconf.exec_protocol.client import _check_hello
    from wireconf.exec_protocol.http_bridge import unbridgeable
    from wireconf.exec_protocol.messages import ProtocolError
    from wireconf.providers.registry import PROVIDER_OF

    class OpaqueClient:
        base_url = "https://example.invalid"

    opaque = dataclasses.replace(
        PROVIDER_OF["anthropic.messages"], replay_client=lambda transport, uris: OpaqueClient()
    )
    monkeypatch.setitem(PROVIDER_OF, "anthropic.messages", opaque)
    unbridgeable.cache_clear()
    hello = {"type": "hello", "protocol": 2, "name": "x", "version": "1"}
    try:
        _check_hello({**hello, "capabilities": ["e2e:openai.chat"]})  # the others still pass
        with pytest.raises(
            ProtocolError, match=r"e2e:anthropic.messages cannot be served over exec: .*OpaqueClient"
        ):
            _check_hello({**hello, "capabilities": ["e2e:openai.chat", "e2e:anthropic.messages"]})
    finally:
        unbridgeable.cache_clear()
