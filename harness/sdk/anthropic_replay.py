"""Anthropic: ``anthropic.Anthropic`` over the replay transport, and the Messages call."""

from __future__ import annotations

from typing import Any

from harness.sdk.transport import ReplayTransport, http_module_of


def http_module() -> Any:
    import anthropic

    return http_module_of(anthropic.DefaultHttpxClient)


def client(transport: Any) -> Any:
    """A real ``anthropic.Anthropic`` whose HTTP goes to ``transport``."""
    import anthropic

    return anthropic.Anthropic(
        api_key="wireconf-replay",
        base_url="https://api.anthropic.com",
        http_client=http_module().Client(transport=transport),
        max_retries=0,
    )


def record_client(transport: Any) -> Any:
    """The client a user with real keys gets: ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL`` read by
    the SDK, HTTP through ``transport``."""
    import anthropic

    return anthropic.Anthropic(http_client=http_module().Client(transport=transport), max_retries=0)


def new_replay() -> tuple[ReplayTransport, Any]:
    replay = ReplayTransport(http_module())
    return replay, client(replay.transport)


def messages(sdk: Any, headers: dict[str, str], stream: bool) -> Any:
    """``anthropic.types.Message``, or ``anthropic.Stream[RawMessageStreamEvent]``."""
    return sdk.messages.create(
        model="wireconf-replay", max_tokens=1, messages=[], stream=stream, extra_headers=headers
    )
