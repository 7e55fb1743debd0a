"""LiteLLM imported as a network-less deployment runs it (``litellm_objects.import_litellm``): its own
fetches (cost map, Anthropic's beta headers config) from its bundled copies, and a media URL fetched
without its own DNS check, which the harness, answering the input's URLs by name, cannot pass. Without
them LiteLLM 1.109 and later made a network attempt in six cases of the corpus, each an error."""

from __future__ import annotations

import sys
import types

from wireconf.adapters import litellm_objects


def test_litellm_is_imported_offline_and_fetches_media_by_name(monkeypatch):
    newer = types.ModuleType("litellm")
    newer.user_url_validation = True  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm", newer)
    for name in (litellm_objects.LITELLM_OFFLINE, litellm_objects.LITELLM_OFFLINE_MODE):
        monkeypatch.setenv(name, "")  # restored as it was after the test, whatever import_litellm sets
        monkeypatch.delenv(name)
    assert litellm_objects.import_litellm() is newer
    assert newer.user_url_validation is False
    assert litellm_objects.os.environ[litellm_objects.LITELLM_OFFLINE_MODE] == "true"
    assert litellm_objects.os.environ[litellm_objects.LITELLM_OFFLINE] == "True"


def test_an_older_litellm_without_the_check_gets_no_new_attribute(monkeypatch):
    monkeypatch.setenv(litellm_objects.LITELLM_OFFLINE_MODE, "true")
    older = types.ModuleType("litellm")
    monkeypatch.setitem(sys.modules, "litellm", older)
    litellm_objects.import_litellm()
    assert not hasattr(older, "user_url_validation")


def test_a_users_own_setting_is_kept(monkeypatch):
    monkeypatch.setitem(sys.modules, "litellm", types.ModuleType("litellm"))
    monkeypatch.setenv(litellm_objects.LITELLM_OFFLINE_MODE, "false")
    litellm_objects.import_litellm()
    assert litellm_objects.os.environ[litellm_objects.LITELLM_OFFLINE_MODE] == "false"
