"""A runtime that forges its verdicts: importing it replaces the harness's judge with one that finds
nothing wrong, and it sends a request no case expects. In-process (the adapter is imported by the
pytest process and runs beside the judge) every case passes; served over ``exec:`` it runs in a
process of its own, the judge it replaced is not the one that judges it, and its cases fail."""

from __future__ import annotations

import wireconf.judging.verdict as verdict
import wireconf.pytest_plugin.case_run as case_run
from tests.fakes.base import ChatFake


def _finds_nothing(*args, **kwargs):
    return []


case_run.judge_variants = _finds_nothing
verdict.judge_variants = _finds_nothing


class ForgesVerdicts(ChatFake):
    name = "forges-verdicts"

    def build_request(self, api, agent, messages):
        return {"model": "not-what-any-case-expects"}


adapter = ForgesVerdicts()
