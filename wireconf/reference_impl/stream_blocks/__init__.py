"""The stream processor of seed 002 (blocks): provider streams → the StreamStates a policy callback sees.

One snapshot per callback: ``{blocks, current_block, just_completed, finish_reason}`` (docs/seeds.md).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from wireconf.reference_impl.stream_blocks.processor import run
from wireconf.reference_impl.stream_blocks.providers import anthropic_ops, gemini_ops, openai_chat_ops

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    ("blocks", "openai.chat"): functools.partial(run, ops_of=openai_chat_ops),
    ("blocks", "anthropic.messages"): functools.partial(run, ops_of=anthropic_ops),
    ("blocks", "gemini.generate_content"): functools.partial(run, ops_of=gemini_ops),
}
