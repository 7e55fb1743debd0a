"""The reference implementation behind the adapter contract (entry point ``reference``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from reference_impl import __version__
from reference_impl.openai_chat.processing import process_chat
from reference_impl.openai_chat.request import build_chat_args
from reference_impl.openai_chat.streaming import process_stream

WIRE: dict[str, Callable[[dict[str, Any], list[dict[str, Any]]], dict[str, Any]]] = {
    "openai.chat": build_chat_args,
}
PROCESS: dict[str, Callable[[dict[str, Any], Any], Any]] = {"openai.chat": process_chat}
STREAM: dict[str, Callable[[dict[str, Any], Iterable[Any]], Iterable[Any]]] = {"openai.chat": process_stream}


class ReferenceAdapter:
    name = "reference"
    version = __version__

    def capabilities(self) -> set[str]:
        return (
            {f"wire:{api}" for api in WIRE}
            | {f"process:{api}" for api in PROCESS}
            | {f"stream:{api}" for api in STREAM}
        )

    def build_request(
        self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]]
    ) -> dict[str, Any]:
        return WIRE[api](agent, messages)

    def process(self, api: str, agent: dict[str, Any], response: Any) -> Any:
        return PROCESS[api](agent, response)

    def process_stream(self, api: str, agent: dict[str, Any], events: Iterable[Any]) -> Iterable[Any]:
        return STREAM[api](agent, events)
