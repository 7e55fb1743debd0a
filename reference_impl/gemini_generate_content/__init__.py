"""Google Gemini generateContent: the project's provider subsection (§7.8) for request, processing and
streaming. The mappings and the reasons for them: docs/providers/gemini.md; the rules: §7.9 and §8.8 /
§8.9 of cases/rules.yaml.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_impl.gemini_generate_content.processing import process_generate_content
from reference_impl.gemini_generate_content.request import build_generate_content_args
from reference_impl.gemini_generate_content.streaming import process_stream
from reference_impl.tracing.spans import process_span

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    ("wire", "gemini.generate_content"): build_generate_content_args,
    ("process", "gemini.generate_content"): process_span(process_generate_content),
    ("stream", "gemini.generate_content"): process_stream,
}
