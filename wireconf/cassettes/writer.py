"""The one way a cassette reaches the disk: decode, scrub, serialize, scan, then write atomically.

Recording (``wireconf.cassettes.recording``) and importing (``wireconf.cassettes.importer``) both write
through ``write_cassette``; vcrpy users get the same guarantees with ``WireconfPersister``
(``my_vcr.register_persister(WireconfPersister)``). When the scan finds a secret the file is not touched (an
existing cassette stays as it was) and ``SecretInCassette`` says where, masked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from wireconf.cassettes.atomic import write_atomic
from wireconf.cassettes.format import decoded_interaction, deserialize, serialize
from wireconf.cassettes.lock import cassette_lock
from wireconf.cassettes.scrub import scrub_interaction
from wireconf.cassettes.secret_scan import Finding, key_values, scan, scan_interactions
from wireconf.cassettes.store import CassetteError
from wireconf.cassettes.watch import announce
from wireconf.core.errors import WireconfError
from wireconf.core.yaml_source import YamlSyntaxError


class SecretInCassette(WireconfError):
    """The serialized cassette would contain a secret; nothing was written."""

    def __init__(self, path: Path, findings: list[Finding]) -> None:
        self.path = path
        self.findings = findings
        shown = "\n".join(f"  {finding}" for finding in findings[:10])
        more = f"\n  … and {len(findings) - 10} more" if len(findings) > 10 else ""
        super().__init__(
            f"refusing to write {path}: the cassette would contain {len(findings)} secret-looking "
            f"string(s) after scrubbing; nothing was written:\n{shown}{more}",
            hint="the scrub removes credential headers and query parameters; a secret elsewhere (a body, "
            "a URL path) must leave the runtime's request or the source recording before it is written",
        )


def _scrubbed(cassette_dict: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    interactions = [scrub_interaction(decoded_interaction(i)) for i in cassette_dict.get("interactions", [])]
    return serialize({**cassette_dict, "interactions": interactions}), interactions


def cassette_text(cassette_dict: Mapping[str, Any]) -> str:
    """The text of a cassette dict (``interactions`` as vcrpy dicts, optional ``wireconf``), scrubbed."""
    return _scrubbed(cassette_dict)[0]


def secrets_in(
    text: str, interactions: list[dict[str, Any]], environ: Mapping[str, str] | None, secrets: Iterable[str]
) -> list[Finding]:
    """What the scan finds in the text to be written and in the scrubbed interactions behind it."""
    values = key_values(environ)
    secrets = list(secrets)
    findings = scan(text, values, secrets)
    return findings + scan_interactions(interactions, values, secrets, known=findings)


def checked_text(
    path: Path,
    cassette_dict: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    secrets: Iterable[str] = (),
) -> str:
    """The scrubbed text, after the scan; raises ``SecretInCassette`` on a hit."""
    text, interactions = _scrubbed(cassette_dict)
    findings = secrets_in(text, interactions, environ, secrets)
    if findings:
        raise SecretInCassette(path, findings)
    return text


def write_announced(path: Path, text: str) -> None:
    """Write a cassette's text atomically, announced first to the watches of every wireconf process
    (``wireconf.cassettes.watch.announce``: another run or xdist worker watching the folder then knows
    the change for a wireconf process's, not its runtime's)."""
    announce(path, text)
    write_atomic(path, text)


def write_cassette(
    path: Path,
    cassette_dict: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    secrets: Iterable[str] = (),
) -> None:
    """Scrub, serialize, scan and atomically write one cassette (under its lock), replacing any."""
    with cassette_lock(path):
        write_announced(path, checked_text(path, cassette_dict, environ, secrets))


def update_cassette(
    path: Path,
    build: Callable[[dict[str, Any] | None], Mapping[str, Any]],
    environ: Mapping[str, str] | None = None,
    secrets: Iterable[str] = (),
) -> None:
    """Under the cassette's lock (``wireconf.cassettes.lock``): read what is on disk now (``None`` when
    there is nothing), let ``build`` make the cassette to write from it (a recording merges its new
    interactions in), then scrub, scan and write it atomically. Overlapping writers keep each other's
    interactions."""
    with cassette_lock(path):
        try:
            current = deserialize(path.read_text(encoding="utf-8")) if path.is_file() else None
        except (OSError, UnicodeDecodeError, ValueError, YamlSyntaxError) as exc:
            raise CassetteUnreadable(
                f"cannot record into {path}: it is not a readable cassette ({exc}); nothing was written",
                hint="fix or delete that file, then record again",
            ) from exc
        write_announced(path, checked_text(path, build(current), environ, secrets))


class CassetteUnreadable(CassetteError):
    """The cassette on disk cannot be read, so what was recorded cannot be merged into it."""


class _ScrubbingSerializer:
    """Wraps a vcrpy serializer so that the interactions it is given are scrubbed first."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.scrubbed: list[dict[str, Any]] = []

    def serialize(self, data: dict[str, Any]) -> str:
        self.scrubbed = [scrub_interaction(decoded_interaction(i)) for i in data.get("interactions", [])]
        return str(self.inner.serialize({**data, "interactions": self.scrubbed}))

    def deserialize(self, text: str) -> Any:
        return self.inner.deserialize(text)


class WireconfPersister:
    """A vcrpy persister: cassettes are scrubbed and scanned before an atomic write."""

    @classmethod
    def load_cassette(cls, cassette_path: Any, serializer: Any) -> Any:
        from vcr.persisters.filesystem import FilesystemPersister

        return FilesystemPersister.load_cassette(cassette_path, serializer)

    @staticmethod
    def save_cassette(cassette_path: Any, cassette_dict: Any, serializer: Any) -> None:
        from vcr.serialize import serialize as vcr_serialize

        path = Path(cassette_path)
        scrubbing = _ScrubbingSerializer(serializer)
        text = vcr_serialize(cassette_dict, scrubbing)
        findings = secrets_in(text, scrubbing.scrubbed, None, ())
        if findings:
            raise SecretInCassette(path, findings)
        write_announced(path, text)
