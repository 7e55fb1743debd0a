"""``wire``: agent + messages → the request body (``build_request``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from harness.adapter_contract import TOOL_REGISTRY_METHOD
from harness.corpus.data_paths import resolve_agent_paths
from harness.corpus.model import Agent, CaseBase, Message, RegistryEntry
from harness.corpus.yaml_source import to_plain
from harness.kinds.base import ADAPTER_ERRORS, Call, ContractError, HarnessContext, Outcome, raised

if TYPE_CHECKING:
    from harness.corpus.loader import LoadedCase

NOUN = "request body"


class CaseModel(CaseBase):
    """Agent + messages → the request body."""

    kind: Literal["wire"]
    agent: Agent
    messages: list[Message] = Field(default_factory=list)
    registry: list[RegistryEntry] | None = Field(
        default=None,
        description="Entries of the runtime's tool registry for custom tools (§7.1.3, kind *), handed "
        "to the adapter's set_tool_registry before the call",
    )


class NotARequestBody(ContractError):
    """``build_request`` returned something other than a mapping."""


def prepare(ctx: HarnessContext, case: LoadedCase) -> Call:
    agent, messages = case.raw["agent"], case.raw.get("messages", [])
    registry = case.raw.get("registry")
    base = case.path.parent

    def call(adapter: Any) -> Outcome:
        set_registry = getattr(adapter, TOOL_REGISTRY_METHOD, None)
        if registry and set_registry is None:
            raise ContractError(
                f"the case declares a tool registry but the adapter has no {TOOL_REGISTRY_METHOD}(entries) "
                "method to receive it (docs/adapters.md, custom tools)"
            )
        try:
            if set_registry is not None:
                set_registry(to_plain(registry or []))
            body = adapter.build_request(
                case.api, resolve_agent_paths(to_plain(agent), base), to_plain(messages)
            )
        except ADAPTER_ERRORS as exc:
            return raised(exc)
        if not isinstance(body, Mapping):
            raise NotARequestBody(
                f"build_request returned {type(body).__name__}, not a mapping (the request body)"
            )
        return Outcome(value=body)

    return call
