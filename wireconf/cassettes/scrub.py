"""What is removed from an interaction before a cassette is written (recorded or imported).

Headers are kept only when they are on a short allowlist: the ones that say how to read a body or
that change how an SDK behaves (``content-type``, ``retry-after``, …, and the request headers a
provider record keeps, such as ``anthropic-version``). Every
other header goes: authorization of every provider (``authorization``, ``x-api-key``,
``x-goog-api-key``, ``api-key``), cookies, organisation and project ids (``openai-organization``,
``openai-project``, ``anthropic-organization-id``), and the volatile ones that would make every
re-recording a diff (``date``, request ids, rate-limit counters, ``x-stainless-*`` telemetry,
``content-length``). An allowlist cannot miss a secret header that a provider adds tomorrow.

Request URIs keep only the query parameters on a short allowlist too (``alt``, ``api-version``, ``beta``
and the list endpoints' paging): a provider's or a gateway's credential parameter (``key=``,
``subscription-key=``, ``sig=``, one that does not exist yet) cannot be missed.

In JSON bodies, values under credential-named keys (``api_key``, ``access_token``, ``client_secret``, …) are
replaced by ``"<scrubbed>"``, except inside model content (tool-call arguments and tool schemas: ``args``,
``input``, ``arguments``, ``properties``, …), where a key named ``password`` is the model's data, not a
credential of the recording; URLs in string values lose their credential query parameters (signed image URLs
carry ``sig=``), and account identifiers (the prefixes a provider record names: OpenAI's ``org-…``,
``proj_…``, e.g. in an image URL's path) become ``org-<scrubbed>``. A credential anywhere else (a key in a
message text) is not quietly rewritten: the secret scan (``wireconf.cassettes.secret_scan``) finds it and the
write fails, so that a person looks. Event streams are not rewritten either (that would change their bytes):
the scan is what stops a secret there.

The functions work on vcrpy's interaction dicts and also serve as vcrpy hooks
(``before_record_request`` / ``before_record_response``) for people who record with vcrpy directly.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from wireconf.core.untyped import JSON
from wireconf.providers.registry import IDENTIFIER_PREFIXES, KEPT_HEADERS

SCRUBBED = "<scrubbed>"

REQUEST_HEADERS = frozenset({"content-type", "accept"}) | KEPT_HEADERS
"""Request headers a cassette keeps (with those the provider records keep); all others are dropped."""

RESPONSE_HEADERS = frozenset({"content-type", "retry-after", "retry-after-ms", "x-should-retry"})
"""Response headers a cassette keeps (the SDKs read the last three to decide on retries)."""

QUERY_PARAMS = frozenset(
    {"alt", "$alt", "api-version", "beta", "limit", "order", "after", "before", "include", "include[]"}
)
"""Query parameters a recorded request URI keeps (and request matching compares); all others go."""

SECRET_QUERY_PARAMS = frozenset(
    {
        "key",
        "api_key",
        "apikey",
        "api-key",
        "x-api-key",
        "subscription-key",
        "access_token",
        "token",
        "auth",
        "sig",
        "signature",
        "code",
        "client_secret",
    }
)
"""Credential parameters removed from URLs inside bodies (a signed image URL's ``sig=``): a URL a
provider answers with is its data, so only what is known to be a credential goes."""

SECRET_BODY_KEYS = frozenset(
    {
        "api_key",
        "apikey",
        "api-key",
        "x-api-key",
        "access_token",
        "refresh_token",
        "id_token",
        "session_token",
        "client_secret",
        "private_key",
        "password",
        "authorization",
        "secret",
    }
)


CONTENT_KEYS = frozenset(
    {
        "args",
        "input",
        "arguments",
        "properties",
        "parameters",
        "parametersJsonSchema",
        "input_schema",
        "inputSchema",
        "responseJsonSchema",
        "responseSchema",
        "schema",
    }
)
"""Keys whose values are model content (tool-call arguments, tool and output schemas): credential-named
keys inside them are data the cases assert on; a real secret there is still caught by the scan."""


_IDENTIFIERS = re.compile(
    r"(?<![A-Za-z0-9_-])(" + ("|".join(map(re.escape, IDENTIFIER_PREFIXES)) or "(?!)") + r")[A-Za-z0-9]{20,}"
)


def keep_headers(headers: dict[str, Any] | None, allowed: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in (headers or {}).items() if k.lower() in allowed}


def _keep_query(uri: str, keep: Callable[[str], bool]) -> str:
    parts = urlsplit(uri)
    if not parts.query:
        return uri
    pairs = parts.query.split("&")
    kept = [p for p in pairs if keep(unquote_plus(p.partition("=")[0]).lower())]
    if len(kept) == len(pairs):
        return uri
    return urlunsplit(parts._replace(query="&".join(kept)))


def scrub_uri(uri: str) -> str:
    """A request URI with only the allowlisted query parameters, each kept byte for byte."""
    return _keep_query(uri, lambda name: name in QUERY_PARAMS)


def strip_url_credentials(url: str) -> str:
    """A URL (inside a body) without its credential query parameters; everything else byte for byte."""
    return _keep_query(url, lambda name: name not in SECRET_QUERY_PARAMS)


def scrub_text(value: str) -> str:
    """A string value with organisation / project ids masked and, if it is a URL, without credential
    query parameters."""
    if value.startswith(("https://", "http://")) and "?" in value:
        value = strip_url_credentials(value)
    return _IDENTIFIERS.sub(lambda m: f"{m.group(1)}{SCRUBBED}", value)


def _is_credential(key: JSON, value: JSON) -> bool:
    return isinstance(key, str) and key.lower() in SECRET_BODY_KEYS and isinstance(value, str) and bool(value)


def scrub_json(value: JSON, in_content: bool = False) -> JSON:
    """``value`` with every credential-named key's string value replaced by ``"<scrubbed>"`` (outside
    model content) and every string passed through ``scrub_text``."""
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        return {
            k: SCRUBBED
            if not in_content and _is_credential(k, v)
            else scrub_json(v, in_content or (isinstance(k, str) and k in CONTENT_KEYS))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [scrub_json(v, in_content) for v in value]
    return value


def scrub_body(body: JSON) -> JSON:
    """A JSON body (bytes or str) with credential fields scrubbed; any other body is returned as is."""
    if body is None:
        return None
    raw = body if isinstance(body, bytes | str) else None
    if raw is None:
        return body
    try:
        parsed = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return body
    cleaned = scrub_json(parsed)
    if cleaned == parsed:
        return body
    text = json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8") if isinstance(body, bytes) else text


def scrub_interaction(interaction: dict[str, Any]) -> dict[str, Any]:
    """A scrubbed copy of one vcrpy interaction dict (``request`` / ``response``)."""
    out = copy.deepcopy(interaction)
    request, response = out["request"], out["response"]
    request["uri"] = scrub_uri(str(request["uri"]))
    request["headers"] = keep_headers(request.get("headers"), REQUEST_HEADERS)
    request["body"] = scrub_body(request.get("body"))
    response["headers"] = keep_headers(response.get("headers"), RESPONSE_HEADERS)
    body = response.get("body")
    if isinstance(body, dict) and "string" in body:
        body["string"] = scrub_body(body["string"])
    return out


# --- vcrpy hooks ---------------------------------------------------------------------------------


def before_record_request(request: Any) -> Any:
    """vcrpy ``before_record_request`` hook: the same scrubbing on a ``vcr.request.Request``."""
    request.uri = scrub_uri(request.uri)
    request.headers = keep_headers(dict(request.headers), REQUEST_HEADERS)
    request.body = scrub_body(request.body)
    return request


def before_record_response(response: dict[str, Any]) -> dict[str, Any]:
    """vcrpy ``before_record_response`` hook: drop headers off the allowlist, scrub a JSON body."""
    response["headers"] = keep_headers(response.get("headers"), RESPONSE_HEADERS | {"content-encoding"})
    body = response.get("body")
    if isinstance(body, dict) and "string" in body and not _is_encoded(response):
        body["string"] = scrub_body(body["string"])
    return response


def _is_encoded(response: dict[str, Any]) -> bool:
    return any(k.lower() == "content-encoding" for k in response.get("headers") or {})
