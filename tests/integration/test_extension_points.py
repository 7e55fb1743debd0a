"""A provider API and a kind are extension points: a package that declares one record each (entry points
``wireconf.providers`` and ``wireconf.kinds``) runs through the plugin, the exec protocol and the
importer with nothing else changed.

The test writes that package in a temporary folder (a toy provider ``toy`` with the api ``toy.echo``,
whose "official SDK" parses the body into its own pydantic object; a toy kind ``shout``; a runtime that
implements both), installs it the way pip does (a ``.dist-info`` beside it, found on ``PYTHONPATH``),
and runs the harness in fresh processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, small_corpus

PROVIDER = '''
"""A toy provider: one api, toy.echo, whose SDK parses {"text": ...} into an Echo."""
from typing import Any

from pydantic import BaseModel, ConfigDict

from wireconf.providers.provider import Api, KeyShape, Provider, Route


class Echo(BaseModel):
    """The toy SDK's response object: it refuses a body without text, as a real SDK refuses."""

    model_config = ConfigDict(extra="allow")
    text: str


class ToyClient:
    def __init__(self, transport: Any) -> None:
        import httpx2

        self.http = httpx2.Client(transport=transport, base_url="https://api.toy.example")

    def echo(self, headers: dict[str, str]) -> Echo:
        response = self.http.post("/v1/echo", json={"text": "?"}, headers=headers)
        response.raise_for_status()
        return Echo.model_validate(response.json())


def http_module() -> Any:
    import httpx2

    return httpx2


PROVIDER = Provider(
    name="toy",
    title="Toy",
    hosts=("api.toy.example",),
    apis=(Api("toy.echo", lambda client, headers, stream: client.echo(headers), Route(r"/v1/echo$")),),
    key_variables=("TOY_API_KEY",),
    base_url_variable="TOY_BASE_URL",
    distributions=("httpx2",),
    http_module=http_module,
    replay_client=lambda transport, uris: ToyClient(transport),
    record_client=ToyClient,
    key_shapes=(KeyShape("Toy API key (toykey-…)", r"toykey-[a-z0-9]{16,}"),),
)
'''

KIND = '''
"""A toy kind: a text → the runtime's shout of it (``shout(api, text)``)."""
from typing import Any, Literal

from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import CaseBase
from wireconf.judging.outcome import Outcome
from wireconf.kinds.base import ADAPTER_ERRORS, HarnessContext, raised
from wireconf.kinds.kind import AdapterMethod, Call, Kind


class ShoutCase(CaseBase):
    kind: Literal["shout"]
    text: str


class ShoutKind(Kind[ShoutCase, None]):
    name = "shout"
    case_model = ShoutCase
    noun = "shout"
    method = AdapterMethod("shout", ("text",))

    def prepare(self, ctx: HarnessContext, case: LoadedCase[ShoutCase]) -> Call[None]:
        def call(adapter: Any) -> Outcome[None]:
            try:
                return Outcome(value=adapter.shout(case.api, case.model.text))
            except ADAPTER_ERRORS as exc:
                return raised(exc)

        return call


KIND = ShoutKind()
'''

RUNTIME = '''
"""A runtime with the toy api's reference functions: it processes the toy SDK's object, and shouts."""
from toy_ext.provider import Echo


class Adapter:
    name = "toy-runtime"
    version = "1.0"

    def capabilities(self):
        return {"process:toy.echo", "shout:toy.echo"}

    def process(self, api, agent, response):
        if not isinstance(response, Echo):  # the SDK object, in-process and rebuilt over exec
            raise TypeError(f"not the toy SDK's object: {type(response)}")
        return response.text

    def shout(self, api, text):
        return text.upper() + "!"
