"""The records that describe a provider and each of its APIs: everything the harness knows about them.

A provider module (``wireconf/providers/openai.py``, …) holds one ``Provider`` with its ``Api`` records
and the functions they name; every table the harness uses (the SDK calls, the endpoints the importer
recognises, the key variables scanned before a write, the exec protocol's schema, the contract's
``APIS``) is derived from these records by ``wireconf.providers.registry``. A provider's name is its
``cassettes/<name>/`` folder, the ``provider`` of its cassettes' metadata and the provider an agent
names in ``model.provider``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from wireconf.core.untyped import JSON, SDKObject
from wireconf.providers.equivalence import Equivalence, ProviderError

PLACEHOLDER_KEY = "wireconf-emulator-placeholder"
"""The key a runtime is given where it could otherwise read a real one: the SDKs refuse to start without
one; a replay never sends it anywhere, and a recording's forwarding process (the one that holds the
keys) drops it and adds the real credentials (``Provider.authorised``), so that no runtime ever holds a
provider key."""

SdkCall = Callable[[Any, dict[str, str], bool], Any]
"""``call(client, headers, stream)``: the SDK method a runtime calls for the api, on a replay client;
``headers`` must be sent with the request (they name the prepared response); returns the SDK's object
(``stream=True``: its stream object)."""

Framing = Callable[[list[Any]], bytes]
"""Inline stream events (JSON values) → the bytes of the provider's event stream."""


@dataclass(frozen=True)
class Route:
    """How a recorded request is recognised as one api's: the path on one of its provider's hosts.

    ``path`` is a regular expression searched in the URL path; a named group ``stream`` that matches
    marks the streaming variant (Gemini's ``:streamGenerateContent``). A response of type
    ``text/event-stream``, an ``alt=sse`` query and, when ``stream_field`` is set, ``"stream": true``
    in the JSON request body mark it too.
    """

    path: str
    stream_field: bool = True

    def match(self, path: str) -> re.Match[str] | None:
        return re.search(self.path, path)


@dataclass(frozen=True)
class Api:
    """One provider API: how its SDK is called on recorded bytes and how its requests are recognised."""

    name: str
    """``<provider>.<operation>`` as cases, capabilities and reports name it (``openai.chat``)."""
    call: SdkCall
    route: Route
    sse: Framing | None = None
    """How inline stream events are framed; ``None``: the api has no streaming call."""
    request_body: Callable[[Any], Any] | None = None
    """How an e2e case reads the JSON body sent through the SDK (``None``: as sent)."""
    real_traffic: str | None = None
    """Its name in the ``api`` field of shared real-traffic recordings (``<name>_stream`` for streams)."""
    api_types: tuple[str | None, ...] | None = None
    """The ``agent.model.apiType`` values (``None``: absent) that merely name this api; a case with
    another one tests the dispatch itself and needs ``concept:api-type`` (``wireconf.kinds.concepts``).
    ``None``: any value names it."""
    equivalences: tuple[Equivalence, ...] = ()
    """The differences the provider treats as the same request, each with its source
    (``wireconf.providers.equivalence``); under ``--profile interop`` they are representation."""
    equivalence_gaps: Mapping[str, str] = field(default_factory=dict)
    """Classes of equivalence (``Equivalence.kind``) other apis list that this one does not, each with
    why (its provider documents no such default, the field is required, …):
    ``tests/unit/test_equivalences.py`` requires one for every class whose field this api's contract
    declares too."""
    sdk_models: tuple[str, ...] = ()
    """The official SDK's modules whose pydantic models this api's responses and stream events are
    made of. The SDKs defer building a model's validation schema to its first use (pydantic's
    ``defer_build``: a few milliseconds per model, up to half a second for an api's first stream);
    a process that parses this api's responses without having seen them before (the Python exec
    helper) completes these models while it warms up (``wireconf.sdk.replay.complete_models``)."""
    request_type: Callable[[Any], str] | None = None
    """A request body → which of the request schemas its provider's pinned contract lists for this api
    it is checked against (``wireconf.providers.contract``), where the contract has several (Anthropic's
    streaming and non-streaming requests); ``None``: its only one. Every request a case expects or
    captures is checked against the contract of the api's provider, when it has one."""

    @property
    def streams(self) -> bool:
        return self.sse is not None


@dataclass(frozen=True)
class KeyShape:
    """A pattern that a provider's credentials match, found by the secret scan before any write."""

    what: str
    pattern: str


@dataclass(frozen=True)
class Credential:
    """How a provider's API reference says one credential is sent: the request header ``header`` with
    ``prefix`` then the value of the first of ``variables`` set (a recording proxy adds it to a
    runtime's request in place of the placeholder the runtime holds: ``wireconf.emulator.recording``)."""

    variables: tuple[str, ...]
    header: str
    prefix: str = ""


