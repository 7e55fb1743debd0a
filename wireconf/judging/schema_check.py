"""Would the provider accept this request? Every request body a case captures, checked against the
pinned contract of its api's provider (``wireconf.providers.contract``: OpenAI's OpenAPI document,
Anthropic's and Google's request schemas at pinned versions, validated with ``jsonschema``).

The check reads the checked-in contract, never the SDK installed beside a runtime, so its verdict is the
same in every environment. It runs on every request that is not its expectation verbatim, passing or
not: a request equal to its expectation has only the expectation's problems (none of them the
runtime's, so nothing is validated and no validator built), and a request that passes through a matcher
(``{$any: …}``) may still hold a value the provider refuses. Judging runs after the runtime's part,
outside ``--case-timeout`` (``wireconf.pytest_plugin.case_run``): the runtime never pays for building a
validator.

A problem the expectation shares is the spec's own request (a finding about the spec, listed by
``wireconf.reports.provider_schema`` and on the findings page), never charged to the runtime; so is a
union that takes neither the runtime's value nor the expectation's at the same place (their reasons
differ with the values, but the spec has no accepted form there to hold the runtime to). What is left is
a ``provider-rejects`` difference, which fails in every profile.
"""

from __future__ import annotations

from collections.abc import Mapping

from wireconf.cassettes.compare import strict_equal
from wireconf.core.differences import Difference
from wireconf.core.untyped import JSON
from wireconf.providers.contract import Problem, problems

__all__ = ["Problem", "difference", "problems", "rejections"]


def difference(problem: Problem) -> Difference:
    """A problem of the runtime's request, as the difference that fails the case."""
    return Difference(
        "request", problem.path, "provider-rejects", problem.text, problem.schema, constraint=problem.best
    )


def rejections(api: str, actual: JSON, expected: JSON) -> list[Difference]:
    """The problems of the runtime's request ``actual`` that the expectation ``expected`` does not share,
    as ``provider-rejects`` differences; none when the api's provider has no contract or the body is not
    an object."""
    if not isinstance(actual, Mapping) or strict_equal(expected, actual):
        return []  # the expectation verbatim (as JSON, bool apart from numbers): its problems are shared
    found = problems(api, actual)
    if not found:
        return []
    shared = set(problems(api, expected)) if isinstance(expected, Mapping) else set()
    # where no member of a union takes the expectation's own value either, the spec has no form there
    # the provider accepts: what the runtime sends in its place is judged by the rules, not the contract
    unions = {(p.path, p.schema) for p in shared if p.union}
    charged = [p for p in found if p not in shared and not (p.union and (p.path, p.schema) in unions)]
    return [difference(p) for p in charged]
