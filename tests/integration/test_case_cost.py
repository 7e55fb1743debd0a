"""What a passing case never pays for (issue 33): the cost per case is held by benchmarks/speed.py
(--before REF, side by side), not by a timed test; these hold the structure that keeps it down."""

from __future__ import annotations

from tests.integration.test_hostile_adapters import WIRE, WIRE_2, only


def test_a_request_equal_to_its_expectation_never_builds_a_contract_validator(run_corpus):
    """A request that is its expectation verbatim has only the expectation's problems, none of them the
    runtime's (``judging.schema_check.rejections``), so it is never validated: building a contract's
    validator and walking a request cost per case what every passing case would pay (on 4ab5820 each
    runner process built all 16 SDK request types, 0.45 s of CPU per session). The expectation's own
    problems are worked out once per change of its file (the first run) and kept."""
    from wireconf.providers import contract

    run_corpus("--case-runner=thread", "--impl=reference", *only(WIRE, WIRE_2))  # the corpus's first run
    contract._validator.cache_clear()
    run = run_corpus("--case-runner=thread", "--impl=reference", *only(WIRE, WIRE_2))
    assert run.with_outcome("passed") == {WIRE, WIRE_2}
    assert contract._validator.cache_info().currsize == 0


EXTRA_KEY = """\
from tests.fakes.base import ChatFake


class ExtraKey(ChatFake):
    name = "extra-key"

    def build_request(self, api, agent, messages):
        return {**super().build_request(api, agent, messages), "not_a_parameter": 1}


adapter = ExtraKey()
"""


def test_a_differing_request_is_still_checked_against_the_providers_contract(run_corpus, pytester):
    """The same check, built when it is needed: a request with a key no Chat Completions parameter has
    differs from its expectation, and the provider's pinned contract rejects it."""
    from wireconf.providers import contract

    pytester.makepyfile(extra_key=EXTRA_KEY)
    pytester.syspathinsert()
    contract._validator.cache_clear()
    run = run_corpus("--case-runner=thread", "--impl=extra_key:adapter", *only(WIRE))
    assert run.with_outcome("failed") == {WIRE}
    assert "$.not_a_parameter: the provider's contract rejects this" in run.longreprs[WIRE], run.longreprs[
        WIRE
    ]
    assert contract._validator.cache_info().currsize > 0
