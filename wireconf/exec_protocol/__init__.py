"""Out-of-process runtimes (``--impl exec:COMMAND``): a JSON-lines protocol on stdin/stdout.

``records/`` holds one pydantic record per message, the single source of the protocol: ``schema.json``
(``schema.py``), the JavaScript client's types and validator (``js_client.py``) and the check of every
message the harness reads (``messages.decode``). ``client.py`` is the harness's side (an adapter object
that forwards each call to the process), ``http_bridge.py`` the e2e case's SDK client for a runtime in
another process (protocols 2-3), ``serve.py`` the runtime's side for Python adapters, ``messages.py``
reading and writing lines, shared by both. docs/exec-protocol.md teaches the protocol to an implementer.

**Support policy** (``SUPPORT_POLICY``, also in docs/exec-protocol.md; ``tests/unit/test_exec_policy.py``
holds ``PROTOCOL_VERSIONS`` to it):

- the harness accepts the current protocol and the two before it; an older one stays accepted while it
  is listed in ``RETIRING`` (said in docs/exec-protocol.md, with the release it may leave in);
- a protocol leaves the accepted set only in a minor release whose changelog says so, one release after
  it was first listed in ``RETIRING``;
- a field never changes meaning within a protocol; a new field (optional, with a default that keeps
  today's behaviour) or a new message is a new protocol version, and its record says which (``since``).
"""

PROTOCOL_VERSION = 4
"""The newest version the harness speaks; a runtime's hello names the one it speaks."""
KEPT_BEFORE = 2
"""How many versions before the current one the harness accepts, whatever they are."""
RETIRING: dict[int, str] = {1: "0.3.0"}
"""Versions older than that still accepted, each with the release it may leave in at the earliest (the
one after the release that first lists it here)."""
PROTOCOL_VERSIONS = (1, 2, 3, 4)
"""1: SDK objects and stream events cross as the provider's JSON. 2 adds the hello's ``inputs``
(``recorded`` asks for the recorded HTTP responses instead, for runtimes whose own SDK parses them)
and e2e calls, whose HTTP the runtime sends through the harness (``http`` / ``response``). 3 adds the
hello's ``pipeline``: the harness sends a call's stream events in ``events`` batches without waiting
for ``next`` (its ``end`` carries the recorded stream's own ``error``), and the runtime's ``yield`` says
how many events its SDK had read (``read``), so that the two processes work at once. 4 adds ``ack``
(a runtime that has consumed every event it was given asks for the rest: the harness holds a stream's
last event until then, so that incrementality is judged on what it released, never on ``read``)."""

SUPPORT_POLICY = (
    f"Support policy: the harness accepts the current protocol ({PROTOCOL_VERSION}) and the "
    f"{KEPT_BEFORE} before it; an older one stays accepted while it is retiring (listed with the release "
    "it may leave in); a protocol leaves only in a minor release whose changelog says so, "
    "one release after it was first said to be retiring; a field never changes meaning within a protocol, "
    "and a new field or message is a new protocol version."
)

SELECTION_VARIABLES = ("WIRECONF_KINDS", "WIRECONF_APIS")
"""The run's ``--kind`` and ``--api`` in every runtime's environment (comma-separated; absent: every
one), so that a runtime loads only what they need before ``warm`` (``launch.set_selection``). Not
part of a protocol version: a runtime that ignores them loads everything it declares, as before."""
