"""A runtime that puts the user's key everywhere a careless one would: in the request body (as an
``api_key`` field the SDK forwards), in its logs and prints, and in the message of an exception.

Record mode must keep the key out of what it writes (the cassette scrubs the field) and out of what
it shows: the failure diff of the request body, the exception, the captured output and logs.
"""

from __future__ import annotations

import logging
import os
from typing import Any

LOG = logging.getLogger("leaky-runtime")


class Adapter:
    name = "leaky"
    version = "0.0.1"

    def capabilities(self) -> set[str]:
        return {"e2e:openai.chat"}

    def execute(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], client: Any) -> Any:
        key = os.environ.get("OPENAI_API_KEY", "")
        print(f"leaky runtime: calling with {key}")
        LOG.warning("leaky runtime: key is %s", key)
        text = messages[-1]["content"][0]["value"]
        response = client.chat.completions.create(
            model=agent["model"]["id"],
            messages=[{"role": "user", "content": text}],
            extra_body={"api_key": key},
        )
        answer = response.choices[0].message.content
        if "raise" in text:
            raise RuntimeError(f"could not finish with key {key}: {answer}")
        return answer


adapter = Adapter()
