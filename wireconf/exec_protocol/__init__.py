"""Out-of-process runtimes (``--impl exec:COMMAND``): a JSON-lines protocol on stdin/stdout.

``client.py`` is the harness's side (an adapter object that forwards each call to the process),
``http_bridge.py`` the e2e case's SDK client for a runtime in another process (protocol 2),
``serve.py`` the runtime's side for Python adapters, ``messages.py`` the message helpers shared by
both, ``schema.json`` the JSON Schema of every message (``wireconf exec-schema`` prints it).
"""

PROTOCOL_VERSION = 4
"""The newest version the harness speaks; a runtime's hello names the one it speaks."""
PROTOCOL_VERSIONS = (1, 2, 3, 4)
"""1: SDK objects and stream events cross as the provider's JSON. 2 adds the hello's ``inputs``
(``recorded`` asks for the recorded HTTP responses instead, for runtimes whose own SDK parses them)
and e2e calls, whose HTTP the runtime sends through the harness (``http`` / ``response``). 3 adds the
hello's ``pipeline``: the harness sends a call's stream events in ``events`` batches without waiting
for ``next`` (its ``end`` carries the recorded stream's own ``error``), and the runtime's ``yield`` says
how many events its SDK had read (``read``), so that the two processes work at once. 4 makes that
count the harness's: under ``pipeline`` a stream's events go unasked but for the last one and the
``end``, held until the runtime says ``ack`` (it has read all it was sent), so that each ``yield`` is
counted by what the harness had released, never by the runtime's ``read``."""
