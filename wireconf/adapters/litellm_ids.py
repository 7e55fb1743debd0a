"""The ids LiteLLM draws while it converts a response, from a generator seeded anew for every adapter
call, so that the same case gives the same verdict, diff included, on every run.

LiteLLM gives ids where the provider sent none, at random by design: every Gemini tool call gets
``call_<28 hex digits of a uuid4>`` (``litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini:
ModelResponseIterator.chunk_parser``), every ``ModelResponse`` / ``ModelResponseStream`` a
``chatcmpl-<uuid4>``, a tool call without id a ``<uuid4>`` (``litellm.types.utils``). The rules only
need ids that are there and tell blocks apart (``blocks/missing-tool-call-id``,
``blocks/block-ids-distinct``), never a particular spelling; but those ids show in the diffs of failing
cases, and the findings page (docs/findings.md, ``wireconf findings``) must rebuild byte for byte
from the same runtimes. So while ``seeded_ids()`` is active, every uuid4 LiteLLM draws in that context
comes from ``random.Random(SEED)``: still a well-formed version-4 UUID of LiteLLM's own UUID type,
still different from every other draw of the call.

LiteLLM draws all its uuids through one module (``litellm._uuid``: ``from litellm._uuid import uuid``,
then ``uuid.uuid4()``, where ``uuid`` is its backend, ``fastuuid``), so replacing the backend's
``uuid4`` reaches every draw, also in modules imported later. The replacement serves the seeded
generator only to the context that entered ``seeded_ids()`` (a ``ContextVar``: the adapter's thread and
the asyncio tasks it starts); any other thread, e.g. LiteLLM's logging workers or a timed-out call
still running, draws at random as before and does not advance the generator. The original ``uuid4``
is put back when the last active ``seeded_ids()`` exits.
"""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from wireconf.adapters.litellm_objects import import_litellm

SEED = "wireconf"
"""Every call starts from this seed: a case's ids depend on that case alone, not on the cases run
before it, their order, the shard or the process."""

_GENERATOR: ContextVar[random.Random | None] = ContextVar("wireconf_litellm_ids", default=None)
_LOCK = threading.Lock()
_active = 0
_original: Callable[[], Any] | None = None


def _backend() -> Any:
    """The module LiteLLM draws its uuids from (``fastuuid`` in litellm 1.79)."""
    import_litellm()
    from litellm._uuid import uuid as backend

    return backend


def _uuid4(backend: Any, original: Callable[[], Any]) -> Callable[[], Any]:
    def uuid4() -> Any:
        generator = _GENERATOR.get()
        if generator is None:
            return original()
        drawn = uuid.UUID(int=generator.getrandbits(128), version=4)  # sets the version and variant bits
        return backend.UUID(int=drawn.int)

    return uuid4


def _install() -> None:
    global _active, _original
    with _LOCK:
        if _active == 0:
            backend = _backend()
            _original = backend.uuid4
            backend.uuid4 = _uuid4(backend, _original)
        _active += 1


def _uninstall() -> None:
    global _active, _original
    with _LOCK:
        _active -= 1
        if _active == 0:
            _backend().uuid4 = _original
            _original = None


@contextmanager
def seeded_ids(seed: str = SEED) -> Iterator[None]:
    """Within the block, LiteLLM's uuids (in this context) come from a generator seeded with ``seed``."""
    _install()
    token = _GENERATOR.set(random.Random(seed))
    try:
        yield
    finally:
        _GENERATOR.reset(token)
        _uninstall()
