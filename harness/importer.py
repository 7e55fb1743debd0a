"""``wireconf import``: public recordings of real provider traffic → the project's cassettes.

Reads the JSON files of ``shared/real-traffic`` (one request/response pair each, with the public
repository, path and commit it was published in) and writes one cassette per file under
``<out>/<provider>/<file stem>.yaml``, with ``provenance: imported`` and the source kept verbatim.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from http import HTTPStatus
from pathlib import Path
from typing import Any

from harness import __version__
from harness.atomic import write_atomic
from harness.cassette_writer import checked_text
from harness.cassettes import CassetteMeta

# real-traffic "api" → (wireconf api, stream)
REAL_TRAFFIC_APIS: dict[str, tuple[str, bool]] = {
    "chat": ("openai.chat", False),
    "chat_stream": ("openai.chat", True),
    "embeddings": ("openai.embeddings", False),
    "images": ("openai.images", False),
    "responses": ("openai.responses", False),
    "responses_stream": ("openai.responses", True),
    "anthropic": ("anthropic.messages", False),
    "anthropic_stream": ("anthropic.messages", True),
    "gemini": ("gemini.generate_content", False),
    "gemini_stream": ("gemini.generate_content", True),
}


class ImportError_(Exception):
    """A source file that cannot be imported; the message names the file."""


@dataclass(frozen=True)
class Imported:
    source: Path
    written: Path


def _json_bytes(body: Any) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def real_traffic_cassette(path: Path, today: date | None = None) -> tuple[str, dict[str, Any]]:
    """The provider folder and the vcrpy cassette dict (with ``wireconf`` metadata) for one file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        api, stream = REAL_TRAFFIC_APIS[data["api"]]
        request, response = data["request"], data["response"]
        provider = str(data["provider"])
        status = int(response["status"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ImportError_(f"{path}: not a real-traffic recording: {exc!r}") from exc
    # a header recorded as null was not in the source cassette: leave it out rather than invent one
    response_headers = {k: [str(v)] for k, v in (response.get("headers") or {}).items() if v is not None}
    request_body = request.get("body")
    meta = CassetteMeta(
        provenance="imported",
        source={
            "repo": data["source_repo"],
            "path": data["source_path"],
            "commit": data["source_commit"],
            "interaction": int(data["interaction_index"]),
            "file": path.name,
        },
        notes=data.get("notes"),
        provider=provider,
        api=api,
        stream=stream,
        endpoint=f"{request['method']} {request['uri']}",
        date=today or date.today(),
        wireconf=__version__,
    )
    interaction = {
        "request": {
            "method": request["method"],
            "uri": request["uri"],
            "headers": {"content-type": ["application/json"]} if request_body is not None else {},
            "body": _json_bytes(request_body) if request_body is not None else None,
        },
        "response": {
            "status": {"code": status, "message": HTTPStatus(status).phrase},
            "headers": response_headers,
            "body": {"string": _json_bytes(response.get("body", ""))},
        },
    }
    cassette = {"wireconf": meta.model_dump(mode="json", exclude_none=True), "interactions": [interaction]}
    return provider, cassette


def import_real_traffic(paths: list[Path], out: Path, today: date | None = None) -> list[Imported]:
    """Write one cassette per file; every file is converted, scrubbed and scanned before anything
    is written."""
    prepared = []
    for path in paths:
        provider, cassette = real_traffic_cassette(path, today)
        target = out / provider / f"{path.stem}.yaml"
        prepared.append((path, target, checked_text(target, cassette)))
    for _, target, text in prepared:
        write_atomic(target, text)
    return [Imported(source, target) for source, target, _ in prepared]
