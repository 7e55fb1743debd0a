"""``--impl nat``: NVIDIA NeMo Agent Toolkit's ATOF payload extractors (``nat.atof.extractors``, from
PyPI's ``nvidia-nat-atif``; ``pip install 'wireconf[nat]'``) under the ``extract`` contract.

The adapter does what a converter does at start-up (installs the Anthropic and Gemini built-ins) and
then only routes: a bare body is extracted with the api's built-in schema, an ATOF event through the
registry resolvers by its own ``data_schema`` (docs/seeds.md). Results are passed on untouched.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from wireconf.adapters._optional import optional_module
from wireconf.untyped import JSON

API_SCHEMAS: dict[str, dict[str, str]] = {
    "openai.chat": {"name": "openai/chat-completions", "version": "1"},
    "anthropic.messages": {"name": "anthropic/messages", "version": "1"},
    "gemini.generate_content": {"name": "gemini/generate-content", "version": "1"},
}


def is_event(value: JSON) -> bool:
    return isinstance(value, dict) and value.get("kind") in ("scope", "mark") and "data" in value


class NatAdapter:
    name = "nat"

    def __init__(self, module: ModuleType | None = None) -> None:
        if module is None:
            module, self.version, self.unavailable = optional_module(
                "nat.atof.extractors", "nvidia-nat-atif", "pip install 'wireconf[nat]'"
            )
        else:
            self.version, self.unavailable = getattr(module, "__version__", "test"), None
        self._nat = module
        if module is not None:
            module.register_anthropic_messages_v1()
            module.register_gemini_generate_content_v1()

    def capabilities(self) -> set[str]:
        return set() if self._nat is None else {f"extract:{api}" for api in API_SCHEMAS}

    def extract(self, api: str, request: JSON, response: JSON) -> dict[str, Any]:
        nat = self._nat
        assert nat is not None, "extract is declared only when nat is installed"
        event = response if is_event(response) else request if is_event(request) else None
        if event is None:
            schema: JSON = API_SCHEMAS[api]
            request_data, response_data = request, response
        else:
            schema = event.get("data_schema")
            if event["kind"] == "mark":
                mark = nat.resolve_mark_extractor(schema).extract_role_and_content(event["data"])
                return {"mark": None if mark is None else list(mark)}
            if event.get("category") == "tool":
                return {"tool_result": nat.resolve_tool_extractor(schema).extract_tool_result(event["data"])}
            request_data = request["data"] if is_event(request) else None
            response_data = response["data"] if is_event(response) else None
        extractor = nat.resolve_llm_extractor(schema)
        return {
            "input_messages": extractor.extract_input_messages(request_data),
            "output_text": extractor.extract_output_text(response_data),
            "tool_calls": extractor.extract_tool_calls(response_data),
        }
