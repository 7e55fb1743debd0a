"""OpenAI Images: §7.3 (request), §8.3 (processing) and image generation streams (project decision)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_impl.openai_images.processing import process_image
from reference_impl.openai_images.request import build_image_args
from reference_impl.openai_images.streaming import process_image_stream
from reference_impl.tracing.spans import process_span

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    ("wire", "openai.images"): build_image_args,
    ("process", "openai.images"): process_span(process_image),
    ("stream", "openai.images"): process_image_stream,
}
