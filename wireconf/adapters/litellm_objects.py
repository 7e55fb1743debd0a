"""LiteLLM's own objects, built by LiteLLM from what the harness hands an adapter: what a system that
calls providers through LiteLLM (a LiteLLM proxy, a converter of LiteLLM responses) receives in
production. Nothing here builds a LiteLLM object by hand; each function does what LiteLLM does after
its HTTP call returns:

- ``openai.chat``: LiteLLM's OpenAI provider calls the OpenAI SDK and wraps the SDK's ``Stream`` in
  ``CustomStreamWrapper`` (provider ``openai``); a ``ChatCompletion`` becomes a ``ModelResponse``
  through ``convert_to_model_response_object(response.model_dump(), ModelResponse())``
  (``litellm.llms.openai.openai:OpenAIChatCompletion.completion``).
- ``anthropic.messages``: LiteLLM reads the HTTP response's lines with its own Anthropic parser
  (``litellm.llms.anthropic.chat.handler:ModelResponseIterator``, over ``response.iter_lines()``, the
  recorded bytes the SDK's stream holds), wrapped in ``CustomStreamWrapper`` (provider ``anthropic``).
- ``gemini.generate_content``: LiteLLM's Gemini parser (``litellm.llms.vertex_ai.gemini.
  vertex_and_google_ai_studio_gemini:ModelResponseIterator``) over the response's lines, wrapped in
  ``CustomStreamWrapper`` (provider ``gemini``). The Gemini SDK's stream does not expose its HTTP
  response, so the recorded bytes come from the harness's note of what it parsed the stream from
  (``wireconf.sdk.origins``), read through the same counted probe the SDK would read; only a stream the
  harness did not parse itself (one rebuilt in a process served over ``exec:``) is re-serialised from
  the SDK's chunks into ``data:`` lines.

The model LiteLLM is called with comes from the request; a recorded stream names the model that
answered (OpenAI's ``model``, Anthropic's ``message_start.message.model``, Gemini's ``modelVersion``),
which is the closest the recording holds. A stream that names none (an inline case's events) gets
``UNNAMED_MODEL``.

``stream_options``: LiteLLM asks OpenAI for a usage chunk by default; a recorded stream carries one
only if its request asked, so ``include_usage`` is set exactly when the stream has a usage chunk (a
stream without one came from a request that did not ask, and LiteLLM would otherwise invent the usage
by counting tokens). Anthropic and Gemini always report usage, so there it is the client's choice,
and the default (not asked) is kept.
"""

from __future__ import annotations

import datetime
import itertools
import json
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

from wireconf.core.errors import ContractError

LITELLM_OFFLINE = "LITELLM_LOCAL_MODEL_COST_MAP"
"""Set before litellm is imported, so that it reads its bundled model cost map instead of fetching it."""
LITELLM_OFFLINE_MODE = "LITELLM_OFFLINE_MODE"
"""LiteLLM's one switch (from about 1.109) for what it fetches on its own (its cost map, Anthropic's beta
headers config, tokenizers): its bundled copies, as in a network-less deployment. Without it, an
Anthropic case's first call fetches the beta headers config from GitHub, a network attempt (an error)."""

PROVIDERS = {"openai.chat": "openai", "anthropic.messages": "anthropic", "gemini.generate_content": "gemini"}

UNNAMED_MODEL = {
    "openai.chat": "gpt-4o",
    "anthropic.messages": "claude-sonnet-4-5",
    "gemini.generate_content": "gemini-2.5-flash",
}
"""The model for a stream that names none (inline events): one LiteLLM knows for each provider."""


def import_litellm() -> Any:
    """``litellm``, imported offline (its cost map and configs from the package, never from the network).

    A media URL of the input is fetched as LiteLLM fetches it, answered from the case's fixtures
    (``http_answer.observing``), but without ``litellm.user_url_validation`` (from about 1.109, on by
    default): that check resolves the URL's host itself to refuse private addresses, and the harness
    resolves no host (it answers the URLs the input names, whatever their address). For the public
    URLs the corpus names the check passes in production, so what LiteLLM sends the provider is the
    same; a case with a private address would differ, and none has one."""
    os.environ.setdefault(LITELLM_OFFLINE, "True")
    os.environ.setdefault(LITELLM_OFFLINE_MODE, "true")
    import litellm

    if hasattr(litellm, "user_url_validation"):
        litellm.user_url_validation = False
    return litellm


def _logging(model: str, provider: str) -> Any:
    """The per-call logging object LiteLLM's ``completion()`` creates and hands every stream wrapper."""
    from litellm.litellm_core_utils.litellm_logging import Logging

    log = Logging(
        model=model,
        messages=[],
        stream=True,
        call_type="completion",
        start_time=datetime.datetime.now(),
        litellm_call_id=str(uuid.uuid4()),
        function_id="wireconf",
    )
    log.update_environment_variables(
        model=model, user=None, optional_params={}, litellm_params={}, custom_llm_provider=provider
    )
    return log


