"""The one way a cassette reaches the disk: decode, scrub, serialize, scan, then write atomically.

Recording (``harness.cassettes.recording``) and importing (``harness.cassettes.importer``) both write through
``write_cassette``; vcrpy users get the same guarantees with ``WireconfPersister``
(``my_vcr.register_persister(WireconfPersister)``). When the scan finds a secret the file is not
touched (an existing cassette stays as it was) and ``SecretInCassette`` says where, masked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness.cassettes.atomic import write_atomic
from harness.cassettes.format import decoded_interaction, serialize
from harness.cassettes.scrub import scrub_interaction
from harness.cassettes.secret_scan import Finding, key_values, scan
from harness.errors import WireconfError


class SecretInCassette(WireconfError):
    """The serialized cassette would contain a secret; nothing was written."""

    def __init__(self, path: Path, findings: list[Finding]) -> None:
        self.path = path
        self.findings = findings
        shown = "\n".join(f"  {finding}" for finding in findings[:10])
        more = f"\n  … and {len(findings) - 10} more" if len(findings) > 10 else ""
        super().__init__(
            f"refusing to write {path}: the cassette would contain {len(findings)} secret-looking "
            f"string(s) after scrubbing; nothing was written:\n{shown}{more}"
        )


def cassette_text(cassette_dict: Mapping[str, Any]) -> str:
    """The text of a cassette dict (``interactions`` as vcrpy dicts, optional ``wireconf``), scrubbed."""
    interactions = [scrub_interaction(decoded_interaction(i)) for i in cassette_dict.get("interactions", [])]
    return serialize({**cassette_dict, "interactions": interactions})


def checked_text(
    path: Path,
    cassette_dict: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    secrets: Iterable[str] = (),
) -> str:
    """The scrubbed text, after the scan; raises ``SecretInCassette`` on a hit."""
    text = cassette_text(cassette_dict)
    findings = scan(text, key_values(environ), secrets)
    if findings:
        raise SecretInCassette(path, findings)
    return text


def write_cassette(
    path: Path,
    cassette_dict: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    secrets: Iterable[str] = (),
) -> None:
    """Scrub, serialize, scan and atomically write one cassette."""
    write_atomic(path, checked_text(path, cassette_dict, environ, secrets))


class _ScrubbingSerializer:
    """Wraps a vcrpy serializer so that the interactions it is given are scrubbed first."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def serialize(self, data: dict[str, Any]) -> str:
        interactions = [scrub_interaction(decoded_interaction(i)) for i in data.get("interactions", [])]
        return str(self.inner.serialize({**data, "interactions": interactions}))

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
        text = vcr_serialize(cassette_dict, _ScrubbingSerializer(serializer))
        findings = scan(text, key_values())
        if findings:
            raise SecretInCassette(path, findings)
        write_atomic(path, text)
