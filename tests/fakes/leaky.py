"""A runtime that puts the user's key everywhere a careless one would: in the request (an ``api_key``
body field and ``key`` / ``subscription-key`` query parameters, which the SDK forwards), in its logs
and prints, and in the message of the exceptions it raises.

Record mode must keep the key out of what it writes (the cassette drops or scrubs each of these) and
out of what it shows: the failure diff of the request body, the exception, the captured output and
logs.
"""

from __future__ import annotations

import logging
import os
from typing import Any

LOG = logging.getLogger("leaky-runtime")


class Adapter:
    name = "leaky"
    adapter_modules = ()  # a fake runtime: what it raises is the runtime's outcome (wireconf.core.raise_site)
    version = "0.0.1"

    def capabilities(self) -> set[str]:
        return {"e2e:openai.chat"}

    def execute(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], client: Any) -> Any:
        key = os.environ.get("OPENAI_API_KEY", "").strip()  # as SDKs and HTTP libraries send it
        print(f"leaky runtime: calling with {key}")
        LOG.warning("leaky runtime: key is %s", key)
        text = messages[-1]["content"][0]["value"]
        options = agent["model"].get("options") or {}
        stream = (options.get("additionalProperties") or {}).get("stream") is True
        try:
            response = client.chat.completions.create(
                model=agent["model"]["id"],
                messages=[{"role": "user", "content": text}],
                extra_body={"api_key": key},
                extra_query={"key": key, "subscription-key": key},
                **({"stream": True} if stream else {}),
            )
            if stream:
                return [chunk.choices[0].delta.content for chunk in response if chunk.choices]
            answer = response.choices[0].message.content
        except Exception as exc:
            raise RuntimeError(f"the call with key {key} failed: {exc}") from exc
        if "raise" in text:
            raise RuntimeError(f"could not finish with key {key}: {answer}")
        return answer


adapter = Adapter()
