"""``--impl litellm``: LiteLLM's ``completion()`` (``pip install 'wireconf[litellm]'``), the OpenAI-format
call a LiteLLM user writes, turned by LiteLLM's own provider transformations into the OpenAI, Anthropic
and Gemini wire and back into a ``ModelResponse``.

- ``wire``: ``litellm.completion(model="<provider>/<id>", messages, tools, response_format, ...)`` with
  the corpus's inputs written as OpenAI-format input (``openai_inputs``); the body is the one LiteLLM
  sends through its HTTP transport (``http_answer``), answered with an error once captured.
- ``process`` / ``stream``: the same call, its transport answering with the recorded response (bytes
  as recorded, a stream's events as the SDK would read them), so LiteLLM's own parsing
  (``AnthropicConfig.transform_response``, Gemini's ``ModelResponseIterator`` ...) builds the
  ``ModelResponse`` / ``CustomStreamWrapper``; the result is read as its users read it:
  ``choices[0].message.content`` / ``tool_calls``, a stream's ``delta.content`` and, once it ends,
  the tool calls of ``litellm.stream_chunk_builder(chunks)``.

Errors: LiteLLM's exceptions are OpenAI's status errors (``litellm.BadRequestError`` is an
``openai.BadRequestError``) even when no request was sent; one raised in a ``wire`` run before any HTTP
exchange (not even a download) is declared ``invalid-input``; the others by what the transport saw
(``_declare_category``, ``wireconf.error_categories``).

LiteLLM's random ids come from a seeded generator (``litellm_ids``). It has no tool kinds other than
OpenAI functions, no bindings and no ``apiType`` dispatch (the provider is in the model name): those
concepts are not declared; a message's ``metadata`` (tool calls, tool call id) is OpenAI message
fields, so ``concept:message-metadata`` is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from wireconf.adapter_contract import concept
from wireconf.adapters import openai_inputs
from wireconf.adapters._optional import optional_module
from wireconf.adapters.http_answer import REFUSED, Answer, Sent, answering, recorded_answer
from wireconf.adapters.results import ToolCall, text_result
from wireconf.error_categories import categorised

PREFIX = {"openai.chat": "openai", "anthropic.messages": "anthropic", "gemini.generate_content": "gemini"}
"""The provider prefix a LiteLLM user puts before the model id, per api."""

DEFAULT_MODEL = {
    "openai.chat": "gpt-4o-mini",
    "anthropic.messages": "claude-sonnet-4-5",
    "gemini.generate_content": "gemini-2.5-flash",
}
"""The model of a ``process`` case whose agent names none."""

PLACEHOLDER_KEY = "wireconf-placeholder-key"
"""LiteLLM refuses to call a provider without a key; the transport never sends it anywhere."""

PROCESS_MESSAGES = [{"role": "user", "content": "Hi"}]
"""A ``process`` case has no messages; the call needs some."""

HINT = "pip install 'wireconf[litellm]'"


def _crashed(exc: BaseException) -> bool:
    """Whether LiteLLM's exception wraps a crash of its own code (a KeyError on a field the input lacks,
    an AttributeError) rather than a refusal it raised on purpose: LiteLLM wraps both in its classes."""
    seen: BaseException | None = exc.__cause__ or exc.__context__
    while seen is not None:
        if isinstance(seen, (LookupError, AttributeError)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _declare_category(exc: BaseException, answer: Answer, sent: Sent) -> None:
    """What one of LiteLLM's own exceptions (``litellm.exceptions``, all OpenAI status errors with a
    status of LiteLLM's making) means in the spec's terms (``wireconf.error_categories``), from what the
    transport saw: raised before any HTTP exchange, LiteLLM refused the input (its transformations raise
    BadRequestError, UnsupportedParamsError or, around a bare Exception, APIConnectionError), unless it
    wraps a crash of LiteLLM's own code (``_crashed``: a KeyError, none of the spec's errors); after the
    harness's capture answer (a download on the way), none of the spec's errors; APIConnectionError,
    LiteLLM's wrapper of whatever failed (a KeyError in its parsing), none either; any other, raised
    from the recorded response, is the error that response reports (its status below 400) or the
    provider's HTTP error with the recorded status."""
    if not type(exc).__module__.startswith("litellm"):
        return
    if answer is REFUSED:
        categorised(exc, None if sent.requests or _crashed(exc) else "invalid-input")
    elif any(cls.__name__ == "APIConnectionError" for cls in type(exc).__mro__):
        categorised(exc, None)
    elif answer.status < 400:
        categorised(exc, "provider-error")
    else:
        categorised(exc, "provider-http-error", answer.status)


