"""Base64 data without a media type has no form in an OpenAI-format runtime (a data URL names its type)
nor in LangChain (its content blocks document ``mime_type`` as "Required for base64 data"): the adapters
say so instead of making a type up, so a case about a missing type never judges the adapter's guess."""

from __future__ import annotations

import pytest

from wireconf.adapter_contract import Inexpressible
from wireconf.adapters import langchain_inputs, openai_inputs

UNTYPED = [
    {"kind": "image", "value": "iVBORw0KGgo="},
    {"kind": "file", "value": "JVBERi0xLjQK"},
]


@pytest.mark.parametrize("part", UNTYPED, ids=lambda p: p["kind"])
def test_untyped_base64_has_no_openai_form(part):
    with pytest.raises(Inexpressible, match="without a media type"):
        openai_inputs.content_part(part)


@pytest.mark.parametrize("part", [*UNTYPED, {"kind": "audio", "value": "AAAA"}], ids=lambda p: p["kind"])
def test_untyped_base64_has_no_langchain_form(part):
    with pytest.raises(Inexpressible, match="without a media type"):
        langchain_inputs.content_block(part)


def test_typed_base64_and_urls_keep_their_form():
    typed = {"kind": "image", "value": "iVBORw0KGgo=", "mediaType": "image/jpeg"}
    assert openai_inputs.content_part(typed)["image_url"]["url"] == "data:image/jpeg;base64,iVBORw0KGgo="
    assert langchain_inputs.content_block(typed) == {
        "type": "image",
        "base64": "iVBORw0KGgo=",
        "mime_type": "image/jpeg",
    }
    url = {"kind": "image", "value": "https://example.com/a.png"}
    assert openai_inputs.content_part(url)["image_url"]["url"] == url["value"]
    assert langchain_inputs.content_block(url) == {"type": "image", "url": url["value"]}
