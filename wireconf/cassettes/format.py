"""The project's vcrpy serializer: cassettes a person can review in a pull request.

On disk a cassette is YAML with ``wireconf:`` (metadata), ``interactions:`` and ``version:``. Bodies are
written by what they are: ``{json: <mapping>}`` for JSON, ``{sse: [events]}`` for event streams (one
item per event, byte for byte: see ``wireconf.cassettes.sse_form``), ``{string: ...}`` for other text,
``{base64: ...}`` only for bytes that are not text. gzip/deflate bodies are decoded and their
``content-encoding`` dropped. Single-valued headers are written as strings; long lines are never
folded, so a diff shows one changed line per changed event or value.

``deserialize`` returns the dict vcrpy expects (bodies as strings, headers as lists, the ``wireconf``
block as vcrpy metadata so that a vcrpy load-and-save keeps it), so the module works as-is with
``vcr.register_serializer("wireconf", wireconf.cassettes.format)``. Which headers are kept, and what is
scrubbed, is not decided here but by the writer (``wireconf.cassettes.writer``).
"""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from collections.abc import Callable
from typing import Any

import yaml

from wireconf.cassettes.sse_form import (
    CassetteFormatError,
    LiteralText,
    decode_sse,
    encode_sse,
    looks_like_sse,
)
from wireconf.core.untyped import YAML
from wireconf.core.yaml_source import load_yaml

FORMAT_VERSION = 1
_Dumper: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_NO_FOLDING = 1_000_000


class _CassetteDumper(_Dumper):  # type: ignore[misc]  # _Dumper is chosen at run time (libyaml or not)
    pass


def _literal(dumper: Any, value: LiteralText) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style="|")


_CassetteDumper.add_representer(LiteralText, _literal)


def _header(headers: dict[str, Any], name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return (value[0] if value else None) if isinstance(value, list) else value
    return None


def as_bytes(body: Any) -> bytes | None:
    """A vcrpy body (bytes, text, ``{string: ...}``) as bytes; ``None`` for no body."""
    if body is None:
        return None
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, dict) and "string" in body:  # vcrpy's response body
        return as_bytes(body["string"])
    raise CassetteFormatError(f"cannot serialise a body of type {type(body).__name__}")