@dataclass(frozen=True)
class Provider:
    """A provider: its APIs, its official SDK's clients, its keys and what its traffic looks like."""

    name: str
    title: str
    """How people call it in prose (``OpenAI``); error messages list the providers by it."""
    hosts: tuple[str, ...]
    """The hosts its public endpoints live on: a recording elsewhere is not this provider's."""
    apis: tuple[Api, ...]
    key_variables: tuple[str, ...]
    """The environment variables a user's key is read from when recording, the first one set wins."""
    base_url_variable: str
    """The SDK's own base-URL variable (shown in docs; the SDK reads it in record mode)."""
    distributions: tuple[str, ...]
    """The distributions whose versions a recorded cassette names (the SDK and its HTTP library)."""
    http_module: Callable[[], ModuleType]
    """The HTTP library the SDK is built on (``httpx`` or ``httpx2``), for the replay transports."""
    replay_client: Callable[[Any, list[str]], Any]
    """``(transport, recorded request URIs)`` → an SDK client with a replay key and the public base URL."""
    record_client: Callable[[Any], Any]
    """``transport`` → the SDK client a runtime is handed in record mode: the base URL read by the SDK
    as a user's, the key ``PLACEHOLDER_KEY`` (``transport`` adds the real credentials as it forwards)."""
    secret_variables: tuple[str, ...] = ()
    """Other credentials in the environment (admin keys, organisation ids) never to be written."""
    key_shapes: tuple[KeyShape, ...] = ()
    identifier_prefixes: tuple[str, ...] = ()
    """Prefixes of account identifiers (``org-``) masked wherever they appear in a recorded JSON body."""
    kept_headers: frozenset[str] = frozenset()
    """Request headers a cassette keeps because they change how the provider reads the request."""
    sdk_json: Callable[[Any], Any] | None = None
    """An SDK object → the provider's own JSON (``None``: pydantic's ``model_dump`` by alias)."""
    tracing_scopes: frozenset[str] = field(default_factory=frozenset)
    """Instrumentation scopes of the SDK's own spans (never the runtime's: shown, not judged)."""
    credentials: tuple[Credential, ...] = ()
    """How each credential is sent, from the provider's API reference (the key first)."""
    auth_headers: frozenset[str] = frozenset()
    """Request headers (lower case) that carry a credential in any form the provider accepts: a
    recording proxy drops them from what a runtime sent (its placeholder) before it adds the real ones."""
    auth_query: frozenset[str] = frozenset()
    """Query parameters that carry a key (Gemini's ``key=``), dropped likewise."""
    version_path: str = ""
    """What the SDK client's ``base_url`` lacks up to the API version (``/v1`` where the SDK adds it to
    each call's path): the exec bridge hands a runtime ``api_base_url``, the form most other SDKs take."""

    def key(self, environ: Mapping[str, str]) -> str | None:
        """The key a recording uses: the first key variable set, or ``None``."""
        for name in self.key_variables:
            if environ.get(name, "").strip():
                return environ[name]
        return None

    def authorised(
        self, url: str, headers: list[tuple[str, str]], environ: Mapping[str, str]
    ) -> tuple[str, list[tuple[str, str]]]:
        """``url`` and ``headers`` of a runtime's request (with the placeholder it holds) with every
        credential it carried dropped and the credentials of ``environ`` added as the provider's API
        reference says they are sent: what a recording proxy forwards."""
        dropped = self.auth_headers | {c.header.lower() for c in self.credentials}
        kept = [(k, v) for k, v in headers if k.lower() not in dropped]
        for credential in self.credentials:
            value = next((environ[n] for n in credential.variables if environ.get(n, "").strip()), None)
            if value is not None:
                kept.append((credential.header, credential.prefix + value))
        parts = urlsplit(url)
        if self.auth_query and parts.query:
            query = [
                (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in self.auth_query
            ]
            url = urlunsplit(parts._replace(query=urlencode(query)))
        return url, kept


# --- helpers the provider modules share ---------------------------------------------------------------


def http_module_of(sdk_client_class: type) -> ModuleType:
    """The HTTP library (``httpx`` or ``httpx2``) a SDK's default client is built on."""
    for base in sdk_client_class.__mro__[1:]:
        top = base.__module__.split(".")[0]
        if top.startswith("httpx"):
            return sys.modules[top]
    raise ProviderError(f"cannot tell which HTTP library {sdk_client_class!r} uses")


TOKEN_START = r"(?<![A-Za-z0-9_-])"
"""Starts a key shape that must not match inside a longer token."""


def event_json(event: JSON) -> str:
    """One stream event as the compact JSON the providers send."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def api_names_json(value: SDKObject) -> JSON:
    """An object of an SDK that serialises its models under their API field names (openai's and
    anthropic's ``to_dict``), as the SDK parsed it. An object of a type the SDK does not know (an event
    or delta the provider added later) is written as it is, without pydantic's warning that it fits no
    member of its union: that warning is not the harness's to raise (under ``-W error`` it would end the
    writing, and with it the case)."""
    return value.to_dict(mode="json", warnings=False)


def typed_sse(events: list[JSON]) -> bytes:
    """Typed event framing (the Responses API, Images, Anthropic): ``event: <type>`` then ``data:``."""
    text = "".join(f"event: {e.get('type', 'message')}\ndata: {event_json(e)}\n\n" for e in events)
    return text.encode("utf-8")


def stream_requested(route: Route, uri: str, match: re.Match[str], content_type: str, body: JSON) -> bool:
    """Whether a recorded request that ``route`` matched was a streaming call (see ``Route``)."""
    if "text/event-stream" in content_type or "alt=sse" in urlsplit(uri).query:
        return True
    if "stream" in match.re.groupindex and match.group("stream"):
        return True
    if not route.stream_field:
        return False
    try:
        return json.loads(body or b"{}").get("stream") is True
    except (ValueError, AttributeError):
        return False
