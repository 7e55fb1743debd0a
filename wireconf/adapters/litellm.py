"""``--impl litellm``: LiteLLM's ``completion()`` (``pip install 'wireconf[litellm]'``), the OpenAI-format
call a LiteLLM user writes, turned by LiteLLM's own provider transformations into the OpenAI, Anthropic
and Gemini wire and back into a ``ModelResponse``.

- ``wire``: ``litellm.completion(model="<provider>/<id>", messages, tools, response_format, ...)`` with
  the corpus's inputs written as OpenAI-format input (``openai_inputs``), ``api_base`` the case's
  endpoint (a site of the harness's emulator, which answers a minimal valid response): the request
  LiteLLM sends there is judged (a Gemini body as LiteLLM spells it: the harness reads every Gemini
  body under its fields' JSON names).
- ``process`` / ``stream``: the same call at the case's endpoint serving the recorded bytes, over
  LiteLLM's real HTTP path; LiteLLM's own parsing
  (``AnthropicConfig.transform_response``, Gemini's ``ModelResponseIterator`` ...) builds the
  ``ModelResponse`` / ``CustomStreamWrapper``; the result is read as its users read it:
  ``choices[0].message.content`` / ``tool_calls``, a stream's ``delta.content`` and, once it ends,
  the tool calls of ``litellm.stream_chunk_builder(chunks)``. The response LiteLLM leaves open at a
  stream's terminal event is closed when the stream is done or raised (``http_answer.observing``).
- ``e2e``: the ``wire`` call (``stream=True`` when the agent's ``additionalProperties`` ask for a
  stream, passed as they are), as in ``process``: the case's
  recorded exchange answers every call there, in order (a media URL LiteLLM downloads to inline it is
  answered from the case's fixtures); the result is read as in ``process`` / ``stream``.

Errors: LiteLLM's exceptions are OpenAI's status errors (``litellm.BadRequestError`` is an
``openai.BadRequestError``) even when no request was sent; one raised before any HTTP exchange (not even
a download) is declared ``invalid-input``; the others by what the transport saw (``_declare_category``,
``wireconf.core.error_categories``).

LiteLLM's random ids come from a seeded generator (``litellm_ids``). It has no tool kinds other than
OpenAI functions, no bindings and no ``apiType`` dispatch (the provider is in the model name): those
concepts are not declared; a message's ``metadata`` (tool calls, tool call id) is OpenAI message
fields, so ``concept:message-metadata`` is.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

from wireconf.adapter_contract import Endpoint, NoResult, capability, concept, served_kinds
from wireconf.adapters import openai_inputs
from wireconf.adapters._optional import optional_module
from wireconf.adapters.http_answer import Sent, observing
from wireconf.adapters.own_clients import DEFAULT_MODEL, PLACEHOLDER_KEY
from wireconf.adapters.results import ToolCall, text_result
from wireconf.cassettes.downloads import Downloads
from wireconf.core.error_categories import categorised

PREFIX = {
    "openai.chat": "openai",
    "openai.responses": "openai/responses",
    "anthropic.messages": "anthropic",
    "gemini.generate_content": "gemini",
}
"""The provider prefix a LiteLLM user puts before the model id, per api: ``openai/responses/<id>`` is
LiteLLM's Responses API bridge (``litellm.completion_extras.responses_api_bridge``), which sends the
``completion`` call through ``litellm.responses`` with LiteLLM's own transformation of the messages,
tools and ``response_format`` into Responses input, and builds the ``ModelResponse`` from the Responses
result."""

PROCESS_MESSAGES = [{"role": "user", "content": "Hi"}]
"""A ``process`` case has no messages; the call needs some (in the OpenAI form LiteLLM takes)."""

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


def _declare_category(exc: BaseException, sent: Sent) -> None:
    """What one of LiteLLM's own exceptions (``litellm.exceptions``, all OpenAI status errors with a
    status of LiteLLM's making) means in the spec's terms (``wireconf.core.error_categories``), from what the
    transport saw: raised before any HTTP exchange, LiteLLM refused the input (its transformations raise
    BadRequestError, UnsupportedParamsError or, around a bare Exception, APIConnectionError), unless it
    wraps a crash of LiteLLM's own code (``_crashed``: a KeyError, none of the spec's errors);
    APIConnectionError, LiteLLM's wrapper of whatever failed (a KeyError in its parsing), none either;
    any other, raised from the recorded response, is the error that response reports (its status below
    400) or the provider's HTTP error with the status the endpoint answered (``sent.statuses``). Raised
    when only downloads were answered (no status), it is read from the exception's own status."""
    if not type(exc).__module__.startswith("litellm"):
        return
    status = sent.statuses[-1] if sent.statuses else None
    if not sent.requests:
        categorised(exc, None if _crashed(exc) else "invalid-input")
    elif any(cls.__name__ == "APIConnectionError" for cls in type(exc).__mro__):
        categorised(exc, None)
    elif status is None:
        return  # no call answered: the exception's own status says which HTTP error it is
    elif status < 400:
        categorised(exc, "provider-error")
    else:
        categorised(exc, "provider-http-error", status)