def model_response(completion: Any) -> Any:
    """A ``ChatCompletion`` (the OpenAI SDK's) as the ``ModelResponse`` LiteLLM returns for it."""
    import_litellm()
    from litellm.litellm_core_utils.llm_response_utils.convert_dict_to_response import (
        convert_to_model_response_object,
    )
    from litellm.types.utils import ModelResponse

    return convert_to_model_response_object(
        response_object=completion.model_dump(), model_response_object=ModelResponse(), _response_headers={}
    )


def _data_lines(events: Iterable[Any]) -> Iterator[str]:
    """The ``data:`` lines of an SSE stream whose events are SDK objects (their provider JSON)."""
    from wireconf.exec_protocol.messages import to_json

    for event in events:
        yield "data: " + json.dumps(to_json(event), separators=(",", ":"))
        yield ""


def _recorded_lines(sdk_stream: Any) -> Iterator[str] | None:
    """The lines of the recorded response ``sdk_stream`` was parsed from, read through its probe (so
    each event counts as read, as when the SDK reads it) and split by httpx as ``response.iter_lines()``
    splits them for LiteLLM; ``None`` when the harness did not parse this stream itself."""
    import httpx

    from wireconf.sdk.origins import origin_of

    origin = origin_of(sdk_stream)
    if origin is None or origin.probe is None:
        return None
    headers = [(name, value) for name, values in origin.recorded.headers.items() for value in values]
    return httpx.Response(origin.recorded.status, headers=headers, content=origin.probe.chunks()).iter_lines()


def _anthropic_model(event: dict[str, Any]) -> str | None:
    return (event.get("message") or {}).get("model") if event.get("type") == "message_start" else None


def _gemini_model(event: dict[str, Any]) -> str | None:
    return event.get("modelVersion")


def _model_of(
    api: str, lines: Iterator[str], read: Callable[[dict[str, Any]], Any]
) -> tuple[str, Iterator[str]]:
    """The model the stream's first event names (``UNNAMED_MODEL[api]`` if none), and the stream's lines
    all still to come: only the lines up to that first event are read ahead."""
    ahead: list[str] = []
    model = None
    for line in lines:
        ahead.append(line)
        if line.startswith("data:"):
            try:
                event = json.loads(line[len("data:") :])
            except ValueError:
                break
            model = read(event) if isinstance(event, dict) else None
            break
    return (model if isinstance(model, str) and model else UNNAMED_MODEL[api]), itertools.chain(ahead, lines)


async def _async(items: Iterable[Any]) -> AsyncIterator[Any]:
    """What ``acompletion`` reads from: the SDK's ``AsyncStream``, or ``response.aiter_lines()``."""
    for item in items:
        yield item


def stream_wrapper(api: str, sdk_stream: Any) -> Any:
    """The official SDK's stream for ``api`` as the ``CustomStreamWrapper`` that ``litellm.acompletion(...,
    stream=True)`` hands its caller (both systems judged here consume it with ``async for``)."""
    litellm = import_litellm()
    provider = PROVIDERS[api]
    stream_options: dict[str, bool] | None = None
    if api == "openai.chat":
        chunks = list(sdk_stream)  # read ahead only to learn whether the request asked for usage
        if any(getattr(chunk, "usage", None) is not None for chunk in chunks):
            stream_options = {"include_usage": True}
        model = next((c.model for c in chunks if getattr(c, "model", None)), UNNAMED_MODEL[api])
        log = _logging(model, provider)
        completion_stream: Any = _async(chunks)
    elif api == "anthropic.messages":
        from litellm.llms.anthropic.chat.handler import ModelResponseIterator as AnthropicIterator

        model, lines = _model_of(api, sdk_stream.response.iter_lines(), _anthropic_model)
        log = _logging(model, provider)
        completion_stream = AnthropicIterator(streaming_response=_async(lines), sync_stream=False)
    elif api == "gemini.generate_content":
        from litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini import (
            ModelResponseIterator as GeminiIterator,
        )

        recorded = _recorded_lines(sdk_stream)
        lines = recorded if recorded is not None else _data_lines(sdk_stream)
        model, lines = _model_of(api, lines, _gemini_model)
        log = _logging(model, provider)
        completion_stream = GeminiIterator(
            streaming_response=_async(lines), sync_stream=False, logging_obj=log
        )
    else:
        raise ContractError(f"LiteLLM has no stream conversion for {api} here")
    return litellm.CustomStreamWrapper(
        completion_stream=completion_stream,
        model=model,
        logging_obj=log,
        custom_llm_provider=provider,
        stream_options=stream_options,
    )
