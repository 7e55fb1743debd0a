"""The JavaScript/TypeScript exec client (``harness/exec_protocol/js``, ``@wireconf/exec``): its generated
types and constants are current, its own tests (node's test runner) pass, and the tarball ``wireconf
exec-client --path`` prints installs with npm and exports the API."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile

import pytest

from harness.exec_protocol.js_client import PACKAGE, generated, tarball, tarball_bytes
from harness.exec_protocol.schema import generate

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
        env={**os.environ, "PATH": f"{os.path.dirname(os.sys.executable)}:{os.environ['PATH']}"},
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