class LiteLLMAdapter:
    name = "litellm"
    endpoint_seated = True
    """One base URL for the process's life (``wireconf.kinds.sites``): LiteLLM caches its OpenAI clients
    per ``api_base``, as it does with one provider."""
    adapter_modules = (
        "wireconf.adapters.litellm",
        "wireconf.adapters.litellm_ids",
        "wireconf.adapters.openai_inputs",
        "wireconf.adapters.http_answer",
        "wireconf.adapters.results",
    )
    """This adapter's own code (``wireconf.core.raise_site``): an exception it raises is its bug, no
    verdict."""
    runtime_packages: tuple[str, ...] = ("litellm",)
    """LiteLLM; the SDKs, httpx and pydantic under it raise for whoever called them."""

    def __init__(self, module: Any = None) -> None:
        """``module``: a stand-in for ``litellm`` to judge instead (tests' fakes)."""
        self._openai: tuple[str, Any] | None = None
        if module is not None:
            self._litellm, self.version, self.unavailable = module, "test", None
            # the stand-in's code is the runtime's: the module's name, or that of its completion's module
            stand_in = getattr(module, "__name__", None) or getattr(module.completion, "__module__", "")
            self.runtime_packages += (str(stand_in),)
            return
        module, self.version, self.unavailable = optional_module("litellm", "litellm", HINT)
        if module is not None:
            from wireconf.adapters.litellm_objects import import_litellm

            module = import_litellm()  # offline cost map
        self._litellm = module

    def _pointed(self, api: str, endpoint: Endpoint) -> dict[str, Any]:
        """``completion``'s arguments that point it at the case's ``endpoint``, as a LiteLLM user does:
        ``api_base``, the api's base URL (``…/v1``; Gemini's ``…/v1beta``, under which LiteLLM adds
        ``/models/<id>:<method>``) or Anthropic's origin (LiteLLM adds ``/v1/messages``). For Chat
        Completions an OpenAI client at the endpoint instead (``client``, which LiteLLM's OpenAI
        provider takes in place of the one it builds), its ``api_base`` left the default: LiteLLM asks
        OpenAI for a stream's usage (``stream_options``) only when its ``api_base`` is
        ``api.openai.com`` (``OpenAIChatCompletion.get_stream_options``), so the request judged is the
        one it sends OpenAI. One client per base URL (the seat's), as LiteLLM caches its own."""
        if api != "openai.chat":
            return {"api_base": endpoint.origin if api == "anthropic.messages" else endpoint.api_base_url}
        url = endpoint.api_base_url
        if self._openai is None or self._openai[0] != url:
            openai = importlib.import_module("openai")
            self._openai = (url, openai.OpenAI(api_key=PLACEHOLDER_KEY, base_url=url, max_retries=0))
        return {"client": self._openai[1]}

    def capabilities(self) -> set[str]:
        if self._litellm is None:
            return set()
        caps = {capability(kind, api) for kind in served_kinds(self) for api in PREFIX}
        return caps | {concept("message-metadata")}

    def _arguments(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
        return completion_arguments(api, agent, messages)

    def _completion(self, arguments: dict[str, Any], downloads: Downloads | None = None) -> Any:
        """``completion(**arguments)`` over the real transport, to the ``api_base`` (or ``client``) of
        ``arguments``; a media URL of the input that LiteLLM downloads to inline it is answered from
        ``downloads`` (``wireconf.cassettes.downloads``)."""
        from wireconf.adapters.litellm_ids import seeded_ids

        with seeded_ids(), observing(downloads) as sent:
            try:
                result = self._litellm.completion(**arguments)
                if isinstance(result, self._litellm.CustomStreamWrapper):  # sends when first read
                    list(result)
                return result
            except Exception as exc:
                _declare_category(exc, sent)
                raise

    def build_request(
        self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], *, endpoint: Endpoint
    ) -> None:
        """The wire call at the case's endpoint: the request LiteLLM sends there is judged (what it
        raises once that is sent is not: the site's answer is not the case's)."""
        arguments = self._arguments(
            api, agent, [openai_inputs.message(m) for m in openai_inputs.calls_answered(messages)]
        )
        self._completion({**arguments, **self._pointed(api, endpoint)}, Downloads(messages))

    def _result(self, result: Any, agent: dict[str, Any]) -> Any:
        """A ``ModelResponse`` as its users read it: the tool calls, else the message's text; without a
        choice to read, the runtime's outcome ``NoResult``."""
        if not result.choices:
            raise NoResult(f"LiteLLM returned a {type(result).__name__} without choices to read")
        message = result.choices[0].message
        if message.tool_calls:
            return [ToolCall(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]
        return text_result(message.content, agent)

    def process(self, api: str, agent: dict[str, Any], response: object, *, endpoint: Endpoint) -> Any:
        arguments = {**self._arguments(api, agent, PROCESS_MESSAGES), **self._pointed(api, endpoint)}
        return self._result(self._completion(arguments), agent)

    def _stream(self, arguments: dict[str, Any], downloads: Downloads | None = None) -> Iterator[Any]:
        """``completion(stream=True)``'s chunks: each ``delta.content`` as it comes, and once the stream
        ends the tool calls of ``litellm.stream_chunk_builder(chunks)``."""
        from wireconf.adapters.litellm_ids import seeded_ids

        with seeded_ids(), observing(downloads) as sent:
            chunks = []
            try:
                for chunk in self._litellm.completion(**{**arguments, "stream": True}):
                    chunks.append(chunk)
                    delta = chunk.choices[0].delta if chunk.choices else None
                    text = getattr(delta, "content", None)
                    if text:
                        yield text
            except Exception as exc:
                _declare_category(exc, sent)
                raise
            built = self._litellm.stream_chunk_builder(chunks) if chunks else None
        calls = built.choices[0].message.tool_calls if built is not None and built.choices else None
        for call in calls or []:
            yield ToolCall(call.id, call.function.name, call.function.arguments)

    def process_stream(
        self, api: str, agent: dict[str, Any], events: Any, *, endpoint: Endpoint
    ) -> Iterator[Any]:
        arguments = {**self._arguments(api, agent, PROCESS_MESSAGES), **self._pointed(api, endpoint)}
        return self._stream(arguments)

    def execute(
        self,
        api: str,
        agent: dict[str, Any],
        messages: list[dict[str, Any]],
        *,
        endpoint: Endpoint,
    ) -> Any:
        """``completion(...)`` as in ``wire``, with ``stream=True`` when the agent asks for a stream (its
        ``additionalProperties``, passed as they are) and ``api_base`` the case's ``endpoint``: the
        case's recorded exchange answers each request LiteLLM sends there."""
        arguments = self._arguments(
            api, agent, [openai_inputs.message(m) for m in openai_inputs.calls_answered(messages)]
        )
        arguments.update(self._pointed(api, endpoint))
        downloads = Downloads(messages)
        if arguments.get("stream") is True:
            return self._stream(arguments, downloads)
        return self._result(self._completion(arguments, downloads), agent)


def completion_arguments(api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """``completion``'s keyword arguments for ``agent`` and ``messages`` (OpenAI-format): what the adapter
    and a reproduction (``wireconf.repro.templates``) call."""
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
