"""What the integration tests share beyond tests/conftest.py: the SDKs and litellm imported once, before
any nested pytest run (the unit tests need neither, and start without them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wireconf.providers.registry import API_NAMES
from wireconf.sdk.replay import warm_up


@pytest.fixture(scope="session", autouse=True)
def _sdks_imported_once() -> None:
    """Warm the SDKs up before any pytester fixture takes its ``sys.modules`` snapshot, so that their
    lazily imported modules stay imported for the whole session instead of being purged after each
    test and imported again (seconds each time) by the next in-process run."""
    for api in API_NAMES:
        warm_up(api)
    _litellm_imported_once()
    _authority_imported_once()


def _authority_imported_once() -> None:
    """The ``cryptography`` modules of the emulator's certificate authority (``emulator/tls.py``, made by
    the first case that names media over https): imported first inside a nested run, they would be purged
    after it and imported again, and the classes of two imports are not each other's (``curve must be an
    EllipticCurve instance`` in the next test that makes an authority)."""
    from cryptography import x509  # noqa: F401
    from cryptography.hazmat.primitives import hashes, serialization  # noqa: F401
    from cryptography.hazmat.primitives.asymmetric import ec  # noqa: F401
    from cryptography.x509.oid import NameOID  # noqa: F401


def _litellm_imported_once() -> None:
    """litellm (about 3 s to import) and the parts of it the seed adapters use, for the same reason."""
    try:
        from wireconf.adapters.litellm_objects import import_litellm

        import_litellm()
    except ImportError:
        return
    import litellm.litellm_core_utils.llm_response_utils.convert_dict_to_response
    import litellm.llms.anthropic.chat.handler
    import litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini  # noqa: F401


@pytest.fixture
def transcript(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An ``exec:`` runtime's conversation, kept (``WIRECONF_EXEC_TRANSCRIPT``) for the test to read; the
    runtime can import ``tests.fakes.*``."""
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    path = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(path))
    return path
