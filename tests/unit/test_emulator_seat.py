"""A seat (``Emulator.open_seat``): one URL for a runtime configured once, answering for whichever call
is current; a request between calls is a stray, answered by nothing."""

from __future__ import annotations

import socket

import openai
import pytest

from tests.unit.test_emulator import CHAT, CHAT_OTHER, interaction
from wireconf.emulator.answers import RecordedAnswers
from wireconf.emulator.routes import PLACEHOLDER_KEY, EmulatorError
from wireconf.emulator.server import Emulator


@pytest.fixture(scope="module")
def emulator():
    with Emulator() as running:
        yield running


def test_a_runtime_configured_once_is_answered_for_each_current_call(emulator):
    seat = emulator.open_seat()
    client = openai.OpenAI(base_url=f"{seat.origin}/v1", api_key=PLACEHOLDER_KEY, max_retries=0)
    answers = []
    sites = []
    for name in (CHAT, CHAT_OTHER):
        recorded = interaction(name).response
        with emulator.serving("openai.chat", RecordedAnswers("openai.chat", [recorded])) as site:
            with seat.seated(site):
                answers.append(client.chat.completions.create(model="m", messages=[]).model_dump(mode="json"))
            sites.append(site)
    first, second = (interaction(name).response.body for name in (CHAT, CHAT_OTHER))
    assert [a["id"] for a in answers] == [
        openai.types.chat.ChatCompletion.model_validate_json(b).id for b in (first, second)
    ]
    assert answers[0] != answers[1]
    assert [len(site.captured) for site in sites] == [1, 1] and not any(site.refused for site in sites)
    assert sites[0].captured[0].url == "https://api.openai.com/v1/chat/completions"
    emulator.close_seat(seat)


def test_a_request_while_no_call_is_current_is_a_stray(emulator):
    seat = emulator.open_seat()
    client = openai.OpenAI(base_url=f"{seat.origin}/v1", api_key=PLACEHOLDER_KEY, max_retries=0)
    before = len(emulator.strays)
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="m", messages=[])
    assert [s.why for s in emulator.strays[before:]] == [
        "a request to a runtime's seat while none of its calls is current"
    ]
    emulator.close_seat(seat)
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="m", messages=[])
    assert emulator.strays[-1].why == "no open site has this token"


def test_a_call_left_current_cannot_be_taken_for_the_next(emulator):
    seat = emulator.open_seat()
    recorded = interaction(CHAT).response
    with (
        emulator.serving("openai.chat", RecordedAnswers("openai.chat", [recorded])) as first,
        emulator.serving("openai.chat", RecordedAnswers("openai.chat", [recorded])) as second,
    ):
        seat.take(first)
        with pytest.raises(EmulatorError, match="one call at a time"):
            seat.take(second)
        seat.release(second)  # not the current one: nothing changes
        assert seat.current is first
        seat.release(first)
        assert seat.current is None
    emulator.close_seat(seat)


class _Seated:
    """An adapter whose runtime keeps its HTTP client per base URL (``endpoint_seated``)."""

    endpoint_seated = True


def test_a_seated_adapters_cases_share_one_url_each_answered_by_its_own_site():
    from wireconf.kinds.sites import CaseSites, running

    client = None
    answers, sites = [], []
    for name in (CHAT, CHAT_OTHER):
        case = CaseSites(_Seated())
        recorded = interaction(name).response
        endpoint, site = case.open("openai.chat", RecordedAnswers("openai.chat", [recorded]))
        # a second site of the same case (process_async's) has its own URL
        other, _ = case.open("openai.chat", RecordedAnswers("openai.chat", [recorded]))
        assert other.origin != endpoint.origin and site.origin != endpoint.origin
        if client is None:  # built once, as the runtime keeps it for its one base URL
            client = openai.OpenAI(base_url=endpoint.api_base_url, api_key=endpoint.key, max_retries=0)
        assert str(client.base_url).rstrip("/") == endpoint.api_base_url
        answers.append(client.chat.completions.create(model="m", messages=[]).id)
        sites.append(site)
        assert case.close() == []
    assert answers == [
        openai.types.chat.ChatCompletion.model_validate_json(interaction(n).response.body).id
        for n in (CHAT, CHAT_OTHER)
    ]
    assert [len(site.captured) for site in sites] == [1, 1]
    # between cases the seat answers for none: a request then is the next case's error, never an answer
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="m", messages=[])
    strays = running().strays  # type: ignore[union-attr]
    assert strays[-1].why == "a request to a runtime's seat while none of its calls is current"


def test_an_unseated_adapters_cases_each_have_their_own_url():
    from wireconf.kinds.sites import CaseSites

    recorded = interaction(CHAT).response
    origins = []
    for _ in range(2):
        case = CaseSites(object())
        endpoint, site = case.open("openai.chat", RecordedAnswers("openai.chat", [recorded]))
        assert endpoint.origin == site.origin
        origins.append(endpoint.origin)
        case.close()
    assert origins[0] != origins[1]


def test_a_stray_is_charged_to_the_first_case_to_close_not_to_those_prepared_ahead_too():
    """With calls sent ahead, the next cases' sites are opened before a case runs: a request for no
    open site while it runs is its error, once, not also each later case's."""
    from wireconf.kinds.sites import CaseSites, emulator

    recorded = interaction(CHAT).response
    running, ahead = CaseSites(object()), CaseSites(object())
    for case in (running, ahead):
        case.open("openai.chat", RecordedAnswers("openai.chat", [recorded]))
    with socket.create_connection(emulator().address, timeout=5) as client:
        client.sendall(
            b"POST /no-such-token/v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
        )
        assert client.recv(1) == b""  # refused: the connection closed
    [charged] = running.close()
    assert "no open site has this token" in charged
    assert ahead.close() == []
