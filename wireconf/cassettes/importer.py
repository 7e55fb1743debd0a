"""``wireconf import``: recordings of real provider traffic → the project's cassettes.

Two sources. The JSON files of ``shared/real-traffic`` (one request/response pair each, with the public
repository, path and commit it was published in). And the cassettes a runtime's maintainers already
have: vcrpy / pytest-recording (YAML or JSON, gzip or base64 bodies) and Ruby VCR
(``wireconf.cassettes.vcr_import``), whose source is the git checkout they sit in (remote, path,
commit) unless ``--source-repo`` / ``--source-commit`` say otherwise. Each file becomes
``<out>/<provider>/<file stem>.yaml`` with ``provenance: imported`` and its source, written like every
cassette: scrubbed, scanned, atomically.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from datetime import date
from http import HTTPStatus
from pathlib import Path
from typing import Any

from wireconf import __version__
from wireconf.cassettes.lock import cassette_lock
from wireconf.cassettes.store import CassetteMeta, ImportSource
from wireconf.cassettes.vcr_import import NotACassette, endpoint_of, read_text
from wireconf.cassettes.vcr_import import read as read_vcr
from wireconf.cassettes.writer import checked_text, write_announced
from wireconf.core.errors import WireconfError
from wireconf.core.untyped import JSON
from wireconf.providers.registry import PROVIDER_OF, REAL_TRAFFIC, provider_titles

REAL_TRAFFIC_APIS = REAL_TRAFFIC
"""A real-traffic recording's ``api`` field → (wireconf api, stream), from the api records."""


class CassetteImportError(WireconfError):
    """A source file that cannot be imported; the message names the file."""


@dataclass(frozen=True)
class Imported:
    source: Path
    written: Path


def _json_bytes(body: JSON) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def real_traffic_cassette(path: Path, today: date | None = None) -> tuple[str, dict[str, Any]]:
    """The provider folder and the vcrpy cassette dict (with ``wireconf`` metadata) for one file."""
    try:
        data = json.loads(read_text(path))
        api, stream = REAL_TRAFFIC_APIS[data["api"]]
        request, response = data["request"], data["response"]
        provider = PROVIDER_OF[api].name
        status = int(response["status"])
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise CassetteImportError(
            f"not a real-traffic recording: {exc!r}",
            path=path,
            hint="a real-traffic recording is a JSON object with source_repo, api, request and response "
            "(../shared/real-traffic/); other cassettes are imported from vcrpy or Ruby VCR files",
        ) from exc
    # a header recorded as null was not in the source cassette: leave it out rather than invent one
    response_headers = {k: [str(v)] for k, v in (response.get("headers") or {}).items() if v is not None}
    request_body = request.get("body")
    meta = CassetteMeta(
        provenance="imported",
        source=ImportSource(
            repo=data["source_repo"],
            path=data["source_path"],
            commit=data["source_commit"],
            interaction=int(data["interaction_index"]),
            file=path.name,
            format="real-traffic",
        ),
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
    """Write one cassette per real-traffic file (see ``import_files``)."""
    return import_files(paths, out, today=today)


@dataclass(frozen=True)
class Source:
    """Where a cassette file was published: repository, path in it, commit (when known)."""

    repo: str
    path: str
    commit: str | None


def _git(directory: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def source_of(path: Path, repo: str | None = None, commit: str | None = None) -> Source:
    """The git checkout ``path`` sits in (its ``origin`` remote, the path inside it, ``HEAD``), unless
    given; raises ``CassetteImportError`` when the repository cannot be told."""
    top = _git(path.parent, "rev-parse", "--show-toplevel")
    inside = str(path.resolve().relative_to(Path(top).resolve())) if top else path.name
    repo = repo or (_git(path.parent, "remote", "get-url", "origin") if top else None)
    if not repo:
        raise CassetteImportError(
            "cannot tell where this cassette was published (not in a git checkout with an origin remote)",
            path=path,
            hint="name it with --source-repo (and --source-commit)",
        )
    commit = commit or (_git(path.parent, "rev-parse", "HEAD") if top else None)
    return Source(repo, inside, commit)


def vcr_cassette(path: Path, source: Source, today: date | None = None) -> tuple[str, dict[str, Any]]:
    """The provider folder and the cassette dict for a vcrpy / pytest-recording / Ruby VCR cassette."""
    try:
        kind, interactions = read_vcr(path)
    except NotACassette as exc:
        raise CassetteImportError(exc.message, path=exc.at.path, line=exc.at.line, hint=exc.hint) from exc
    if not interactions:
        raise CassetteImportError(
            "the cassette has no interactions", path=path, hint="import a cassette that recorded a request"
        )
    endpoints = []
    for index, interaction in enumerate(interactions):
        endpoint = endpoint_of(interaction)
        if endpoint is None:
            request = interaction["request"]
            raise CassetteImportError(
                f"interaction {index} ({request['method']} {request['uri']}) is not an endpoint of "
                f"{provider_titles()} that wireconf knows",
                path=path,
                hint="split it out of the cassette first; a provider wireconf does not know yet needs its "
                "record (docs/adding-an-api.md)",
            )
        endpoints.append(endpoint)
    if len({(e.provider, e.api) for e in endpoints}) > 1:
        found = ", ".join(sorted({e.api for e in endpoints}))
        raise CassetteImportError(
            f"its interactions are of several apis ({found})",
            path=path,
            hint="one api per cassette: split it",
        )
    first = interactions[0]["request"]
    meta = CassetteMeta(
        provenance="imported",
        source=ImportSource(
            repo=source.repo,
            path=source.path,
            commit=source.commit,
            file=path.name,
            format=kind,
        ),
        provider=endpoints[0].provider,
        api=endpoints[0].api,
        stream=any(e.stream for e in endpoints),
        endpoint=f"{first['method']} {first['uri']}",
        date=today or date.today(),
        wireconf=__version__,
    )
    cassette = {"wireconf": meta.model_dump(mode="json", exclude_none=True), "interactions": interactions}
    return endpoints[0].provider, cassette


def _is_real_traffic(path: Path) -> bool:
    if path.suffix != ".json":
        return False
    try:
        data = json.loads(read_text(path))
    except (NotACassette, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "source_repo" in data and "api" in data


def import_files(
    paths: list[Path],
    out: Path,
    today: date | None = None,
    source_repo: str | None = None,
    source_commit: str | None = None,
) -> list[Imported]:
    """Write one cassette per file. Every file is read, converted, scrubbed and scanned before anything
    is written, so one bad file leaves every cassette as it was."""
    prepared = []
    for path in paths:
        if _is_real_traffic(path):
            provider, cassette = real_traffic_cassette(path, today)
        else:
            provider, cassette = vcr_cassette(path, source_of(path, source_repo, source_commit), today)
        target = out / provider / f"{path.stem}.yaml"
        prepared.append((path, target, checked_text(target, cassette)))
    for _, target, text in prepared:
        with cassette_lock(target):
            write_announced(target, text)
    return [Imported(source, target) for source, target, _ in prepared]
