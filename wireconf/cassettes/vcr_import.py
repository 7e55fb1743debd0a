"""Reading the cassettes people already have: vcrpy and pytest-recording (YAML or JSON), Ruby VCR.

Bodies come in every form those tools write: plain strings, vcrpy's ``{string: ...}``, YAML
``!!binary`` (how vcrpy stores gzip bytes), Ruby VCR's ``{encoding, string}`` and ``{base64_string}``,
the readable forms of wireconf's own format, and the ``content`` / ``status_code`` shape of old vcrpy
httpx cassettes. Everything becomes vcrpy interaction dicts with bytes bodies; gzip/deflate are decoded
later, by the writer. Each interaction is classified by its endpoint (provider, api, stream): the host
and path of its request, as the provider records say (``wireconf.providers``), so that an
OpenAI-compatible endpoint of another provider is never taken for OpenAI's.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from wireconf.cassettes.format import as_bytes, decode_body
from wireconf.core.errors import WireconfError
from wireconf.core.untyped import YAML
from wireconf.core.yaml_source import YamlRefused, load_plain_yaml
from wireconf.providers.provider import stream_requested
from wireconf.providers.registry import PROVIDERS


class NotACassette(WireconfError):
    """A file that is not a cassette wireconf can read (``where`` names it)."""


MAX_IMPORT_BYTES = 256 * 1024 * 1024
"""The largest cassette file imported (a recording of a few exchanges is kilobytes; a few hundred
megabytes is already more than any provider exchange worth keeping)."""

FORMATS_HINT = "wireconf imports vcrpy / pytest-recording cassettes (YAML or JSON) and Ruby VCR's (YAML)"


@dataclass(frozen=True)
class Endpoint:
    provider: str  # the provider's name: its cassettes/ folder
    api: str
    stream: bool


def _loader() -> type:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # !!binary becomes bytes


def _body_bytes(body: YAML) -> bytes | None:
    """Any of the tools' body forms → bytes (``None`` for no body): the serializer's vcrpy forms plus
    Ruby VCR's base64 and wireconf's readable mappings."""
    if isinstance(body, dict):
        if "base64_string" in body:  # Ruby VCR, binary
            return base64.b64decode(body["base64_string"])
        if "string" in body:  # vcrpy response, Ruby VCR {encoding, string}
            return _body_bytes(body["string"])
        return decode_body(body)  # wireconf's readable forms
    return as_bytes(body)


def _headers(raw: YAML) -> dict[str, list[str]]:
    if not raw:
        return {}
    if isinstance(raw, list):  # [[name, value], ...]
        out: dict[str, list[str]] = {}
        for name, value in raw:
            out.setdefault(str(name), []).append(str(value))
        return out
    return {str(k): [str(x) for x in v] if isinstance(v, list) else [str(v)] for k, v in raw.items()}


def _status(response: dict[str, Any]) -> dict[str, Any]:
    status = response.get("status", response.get("status_code", 200))
    if isinstance(status, dict):
        return {"code": int(status.get("code", 200)), "message": str(status.get("message") or "")}
    return {"code": int(status), "message": ""}


def _interaction(raw: dict[str, Any]) -> dict[str, Any]:
    request, response = raw["request"], raw["response"]
    body = response.get("body", response.get("content"))
    return {
        "request": {
            "method": str(request["method"]).upper(),
            "uri": str(request["uri"]),
            "headers": _headers(request.get("headers")),
            "body": _body_bytes(request.get("body")),
        },
        "response": {
            "status": _status(response),
            "headers": _headers(response.get("headers")),
            "body": {"string": _body_bytes(body) or b""},
        },
    }


def parse(text: str, name: str = "<text>") -> tuple[str, list[dict[str, Any]]]:
    """The format (``vcrpy``, ``ruby-vcr``, ``wireconf``) and the interactions of a cassette's text."""
    try:
        data = json.loads(text) if text.lstrip().startswith("{") else load_plain_yaml(text, _loader())
    except (ValueError, yaml.YAMLError) as exc:
        raise NotACassette(f"neither JSON nor YAML: {exc}", path=name, hint=FORMATS_HINT) from exc
    except YamlRefused as exc:
        raise NotACassette(f"refused: {exc.message}", path=name, hint=FORMATS_HINT) from exc
    except RecursionError as exc:
        raise NotACassette("JSON nested too deeply to parse", path=name, hint=FORMATS_HINT) from exc
    if not isinstance(data, dict):
        raise NotACassette("a cassette is a mapping", path=name, hint=FORMATS_HINT)
    if isinstance(data.get("http_interactions"), list):
        kind, raw = "ruby-vcr", data["http_interactions"]
    elif isinstance(data.get("interactions"), list):
        kind, raw = ("wireconf" if "wireconf" in data else "vcrpy"), data["interactions"]
    else:
        raise NotACassette(
            "no `interactions:` (vcrpy) or `http_interactions:` (Ruby VCR) list", path=name, hint=FORMATS_HINT
        )
    interactions = []
    for index, item in enumerate(raw):
        try:
            interactions.append(_interaction(item))
        except (KeyError, TypeError, ValueError) as exc:
            raise NotACassette(
                f"interaction {index} is malformed: {exc!r}",
                path=name,
                hint="each interaction has a request (method, uri) and a response (status, body)",
            ) from exc
    return kind, interactions


def read_text(path: Path) -> str:
    """A file given to import, as text, read no further than ``MAX_IMPORT_BYTES``."""
    hint = "give a cassette file (UTF-8 JSON or YAML) that exists"
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_IMPORT_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise NotACassette(f"cannot read: {exc}", path=path, hint=hint) from exc
    if len(data) > MAX_IMPORT_BYTES:
        raise NotACassette(f"larger than {MAX_IMPORT_BYTES:,} bytes", path=path, hint=hint)
    return text


def read(path: Path) -> tuple[str, list[dict[str, Any]]]:
    return parse(read_text(path), str(path))


def endpoint_of(interaction: dict[str, Any]) -> Endpoint | None:
    """What an interaction is by its URI's host and path and by its headers; ``None`` for an endpoint
    no provider record declares."""
    request, response = interaction["request"], interaction["response"]
    parts = urlsplit(request["uri"])
    for provider in PROVIDERS.values():
        if (parts.hostname or "").lower() not in provider.hosts:
            continue
        for api in provider.apis:
            match = api.route.match(parts.path)
            if match is None:
                continue
            content_type = " ".join(
                v for k, vs in response["headers"].items() if k.lower() == "content-type" for v in vs
            )
            stream = stream_requested(api.route, request["uri"], match, content_type, request["body"])
            return Endpoint(provider.name, api.name, stream)
    return None