'''

ENTRY_POINTS = """\
[wireconf.providers]
toy = toy_ext.provider:PROVIDER

[wireconf.kinds]
shout = toy_ext.kind:KIND
"""

RULES = """\
rules:
  - id: toy/echo
    level: MUST
    basis: text
    source: {seed: toy.txt, section: '1'}
    statement: The text of an echo is the result.
  - id: toy/shout
    level: MUST
    basis: text
    governs: [{subject: result, path: '$**'}]
    source: {seed: toy.txt, section: '2'}
    statement: A shout is the text in capitals with an exclamation mark.
"""

CASES = """\
cases:
  - id: process.toy.echo.inline
    kind: process
    api: toy.echo
    rules: [toy/echo]
    agent: {model: {id: toy-1}}
    response: {body: {text: hello}}
    expect: hello
  - id: process.toy.echo.imported
    kind: process
    api: toy.echo
    rules: [toy/echo]
    agent: {model: {id: toy-1}}
    response: {cassette: toy/echo-recorded}
    expect: recorded hello
  - id: shout.toy.echo.loud
    kind: shout
    api: toy.echo
    rules: [toy/shout]
    text: hi
    expect: HI!
  - id: shout.toy.echo.deviates
    description: expects what the runtime does not do, so that a verdict is seen to be given
    kind: shout
    api: toy.echo
    rules: [toy/shout]
    text: hi
    expect: HI
"""


def _vcr_cassette(host: str, text: str) -> str:
    return json.dumps(
        {
            "interactions": [
                {
                    "request": {
                        "method": "POST",
                        "uri": f"https://{host}/v1/echo",
                        "body": "{}",
                        "headers": {},
                    },
                    "response": {
                        "status": {"code": 200, "message": "OK"},
                        "headers": {"content-type": ["application/json"]},
                        "body": {"string": json.dumps({"text": text})},
                    },
                }
            ],
            "version": 1,
        }
    )


@pytest.fixture(scope="module")
def extension(tmp_path_factory) -> Path:
    """The toy package, installed on a folder that PYTHONPATH names."""
    site = tmp_path_factory.mktemp("site")
    package = site / "toy_ext"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "provider.py").write_text(PROVIDER)
    (package / "kind.py").write_text(KIND)
    (package / "adapter.py").write_text(RUNTIME)
    info = site / "toy_ext-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-ext\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return site


def _run(
    site: Path, cwd: Path, *argv: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)]), **(env or {})}
    return subprocess.run(
        [sys.executable, *argv],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _statuses(report: Path) -> dict[str, str]:
    return {r["id"]: r["status"] for r in map(json.loads, report.read_text().splitlines())}


def test_a_toy_provider_and_a_toy_kind_run_everywhere(extension, tmp_path):
    corpus = small_corpus(tmp_path / "corpus", RULES, "toy.yaml", CASES)
    cassettes = tmp_path / "cassettes"
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "echo-recorded.json").write_text(_vcr_cassette("api.toy.example", "recorded hello"))
    (theirs / "elsewhere.json").write_text(_vcr_cassette("api.other.example", "not the toy's"))
    source = [
        "--source-repo",
        "https://example.com/toy",
        "--source-commit",
        "0" * 40,
        "--out",
        str(cassettes),
    ]

    # the importer recognises the toy api by its host and path, and files it under the provider's name
    done = _run(
        extension, tmp_path, "-m", "wireconf.cli", "import", str(theirs / "echo-recorded.json"), *source
    )
    assert done.returncode == 0, done.stderr
    written = cassettes / "toy" / "echo-recorded.yaml"
    assert "api: toy.echo" in written.read_text() and "provider: toy" in written.read_text()
    refused = _run(
        extension, tmp_path, "-m", "wireconf.cli", "import", str(theirs / "elsewhere.json"), *source
    )
    assert refused.returncode != 0
    assert "is not an endpoint of OpenAI, Anthropic, Google Gemini or Toy" in refused.stderr + refused.stdout

    expected = {
        "process.toy.echo.inline": "passed",
        "process.toy.echo.imported": "passed",
        "shout.toy.echo.loud": "passed",
        "shout.toy.echo.deviates": "failed",
    }
    # the plugin, in-process adapter
    report = tmp_path / "in-process.jsonl"
    run = _run(
        extension, tmp_path, "-m", "pytest", str(corpus), "--impl=toy_ext.adapter:Adapter",
        f"--cassettes={cassettes}", f"--report={report}", "-p", "no:cacheprovider",
    )  # fmt: skip
    assert _statuses(report) == expected, run.stdout[-3000:]
    assert "the shout differs from the expectation" in run.stdout
    # the toy kind's difference is charged to the rule it breaks, with that rule's tier, as any kind's is
    (deviates,) = [r for r in map(json.loads, report.read_text().splitlines()) if r["status"] == "failed"]
    assert deviates["tier"] == "spec"
    assert [(d["change"], d["rules"]) for d in deviates["differences"]] == [("value", ["toy/shout"])]

    # the same through the exec protocol (the toy SDK rebuilds its object on the runtime's side)
    transcript = tmp_path / "transcript.jsonl"
    report = tmp_path / "exec.jsonl"
    serve = f"exec:{sys.executable} -m wireconf.exec_protocol.serve toy_ext.adapter:Adapter"
    run = _run(
        extension, tmp_path, "-m", "pytest", str(corpus), f"--impl={serve}", f"--cassettes={cassettes}",
        f"--report={report}", "-p", "no:cacheprovider", env={"WIRECONF_EXEC_TRANSCRIPT": str(transcript)},
    )  # fmt: skip
    assert _statuses(report) == expected, run.stdout[-3000:]

    # every message fits the protocol's schema, generated from the records (toy api and kind included)
    jsonschema = pytest.importorskip("jsonschema")
    printed = _run(extension, tmp_path, "-m", "wireconf.cli", "exec-schema")
    schema = json.loads(printed.stdout)
    assert "toy.echo" in schema["$defs"]["call"]["properties"]["api"]["enum"]
    assert "shout" in schema["$defs"]["call"]["properties"]["method"]["enum"]
    validator = jsonschema.Draft202012Validator(schema)
    messages = [json.loads(line)["message"] for line in transcript.read_text().splitlines()]
    assert {m["type"] for m in messages} >= {"hello", "call", "result", "stop"}
    for message in messages:
        assert not [e.message for e in validator.iter_errors(message)], message
    calls = [m for m in messages if m["type"] == "call"]
    assert {(c["kind"], c["method"]) for c in calls} == {("process", "process"), ("shout", "shout")}
    assert all(c["sdk"] == ["response"] for c in calls if c["method"] == "process")


def test_an_installed_extension_of_the_wrong_class_is_refused_naming_its_entry_point(monkeypatch):
    """Kinds and providers load installed extensions the same way (wireconf.core.extensions.installed)."""
    from importlib.metadata import EntryPoint

    import wireconf.core.extensions as extensions
    from wireconf.core.errors import ExtensionError
    from wireconf.kinds.kind import Kind

    wrong = EntryPoint("toy", "wireconf.core.extensions:HINT", "wireconf.kinds")  # a str, not a Kind
    broken = EntryPoint("gone", "no.such.module:KIND", "wireconf.kinds")
    for entry, says in ((wrong, "is str, not a wireconf.kinds.kind.Kind"), (broken, "failed to load")):
        monkeypatch.setattr(extensions, "entry_points", lambda group, entry=entry: [entry])
        with pytest.raises(ExtensionError, match=says) as raised:
            list(extensions.installed("wireconf.kinds", Kind))
        assert f"entry point wireconf.kinds: {entry.name} = {entry.value}" in str(raised.value)
        assert raised.value.hint == extensions.HINT
