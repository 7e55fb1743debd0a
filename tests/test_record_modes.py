"""--record-mode has vcrpy's meanings, per e2e cassette, against the fake provider server."""

from __future__ import annotations

import shutil

import pytest

from harness.cassettes.recording import RecordingPolicy
from harness.cassettes.store import read_cassette
from tests.conftest import REPO
from tests.test_record_replay import write_corpus

CHAT = "e2e.openai.chat.fake-chat"
TWICE = "--impl=tests.fakes.e2e_misbehaving:twice"
REFERENCE = "--impl=reference"


def record(run_corpus, corpus, cassettes, mode, *extra):
    only = f"{CHAT} and not stream and not deviates"
    return run_corpus(f"--record-mode={mode}", f"--cassettes={cassettes}", "-k", only, *extra, target=corpus)


@pytest.fixture
def recorded(fake_provider, pytester, run_corpus):
    """The chat case recorded once (one interaction), and the server's request log emptied."""
    corpus = write_corpus(pytester.path)
    cassettes = pytester.path / "cassettes"
    assert record(run_corpus, corpus, cassettes, "once", REFERENCE).outcomes == {CHAT: "passed"}
    fake_provider.requests.clear()
    return corpus, cassettes, cassettes / "openai" / "fake-chat.yaml"


def test_once_replays_an_existing_cassette(recorded, fake_provider, run_corpus):
    corpus, cassettes, path = recorded
    before = path.read_bytes()
    assert record(run_corpus, corpus, cassettes, "once", REFERENCE).outcomes == {CHAT: "passed"}
    assert fake_provider.requests == [] and path.read_bytes() == before


def test_new_episodes_replays_what_matches_and_appends_what_does_not(recorded, fake_provider, run_corpus):
    corpus, cassettes, path = recorded
    run = record(run_corpus, corpus, cassettes, "new_episodes", TWICE)
    assert len(fake_provider.requests) == 1  # the first request was answered by the cassette
    assert len(read_cassette(path).interactions) == 2
    assert "the case expects one request through the SDK; the runtime sent 2" in run.longreprs[CHAT]
    assert "matches no recorded interaction" not in run.longreprs[CHAT]


def test_all_re_records_and_replaces_the_interactions_it_matches(recorded, fake_provider, run_corpus):
    corpus, cassettes, path = recorded
    assert record(run_corpus, corpus, cassettes, "all", REFERENCE).outcomes == {CHAT: "passed"}
    assert len(fake_provider.requests) == 1
    assert len(read_cassette(path).interactions) == 1


def test_none_never_records(recorded, fake_provider, run_corpus):
    corpus, cassettes, path = recorded
    run = record(run_corpus, corpus, cassettes, "none", TWICE)
    assert fake_provider.requests == [] and len(read_cassette(path).interactions) == 1
    assert (
        "request 2 (POST http" in run.longreprs[CHAT]
        and "matches no recorded interaction" in run.longreprs[CHAT]
    )


def test_an_imported_cassette_is_replayed_read_only_in_every_mode(fake_provider, pytester, run_corpus):
    cassettes = pytester.path / "cassettes"
    shutil.copytree(REPO / "cassettes", cassettes)
    path = next((cassettes / "openai").glob("chat__01__*.yaml"))
    before = path.read_bytes()
    run = run_corpus(
        "--record-mode=all",
        f"--cassettes={cassettes}",
        "-k",
        "e2e.openai.chat.text-reply",
        target=REPO / "cases",
    )
    assert run.outcomes == {"e2e.openai.chat.text-reply": "passed"}
    assert fake_provider.requests == [] and path.read_bytes() == before


@pytest.mark.parametrize(
    ("mode", "exists", "writable", "effective"),
    [
        ("none", True, True, "none"),
        ("once", False, True, "once"),
        ("once", True, True, "none"),
        ("new_episodes", True, True, "new_episodes"),
        ("all", True, True, "all"),
        ("all", True, False, "none"),  # imported or synthetic: never re-recorded
        ("new_episodes", True, False, "none"),
    ],
)
def test_the_effective_mode_of_a_cassette(mode, exists, writable, effective):
    assert RecordingPolicy(mode).effective_mode(exists, writable) == effective


def test_keys_are_needed_only_where_something_may_be_recorded():
    policy = RecordingPolicy("once", environ={})
    assert policy.skip_reason("openai", exists=True, writable=True) is None
    assert "OPENAI_API_KEY is not set" in (policy.skip_reason("openai", exists=False, writable=True) or "")
    gemini = RecordingPolicy("all", environ={"GOOGLE_API_KEY": "AIza-something"})
    assert gemini.skip_reason("google", exists=True, writable=True) is None
    assert "GEMINI_API_KEY or GOOGLE_API_KEY" in (
        RecordingPolicy("all", {}).skip_reason("google", True, True) or ""
    )
    with pytest.raises(ValueError, match="record mode 'sometimes' is not one of"):
        RecordingPolicy("sometimes")


def test_an_unknown_record_mode_is_a_usage_error(pytester):
    pytester.syspathinsert(REPO)
    result = pytester.runpytest_inprocess("--record-mode=sometimes", str(REPO / "cases"), "--co", "-q")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*argument --record-mode: invalid choice: 'sometimes'*"])
