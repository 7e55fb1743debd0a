"""Where each api lives, from the provider records: the emulator hard-codes no host and no path.

An api's record says how its SDK is called (``call``), on which client (the provider's
``replay_client``, with the provider's public base URL) and how its requests are recognised
(``route``: a pattern searched in the path). What the emulator needs besides is where the SDK puts the
api under its base URL: ``public_endpoint`` asks the SDK itself, once per api, by making the record's
call on a transport that keeps the request and answers nothing. The path before the route's match is
the api's prefix (``/v1``, Gemini's ``/v1beta``); a case's site serves the api at the same prefix under
its own origin, so that every form of base URL an SDK takes maps one to one (``Endpoint``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from wireconf.core.errors import WireconfError
from wireconf.providers import provider as provider_records
from wireconf.providers.registry import APIS, PROVIDER_OF

PLACEHOLDER_KEY = provider_records.PLACEHOLDER_KEY
"""The key a runtime is given: the SDKs refuse to start without one; the emulator never reads it, and
a recording proxy puts the real one in its place, so that no runtime ever holds a provider key."""


DOWNLOAD_PATH = "/.well-known/wireconf/download"
"""A site's own download endpoint, ``<origin>/.well-known/wireconf/download?url=<URL>``: the media
download of ``URL`` answered as through the proxy, for a runtime whose downloader takes a ``fetch``
function rather than proxy settings (the Vercel AI SDK's ``experimental_download``). No provider has
a path under ``/.well-known/wireconf/``."""


class EmulatorError(WireconfError):
    """The emulator cannot serve what it was asked to (an api no provider record declares, a site of a
    closed emulator)."""


@dataclass(frozen=True)
class PublicEndpoint:
    """Where the provider's SDK sends an api's call: the provider's origin and the path before the
    api's route (``https://api.openai.com`` and ``/v1``)."""

    origin: str
    prefix: str


class _Seen(Exception):
    """Raised by the observing transport once it has the request: nothing is answered."""


@cache
def public_endpoint(api: str, recorded_uri: str | None = None) -> PublicEndpoint:
    """The public endpoint of ``api``, as its provider's SDK addresses it (with the API version of
    ``recorded_uri``, where the provider's client takes it from the recording: Gemini's ``v1beta``)."""
    record, provider = APIS.get(api), PROVIDER_OF.get(api)
    if record is None or provider is None:
        raise EmulatorError(f"no provider record declares the api {api!r}: the emulator cannot serve it")
    http = provider.http_module()
    seen: list[Any] = []

    def keep(request: Any) -> Any:
        seen.append(request)
        raise _Seen

    client = provider.replay_client(http.MockTransport(keep), [recorded_uri] if recorded_uri else [])
    with contextlib.suppress(Exception):  # the SDK reports the refusal its own way (a connection error)
        record.call(client, {}, False)
    if not seen:
        raise EmulatorError(f"{api}'s SDK call sent no request, so the emulator cannot tell where it lives")
    url = urlsplit(str(seen[0].url))
    match = record.route.match(url.path)
    if match is None:
        raise EmulatorError(
            f"{api}'s SDK sent its call to {url.path}, which its record's route ({record.route.path}) does "
            "not recognise"
        )
    return PublicEndpoint(f"{url.scheme}://{url.netloc}", url.path[: match.start()])


@dataclass(frozen=True)
class Endpoint:
    """One api of one case's site, in the forms a runtime is pointed at it.

    ``origin`` stands where the provider's origin stands (Anthropic's SDK, google-genai's ``base_url``
    with ``api_version`` beside it); ``api_base_url`` goes on to the API version (``…/v1``: OpenAI's
    SDK, the Vercel AI SDK's providers, most others). ``key`` is a placeholder: give it to the SDK.
    ``proxy`` is the forward proxy (its credentials name the site) through which the media downloads
    the case's input names are answered, over ``https`` with a certificate of the authority in
    ``ca_file`` (``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE``, ``NODE_EXTRA_CA_CERTS``; ``None`` when the
    case names no media over ``https``: no tunnel is ever opened for it); ``download`` the same answers
    for a downloader given a ``fetch`` (``<download>?url=<URL>``)."""

    api: str
    origin: str
    api_base_url: str
    api_version: str
    key: str
    proxy: str
    ca_file: str | None
    download: str
