"""What a passing case never pays for (issue 33): the cost per case is held by benchmarks/speed.py
(--before REF, side by side), not by a timed test; these hold the structure that keeps it down."""

from __future__ import annotations

from tests.integration.test_hostile_adapters import WIRE, WIRE_2, only


def test_a_passing_run_never_builds_a_providers_request_type(run_corpus):
    """Building the SDK's request type (pydantic, seconds per api) is for a request that differs from
    its expectation (``judging.schema_check.rejections``): each runner process built all of them on
    4ab5820, 0.45 s of CPU per session, about 0.8 ms of every case of a 560-case run."""
    from wireconf.judging import schema_check

    schema_check._adapter.cache_clear()
    run = run_corpus("--case-runner=thread", "--impl=reference", *only(WIRE, WIRE_2))
    assert run.with_outcome("passed") == {WIRE, WIRE_2}
    assert schema_check._adapter.cache_info().currsize == 0


EXTRA_KEY = """\
from tests.fakes.base import ChatFake


class ExtraKey(ChatFake):
    name = "extra-key"

    def build_request(self, api, agent, messages):
        return {**super().build_request(api, agent, messages), "not_a_parameter": 1}


adapter = ExtraKey()
"""


def test_a_differing_request_is_still_checked_against_the_providers_type(run_corpus, pytester):
    """The same check, built when it is needed: a request with a key no Chat Completions parameter has
    differs from its expectation, and the provider's SDK type rejects it."""
    from wireconf.judging import schema_check

    pytester.makepyfile(extra_key=EXTRA_KEY)
    pytester.syspathinsert()
    schema_check._adapter.cache_clear()
    run = run_corpus("--case-runner=thread", "--impl=extra_key:adapter", *only(WIRE))
    assert run.with_outcome("failed") == {WIRE}
    assert "$.not_a_parameter: the provider's SDK type" in run.longreprs[WIRE], run.longreprs[WIRE]
    assert schema_check._adapter.cache_info().currsize > 0
