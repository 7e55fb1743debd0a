"""The provider records are the one place a provider API is described: every table is derived from them."""

from __future__ import annotations

import ast
import re

import pytest

from tests.conftest import REPO
from wireconf import adapter_contract
from wireconf.cassettes import scrub, secret_scan
from wireconf.cassettes.store import read_cassette
from wireconf.cassettes.vcr_import import endpoint_of
from wireconf.providers.registry import APIS, PROVIDER_OF, PROVIDERS, REAL_TRAFFIC
from wireconf.sdk.replay import SdkReplay

CASSETTES = sorted((REPO / "cassettes").rglob("*.yaml"))


def _interaction(uri: str, body: bytes | None = b"{}", content_type: str = "application/json") -> dict:
    return {
        "request": {"method": "POST", "uri": uri, "headers": {}, "body": body},
        "response": {"status": {"code": 200}, "headers": {"content-type": [content_type]}, "body": {}},
    }


@pytest.mark.parametrize("path", CASSETTES, ids=lambda p: f"{p.parent.name}/{p.stem[:50]}")
def test_every_recorded_request_is_recognised_as_its_cassettes_api(path):
    """The importer's routes (host and path) recognise every request of the project's cassettes as the
    api and provider its metadata names, and the provider's name is the cassette's folder."""
    cassette = read_cassette(path)
    assert cassette.meta is not None
    assert cassette.meta.provider == path.parent.name == PROVIDER_OF[cassette.meta.api].name
    for interaction in cassette.interactions:
        request = interaction.request
        raw = {
            "request": {"method": request.method, "uri": request.uri, "body": request.body},
            "response": {"headers": interaction.response.headers},
        }
        endpoint = endpoint_of(raw)
        assert endpoint is not None, request.uri
        assert (endpoint.provider, endpoint.api) == (cassette.meta.provider, cassette.meta.api)


def test_an_openai_compatible_endpoint_of_another_host_is_not_openai():
    assert endpoint_of(_interaction("https://api.openai.com/v1/chat/completions")).api == "openai.chat"
    for other in ("https://api.mistral.ai/v1/chat/completions", "http://localhost:4000/v1/chat/completions"):
        assert endpoint_of(_interaction(other)) is None


def test_streams_are_recognised_by_body_by_content_type_and_by_route():
    chat = "https://api.openai.com/v1/chat/completions"
    assert endpoint_of(_interaction(chat, b'{"stream": true}')).stream
    assert endpoint_of(_interaction(chat, b"{}", "text/event-stream; charset=utf-8")).stream
    assert not endpoint_of(_interaction(chat, b'{"stream": false}')).stream
    gemini = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
    assert endpoint_of(_interaction(f"{gemini}:streamGenerateContent")).stream
    # Gemini's stream is its route: a body field does not make generateContent a stream
    assert not endpoint_of(_interaction(f"{gemini}:generateContent", b'{"stream": true}')).stream


def test_the_tables_are_derived_from_the_records():
    assert tuple(APIS) == adapter_contract.APIS
    assert set(REAL_TRAFFIC.values()) >= {(api, False) for api, record in APIS.items() if record.real_traffic}
    for provider in PROVIDERS.values():
        # every key and credential variable of every provider is scanned for before a write
        assert set(provider.key_variables) | set(provider.secret_variables) <= set(secret_scan.KEY_VARIABLES)
        assert provider.kept_headers <= scrub.REQUEST_HEADERS
        for shape in provider.key_shapes:
            assert shape.what in {what for what, _ in secret_scan.PATTERNS}


def test_a_key_variable_of_a_provider_is_found_by_the_scan():
    for provider in PROVIDERS.values():
        for name in provider.key_variables:
            values = secret_scan.key_values({name: "a-secret-value-1234"})
            assert values == {name: "a-secret-value-1234"}
            assert secret_scan.scan("x: a-secret-value-1234\n", values)[0].what == f"the value of ${name}"


@pytest.mark.parametrize("api", list(APIS))
def test_each_api_has_a_working_sdk_replay(api):
    """The record's SDK call parses a recorded body: an empty JSON object becomes the SDK's object."""
    from wireconf.cassettes.store import RecordedResponse

    recorded = RecordedResponse(200, {"content-type": ["application/json"]}, b"{}")
    obj = SdkReplay().response_object(api, recorded)
    assert type(obj).__module__.split(".")[0] in ("openai", "anthropic", "google")


@pytest.mark.parametrize("api", list(APIS))
def test_an_apis_sdk_models_are_where_its_sdk_objects_come_from(api):
    """``sdk_models`` names the modules the api's objects are made of (the exec helper completes their
    models while it warms up): the object its SDK call parses is one of theirs."""
    import importlib

    from wireconf.cassettes.store import RecordedResponse

    obj = SdkReplay().response_object(
        api, RecordedResponse(200, {"content-type": ["application/json"]}, b"{}")
    )
    modules = [importlib.import_module(name) for name in APIS[api].sdk_models]
    assert any(vars(module).get(type(obj).__name__) is type(obj) for module in modules), modules


def _code_strings(path) -> list[tuple[int, str]]:
    """The string literals of a module's code (docstrings left out: prose may name an api)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


# The places an api or a provider may be named: its records, and the real runtimes' adapters (a runtime
# says which apis it implements); and each api's minimal response, which its record is to point at
# (``Api.minimal``, the emulator's: a new api adds its own there).
NAMING_APIS = (
    "wireconf/providers/",
    "wireconf/adapters/",
    "wireconf/reference_impl/",
    "wireconf/emulator/minimal.py",
    # a runtime's reproduction template (``wireconf repro``) says how that runtime is called for each
    # api, as its adapter does
    "wireconf/repro/js_templates.py",
    "wireconf/repro/prompty_ts_template.py",
    "wireconf/repro/templates.py",
    "wireconf/repro/result_templates.py",
    "wireconf/repro/llamaindex_template.py",
)
KNOWN = {("wireconf/corpus/prompty_vectors.py", "openai"): "Prompty's provider for a vector that names none"}


def test_no_module_outside_the_records_names_an_api_or_a_provider():
    """A new api needs no edit elsewhere in the harness (docs/adding-an-api.md): no other module keeps a
    table of apis or of key variables, or branches on a provider's name."""
    names = [*APIS, *(name for provider in PROVIDERS.values() for name in provider.key_variables)]
    pattern = re.compile(r"\b(" + "|".join(re.escape(name) for name in names) + r")\b")
    found = []
    for path in sorted((REPO / "wireconf").rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        if relative.startswith(NAMING_APIS):
            continue
        for line, text in _code_strings(path):
            if (pattern.search(text) or text in PROVIDERS) and (relative, text) not in KNOWN:
                found.append(f"{relative}:{line}: {text[:60]!r}")
    assert found == []
