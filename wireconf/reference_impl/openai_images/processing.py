"""§8.3 image processing (an ``ImagesResponse`` → one URL / base64 string, or a list of them)."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.sdk_objects import from_mapping


def image_result(item: Any) -> Any:
    """``url`` wins over ``b64_json`` on the same item; an item with neither gives nothing."""
    if item.url:
        return item.url
    if item.b64_json:
        return item.b64_json
    return None


def process_image(agent: dict[str, Any], response: object) -> Any:
    # imported at the first call: the SDK's types take seconds to import (the exec helper's hello waits)
    from openai.types import ImagesResponse

    response = from_mapping(ImagesResponse, response)  # decision 8/plain-mapping-response
    data = response.data or []
    if len(data) == 0:
        raise ValueError("Empty image response")
    results = [result for result in map(image_result, data) if result is not None]
    if len(results) == 1:
        return results[0]
    return results
