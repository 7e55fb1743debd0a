"""The environment a runtime process is started with: no provider credential, only the placeholder.

A runtime never needs a provider key: in replay nothing it sends leaves the machine, and in record
mode the process that forwards its requests (the emulator's recording proxy, the ``exec:`` bridge's
transport) drops the placeholder and adds the real credentials where the request leaves
(``Provider.authorised``). So a runtime process gets none: every ``exec:`` runtime (its early start and
restarts included: ``wireconf.exec_protocol.process``) and a runtime the emulator records for. Its own
module, needing only the registry's tables, so that the plugin can compute it before it imports the
harness (``wireconf.exec_protocol.launch.start_early``).
"""

from __future__ import annotations

from collections.abc import Mapping

from wireconf.providers.provider import PLACEHOLDER_KEY
from wireconf.providers.registry import PROVIDERS, SECRET_VARIABLES


def runtime_environ(environ: Mapping[str, str], base_urls: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` without any provider credential (``SECRET_VARIABLES``), the placeholder under each
    provider's first key variable (a runtime that insists on reading ``OPENAI_API_KEY`` finds one), and
    the SDKs' base-URL variables removed (the user's upstream is the forwarding process's, not the
    runtime's) or set from ``base_urls`` (provider name → the URL its SDK's base-URL variable should
    hold: an emulator seat's)."""
    kept = {k: v for k, v in environ.items() if k not in SECRET_VARIABLES}
    for provider in PROVIDERS.values():
        kept[provider.key_variables[0]] = PLACEHOLDER_KEY
        chosen = (base_urls or {}).get(provider.name)
        if chosen is not None:
            kept[provider.base_url_variable] = chosen
        else:
            kept.pop(provider.base_url_variable, None)
    return kept