def _decompress(data: bytes, headers: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    encoding = (_header(headers, "content-encoding") or "").lower()
    decoders: dict[str, Callable[[bytes], bytes]] = {"gzip": gzip.decompress, "deflate": zlib.decompress}
    if encoding in decoders:
        try:
            data = decoders[encoding](data)
        except (OSError, zlib.error, EOFError):
            return data, headers
        headers = {
            k: v for k, v in headers.items() if k.lower() not in ("content-encoding", "content-length")
        }
    return data, headers


def encode_body(data: bytes | None, content_type: str | None) -> dict[str, Any] | None:
    """The readable form of a body (see the module docstring)."""
    if data is None or data == b"":
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind == "text/event-stream" or (not kind and looks_like_sse(text)):
        form = encode_sse(text)
        if form is not None:
            return form
    if kind.endswith("json") or text.lstrip()[:1] in ("{", "["):
        try:
            return {"json": json.loads(text)}
        except ValueError:
            pass
    return {"string": LiteralText(text) if "\n" in text else text}


def decode_body(body: Any) -> bytes | None:
    """The bytes of a readable body; also accepts vcrpy's plain string and ``{string:}`` forms."""
    if body is None:
        return None
    if isinstance(body, str | bytes):
        return as_bytes(body)
    if isinstance(body, dict) and "sse" in body and set(body) <= {"sse", "eol"}:
        return decode_sse(body["sse"], body.get("eol")).encode("utf-8")
    if not isinstance(body, dict) or len(body) != 1:
        raise CassetteFormatError("a body is one of {json: ...}, {sse: [...]}, {string: ...}, {base64: ...}")
    ((form, value),) = body.items()
    if form == "json":
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if form == "string":
        if isinstance(value, bytes):
            return value
        if not isinstance(value, str):
            raise CassetteFormatError(f"a {form} body must be a string")
        return value.encode("utf-8")
    if form == "base64":
        return base64.b64decode(value)
    raise CassetteFormatError(f"unknown body form {form!r} (json, sse, string, base64)")


def _readable_headers(headers: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in (headers or {}).items():
        values = value if isinstance(value, list) else [value]
        out[key] = values[0] if len(values) == 1 else list(values)
    return out


def _vcr_headers(headers: dict[str, Any] | None) -> dict[str, list[str]]:
    return {k: (list(v) if isinstance(v, list) else [v]) for k, v in (headers or {}).items()}


def decoded_interaction(interaction: dict[str, Any]) -> dict[str, Any]:
    """A vcrpy interaction dict with its bodies as plain bytes: gzip/deflate decoded (and their
    ``content-encoding`` dropped), vcrpy's ``{string: ...}`` and text bodies turned into bytes."""
    request, response = interaction["request"], interaction["response"]
    req_body, req_headers = _decompress(
        as_bytes(request.get("body")) or b"", _vcr_headers(request.get("headers"))
    )
    resp_body, resp_headers = _decompress(
        as_bytes(response.get("body")) or b"", _vcr_headers(response.get("headers"))
    )
    status = response.get("status") or {}
    return {
        "request": {
            "method": request["method"],
            "uri": request["uri"],
            "headers": req_headers,
            "body": req_body if request.get("body") is not None else None,
        },
        "response": {
            "status": {"code": int(status.get("code", 200)), "message": status.get("message", "")},
            "headers": resp_headers,
            "body": {"string": resp_body},
        },
    }


def readable_interaction(interaction: dict[str, Any]) -> dict[str, Any]:
    """A vcrpy interaction dict → its readable form."""
    decoded = decoded_interaction(interaction)
    request, response = decoded["request"], decoded["response"]
    req_headers = _readable_headers(request["headers"])
    resp_headers = _readable_headers(response["headers"])
    return {
        "request": {
            "method": request["method"],
            "uri": request["uri"],
            "headers": req_headers,
            "body": encode_body(request["body"], _header(req_headers, "content-type")),
        },
        "response": {
            "status": response["status"],
            "headers": resp_headers,
            "body": encode_body(response["body"]["string"], _header(resp_headers, "content-type")),
        },
    }


def vcr_interaction(interaction: dict[str, Any]) -> dict[str, Any]:
    """A readable interaction → the dict vcrpy replays (bodies as strings, headers as lists)."""
    request, response = interaction["request"], interaction["response"]
    req_body = decode_body(request.get("body"))
    resp_body = decode_body(response.get("body"))
    return {
        "request": {
            "method": request["method"],
            "uri": request["uri"],
            "body": req_body.decode("utf-8", "surrogateescape") if req_body is not None else None,
            "headers": _vcr_headers(request.get("headers")),
        },
        "response": {
            "status": dict(response.get("status") or {"code": 200, "message": "OK"}),
            "headers": _vcr_headers(response.get("headers")),
            "body": {"string": resp_body if resp_body is not None else b""},
        },
    }


def dump_yaml(data: YAML) -> str:
    """YAML the way cassettes are written: keys in order, unicode as is, no folded lines."""
    return str(
        yaml.dump(data, Dumper=_CassetteDumper, sort_keys=False, allow_unicode=True, width=_NO_FOLDING)
    )


def serialize(cassette_dict: dict[str, Any]) -> str:
    """vcrpy serializer entry point: the cassette dict → readable YAML (metadata first).

    The ``wireconf`` block is taken from the dict's ``wireconf`` key, or from vcrpy's ``metadata``
    (where ``deserialize`` put it); other vcrpy metadata is kept under ``metadata:``.
    """
    metadata = dict(cassette_dict.get("metadata") or {})
    wireconf = cassette_dict.get("wireconf") or metadata.pop("wireconf", None)
    metadata.pop("wireconf", None)
    out: dict[str, Any] = {}
    if wireconf:
        out["wireconf"] = _plain(wireconf)
    out["interactions"] = [readable_interaction(i) for i in cassette_dict.get("interactions", [])]
    if metadata:
        out["metadata"] = _plain(metadata)
    out["version"] = cassette_dict.get("version", FORMAT_VERSION)
    return dump_yaml(out)


def _plain(data: YAML) -> YAML:
    if isinstance(data, dict):
        return {k: _plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_plain(v) for v in data]
    return data


def deserialize(cassette_string: str) -> dict[str, Any]:
    """vcrpy serializer entry point: readable YAML → the cassette dict vcrpy expects."""
    data = load_yaml(cassette_string)
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise CassetteFormatError("a cassette is a mapping with an `interactions:` list")
    metadata = _plain(dict(data.get("metadata") or {}))
    wireconf = _plain(data.get("wireconf"))
    if wireconf:
        metadata["wireconf"] = wireconf
    out: dict[str, Any] = {
        "wireconf": wireconf,
        "interactions": [vcr_interaction(i) for i in data["interactions"]],
        "version": data.get("version", FORMAT_VERSION),
    }
    if metadata:
        out["metadata"] = metadata
    return out
