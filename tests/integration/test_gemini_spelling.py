"""A Gemini body is judged as the API reads it, whoever spelt it: the proto3 JSON parser takes a field's
proto name (``mime_type``) as its JSON name (``mimeType``), so a runtime that sends proto names gets the
reference's verdicts, whichever way its body reached the harness. One field under both names is another
request, and is judged as sent."""

from __future__ import annotations

from tests.conftest import CASES
from tests.fakes.proto_names import respelt
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.loader import Corpus
from wireconf.providers.google import read_body

GEMINI_WIRE = CASES / "wire" / "gemini.generate_content"


def test_the_fake_respells_the_corpus_and_the_api_reads_it_back(corpus: Corpus) -> None:
    expected = [
        to_plain(c.raw["expect"])
        for c in corpus.cases()
        if c.kind == "wire"
        and c.model.api == "gemini.generate_content"
        and isinstance(c.raw.get("expect"), dict)
    ]
    respelt_bodies = [body for body in expected if respelt(body) != body]
    assert len(respelt_bodies) >= 10, len(respelt_bodies)  # the run below judges proto names, many of them
    assert all(read_body(respelt(body)) == read_body(body) for body in expected)


def test_a_runtime_sending_proto_names_gets_the_references_verdicts(run_corpus) -> None:
    reference = run_corpus("--impl=reference", target=GEMINI_WIRE)
    proto = run_corpus("--impl=tests.fakes.proto_names:adapter", target=GEMINI_WIRE)
    assert reference.outcomes and proto.outcomes == reference.outcomes, proto.longreprs


def test_a_field_sent_under_both_names_is_judged_as_sent(run_corpus) -> None:
    run = run_corpus("--impl=tests.fakes.proto_names:both_names", target=GEMINI_WIRE)
    failed = run.with_outcome("failed")
    assert failed, "a body with maxOutputTokens beside max_output_tokens passed"
    # judged as sent: the proto name stays, an unexpected key beside the JSON name's other value
    assert all("max_output_tokens: unexpected key" in run.longreprs[case] for case in failed), run.longreprs