class LiteLLMAdapter:
    name = "litellm"

    def __init__(self, module: Any = None) -> None:
        """``module``: a stand-in for ``litellm`` to judge instead (tests' fakes)."""
        if module is not None:
            self._litellm, self.version, self.unavailable = module, "test", None
            return
        module, self.version, self.unavailable = optional_module("litellm", "litellm", HINT)
        if module is not None:
            from wireconf.adapters.litellm_objects import import_litellm

            module = import_litellm()  # offline cost map
        self._litellm = module

    def capabilities(self) -> set[str]:
        if self._litellm is None:
            return set()
        kinds = ("wire", "process", "stream")
        return {f"{kind}:{api}" for kind in kinds for api in PREFIX} | {concept("message-metadata")}

    def _arguments(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
        model = (agent.get("model") or {}).get("id") or DEFAULT_MODEL[api]
        arguments: dict[str, Any] = {
            "model": f"{PREFIX[api]}/{model}",
            "messages": messages,
            "api_key": PLACEHOLDER_KEY,
            "num_retries": 0,
            **openai_inputs.options(agent),
        }
        tools = openai_inputs.function_tools(agent)
        if tools:
            arguments["tools"] = tools
        response_format = openai_inputs.response_format(agent)
        if response_format:
            arguments["response_format"] = response_format
        return arguments

    def _completion(self, answer: Answer, arguments: dict[str, Any]) -> Any:
        from wireconf.adapters.litellm_ids import seeded_ids

        with seeded_ids(), answering(lambda _request: answer) as sent:
            try:
                result = self._litellm.completion(**arguments)
                if isinstance(result, self._litellm.CustomStreamWrapper):  # sends when first read
                    list(result)
                return result, sent
            except Exception as exc:
                if answer is REFUSED and sent.calls:
                    return None, sent
                _declare_category(exc, answer, sent)
                raise

    def build_request(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> Any:
        arguments = self._arguments(api, agent, [openai_inputs.message(m) for m in messages])
        _, sent = self._completion(REFUSED, arguments)
        body = sent.body()
        if api == "gemini.generate_content" and isinstance(body, dict):
            body.pop("model", None)  # Gemini's model is in the URL
        return body

    def process(self, api: str, agent: dict[str, Any], response: object) -> Any:
        arguments = self._arguments(api, agent, PROCESS_MESSAGES)
        result, _ = self._completion(recorded_answer(response, stream=False), arguments)
        message = result.choices[0].message
        if message.tool_calls:
            return [ToolCall(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]
        return text_result(message.content, agent)

    def process_stream(self, api: str, agent: dict[str, Any], events: Any) -> Iterator[Any]:
        from wireconf.adapters.litellm_ids import seeded_ids

        arguments = {**self._arguments(api, agent, PROCESS_MESSAGES), "stream": True}
        answer = recorded_answer(events, stream=True)
        with seeded_ids(), answering(lambda _request: answer) as sent:
            chunks = []
            try:
                for chunk in self._litellm.completion(**arguments):
                    chunks.append(chunk)
                    delta = chunk.choices[0].delta if chunk.choices else None
                    text = getattr(delta, "content", None)
                    if text:
                        yield text
            except Exception as exc:
                _declare_category(exc, answer, sent)
                raise
            built = self._litellm.stream_chunk_builder(chunks) if chunks else None
        calls = built.choices[0].message.tool_calls if built is not None and built.choices else None
        for call in calls or []:
            yield ToolCall(call.id, call.function.name, call.function.arguments)
