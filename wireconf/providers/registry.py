"""Every provider and provider API the harness knows: the built-in records and installed extensions.

The built-in providers are the modules listed in ``BUILTIN``, each holding one ``PROVIDER``. A package
outside this repository adds a provider by exposing a ``Provider`` record under the entry-point group
``wireconf.providers`` (docs/adding-an-api.md); it is then known to the case model, the capabilities,
the SDK replay, the importer, the secret scan and the exec protocol alike, with no change here.

The tables below are derived once, when this module is first imported.
"""

from __future__ import annotations

import importlib

from wireconf.core.errors import ExtensionError
from wireconf.core.extensions import HINT, installed
from wireconf.providers.equivalence import Equivalence
from wireconf.providers.provider import Api, KeyShape, Provider

BUILTIN = ("wireconf.providers.openai", "wireconf.providers.anthropic", "wireconf.providers.google")
"""The built-in provider modules, in the order their apis are listed."""

ENTRY_POINT_GROUP = "wireconf.providers"


def _load() -> dict[str, Provider]:
    providers: dict[str, Provider] = {}
    apis: set[str] = set()
    builtin = [importlib.import_module(name).PROVIDER for name in BUILTIN]
    for record in [*builtin, *installed(ENTRY_POINT_GROUP, Provider)]:
        if record.name in providers:
            raise ExtensionError(f"two providers are named {record.name!r}", hint=HINT)
        for api in record.apis:
            if api.name in apis:
                raise ExtensionError(f"two provider records declare the api {api.name!r}", hint=HINT)
            apis.add(api.name)
        providers[record.name] = record
    return providers


PROVIDERS: dict[str, Provider] = _load()
"""Provider name → record."""

APIS: dict[str, Api] = {api.name: api for provider in PROVIDERS.values() for api in provider.apis}
"""Api name → record, in the providers' order."""

API_NAMES: tuple[str, ...] = tuple(APIS)

PROVIDER_OF: dict[str, Provider] = {
    api.name: provider for provider in PROVIDERS.values() for api in provider.apis
}
"""Api name → the record of its provider."""

SECRET_VARIABLES: tuple[str, ...] = tuple(
    name for provider in PROVIDERS.values() for name in (*provider.key_variables, *provider.secret_variables)
)
"""Every provider's key and credential variables: their values must never reach a cassette."""

KEY_SHAPES: tuple[KeyShape, ...] = tuple(shape for p in PROVIDERS.values() for shape in p.key_shapes)

IDENTIFIER_PREFIXES: tuple[str, ...] = tuple(x for p in PROVIDERS.values() for x in p.identifier_prefixes)

KEPT_HEADERS: frozenset[str] = frozenset(h for p in PROVIDERS.values() for h in p.kept_headers)

TRACING_SCOPES: frozenset[str] = frozenset(s for p in PROVIDERS.values() for s in p.tracing_scopes)

REAL_TRAFFIC: dict[str, tuple[str, bool]] = {
    name: (api.name, stream)
    for api in APIS.values()
    if api.real_traffic is not None
    for name, stream in ((api.real_traffic, False), (f"{api.real_traffic}_stream", True))
    if api.streams or not stream
}
"""A real-traffic recording's ``api`` field → (api, whether it is a stream)."""


def provider_titles() -> str:
    """``OpenAI, Anthropic or Google Gemini``: the providers, for messages."""
    titles = [p.title for p in PROVIDERS.values()]
    return titles[0] if len(titles) == 1 else f"{', '.join(titles[:-1])} or {titles[-1]}"


def equivalences_of(api: str) -> tuple[Equivalence, ...]:
    """The equivalences an api's record lists (none for an api the registry does not know)."""
    record = APIS.get(api)
    return record.equivalences if record is not None else ()
