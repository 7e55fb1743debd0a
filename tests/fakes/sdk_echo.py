"""A runtime that calls every api through the official SDK client it is handed, the way a user's code
would, for the record-and-replay tests against the fake provider server (OpenAI Chat goes through the
reference implementation itself).

It also misbehaves on purpose where a recording must protect the user: it sends its OpenAI key as a
``key=`` query parameter on embeddings, and an ``access_token`` in the Anthropic request body.
"""

from __future__ import annotations

import os
from typing import Any

from wireconf.adapter_contract import APIS
from wireconf.reference_impl.adapter import ReferenceAdapter

BODY_TOKEN = "PLANTEDbodyToken0123456789abcdef"


def _stream(agent: dict[str, Any]) -> bool:
    options = agent["model"].get("options") or {}
    return (options.get("additionalProperties") or {}).get("stream") is True


class Adapter:
    name = "sdk-echo"
    adapter_modules = ()  # a fake runtime: what it raises is the runtime's outcome (wireconf.core.raise_site)
    version = "0.0.1"

    def capabilities(self) -> set[str]:
        # concept:api-type: the embeddings and images cases name their api by agent.model.apiType,
        # which this fake follows (it calls the SDK method of the api the harness names)
        return {f"e2e:{api}" for api in APIS} | {"concept:api-type"}

    def execute(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], client: Any) -> Any:
        text = messages[-1]["content"][0]["value"]
        model = agent["model"]["id"]
        stream = _stream(agent)
        streaming = {"stream": True} if stream else {}  # an SDK sends "stream": false when it is given
        if api == "openai.chat":
            return ReferenceAdapter().execute(api, agent, messages, client)
        if api == "openai.embeddings":
            key = os.environ.get("OPENAI_API_KEY", "not-set-in-replay")
            response = client.embeddings.create(model=model, input=text, extra_query={"key": key})
            return [item.embedding for item in response.data]
        if api == "openai.images":
            response = client.images.generate(model=model, prompt=text)
            image = response.data[0]
            return {"revised_prompt": image.revised_prompt, "url_host": image.url.split("/")[2]}
        if api == "openai.responses":
            response = client.responses.create(model=model, input=text, **streaming)
            if not stream:
                return response.output_text
            return (event.delta for event in response if event.type == "response.output_text.delta")
        if api == "anthropic.messages":
            response = client.messages.create(
                model=model,
                max_tokens=64,
                messages=[{"role": "user", "content": text}],
                **streaming,
                extra_body={"access_token": BODY_TOKEN},
            )
            if not stream:
                return response.content[0].text
            return (event.delta.text for event in response if event.type == "content_block_delta")
        if api == "gemini.generate_content":
            if not stream:
                return client.models.generate_content(model=model, contents=text).text
            return (chunk.text for chunk in client.models.generate_content_stream(model=model, contents=text))
        raise NotImplementedError(api)


adapter = Adapter()
