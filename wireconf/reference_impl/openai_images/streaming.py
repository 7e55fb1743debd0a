"""Image generation streams (project decisions 8.3/stream-*): ``ImageGenStreamEvent``s → base64 images.

Each partial image is yielded as its event arrives, then the final image of each completed event; the
last item is therefore the finished image, and a caller can show the partial ones while it waits.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

IMAGE_EVENTS = ("image_generation.partial_image", "image_generation.completed")
"""A partial image, then the final image (the other event types carry no image)."""


def process_image_stream(agent: dict[str, Any], stream: Iterable[Any]) -> Iterator[Any]:
    for event in stream:
        if getattr(event, "type", None) in IMAGE_EVENTS:
            yield event.b64_json
