"""The tool kinds beyond what the corpus shows: data paths the harness resolves, the MCP server's
lifecycle (started and stopped per discovery, bounded when it never answers), and parser edges."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import CASES, REPO
from wireconf.corpus.data_paths import resolve_agent_paths
from wireconf.reference_impl.tool_kinds import mcp, openapi, prompty

MCP_DIR = CASES / "_data" / "mcp"


def test_relative_data_paths_become_absolute_against_the_case_folder(tmp_path):
    agent = {
        "model": {"id": "m"},
        "tools": [
            {"kind": "prompty", "name": "p", "path": "../_data/child.prompty"},
            {"kind": "openapi", "name": "o", "specification": "spec.yaml"},
            {"kind": "openapi", "name": "u", "specification": "https://example.com/openapi.json"},
            {"kind": "openapi", "name": "i", "specification": {"openapi": "3.0.0", "paths": {}}},
            {
                "kind": "mcp",
                "name": "m",
                "connection": {"kind": "stdio", "command": "python3", "args": ["server.py"], "cwd": "data"},
            },
            {"kind": "prompty", "name": "a", "path": "/abs/child.prompty"},
        ],
    }
    base = tmp_path / "cases" / "wire"
    tools = resolve_agent_paths(agent, base)["tools"]
    assert tools[0]["path"] == str(tmp_path / "cases" / "_data" / "child.prompty")
    assert tools[1]["specification"] == str(base / "spec.yaml")
    assert tools[2]["specification"] == "https://example.com/openapi.json"
    assert tools[3]["specification"] == {"openapi": "3.0.0", "paths": {}}
    assert tools[4]["connection"] == {
        "kind": "stdio",
        "command": "python3",
        "args": ["server.py"],
        "cwd": str(base / "data"),
    }
    assert tools[5]["path"] == "/abs/child.prompty"


def _children() -> set[str]:
    """Command lines of this process's live children (Linux /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == os.getpid() and fields[0] != "Z":
                found.add((stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except (OSError, IndexError, ValueError):
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads child processes from /proc")
def test_mcp_cases_leave_no_server_running(run_corpus, monkeypatch):
    monkeypatch.setattr(mcp, "_LISTINGS", {})  # start the servers again, whatever ran before
    before = _children()
    run = run_corpus("-k", "mcp", "--case-runner=thread")  # the listings cache is read in this process
    assert run.outcomes and set(run.outcomes.values()) == {"passed"}
    assert not [c for c in _children() - before if "server.py" in c]
    assert len(mcp._LISTINGS) == 2  # weather.json and paged.json, each listed once and kept


def test_a_server_that_never_answers_raises_within_the_discovery_limit(monkeypatch):
    monkeypatch.setattr(mcp, "DISCOVERY_TIMEOUT", 0.5)
    silent = {"kind": "stdio", "command": sys.executable, "args": ["-c", "import sys; sys.stdin.read()"]}
    tool = {"kind": "mcp", "name": "silent", "serverName": "silent-server", "connection": silent}
    with pytest.raises(ConnectionError, match=r"'silent-server'.*no answer within 0\.5 s"):
        mcp.signatures(tool)
    assert not [c for c in _children() if "sys.stdin.read()" in c]


def test_a_failing_server_error_carries_its_stderr():
    tool = {
        "kind": "mcp",
        "name": "w",
        "serverName": "weather",
        "connection": {"command": sys.executable, "args": ["server.py", "missing.json"], "cwd": str(MCP_DIR)},
    }
    with pytest.raises(
        ConnectionError, match=r"its stderr: server\.py: cannot load the tools file 'missing\.json'"
    ):
        mcp.signatures(tool)


def test_prompty_inputs_may_be_a_mapping_of_name_to_property(tmp_path):
    child = tmp_path / "child.prompty"
    child.write_text("---\nname: c\ninputs:\n  q: {kind: string, required: true}\n---\nuser: {{q}}\n")
    (signature,) = prompty.signatures({"kind": "prompty", "name": "c", "path": str(child)})
    assert signature.parameters == {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "required": ["q"],
    }


def test_a_prompty_file_without_frontmatter_is_an_error_naming_it(tmp_path):
    child = tmp_path / "plain.prompty"
    child.write_text("user: hi\n")
    with pytest.raises(ValueError, match=r"plain\.prompty: a \.prompty file starts with a '---' line"):
        prompty.signatures({"kind": "prompty", "name": "c", "path": str(child)})


def test_openapi_cyclic_references_are_an_error():
    document = {
        "openapi": "3.0.0",
        "paths": {
            "/a": {
                "post": {
                    "operationId": "a",
                    "requestBody": {
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}
                    },
                }
            }
        },
        "components": {
            "schemas": {
                "Node": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}}}
            }
        },
    }
    with pytest.raises(ValueError, match="'#/components/schemas/Node' is cyclic"):
        openapi.signatures({"kind": "openapi", "name": "o", "specification": document})


MODULES_PROBE = """
import os, sys

def pytest_sessionfinish(session):
    with open(os.environ["WIRECONF_PROBE_OUT"], "a") as out:
        out.write(f"{'mcp.client.stdio' in sys.modules}\\n")
"""


@pytest.mark.parametrize(("selected", "imported"), [("mcp", "True"), ("option-temperature", "False")])
def test_the_mcp_client_is_imported_before_the_cases_only_when_one_needs_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, selected: str, imported: str
):
    """The import (about a second of CPU) happens in the pytest process, before the case runner starts,
    so that it falls in no case's time limit; a run whose cases have no mcp tool never pays for it."""
    pytester.makepyfile(modules_probe=MODULES_PROBE)
    out = pytester.path / "probe.txt"
    monkeypatch.setenv("PYTHONPATH", f"{pytester.path}{os.pathsep}{REPO}")
    monkeypatch.setenv("WIRECONF_PROBE_OUT", str(out))
    result = pytester.runpytest_subprocess(
        str(CASES), "-p", "no:cacheprovider", "-p", "modules_probe", "--kind", "wire", "--api", "openai.chat",
        "-k", selected,
    )  # fmt: skip
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert out.read_text().split() == [imported]
