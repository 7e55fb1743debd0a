"""Out-of-process runtimes (``--impl exec:COMMAND``): a JSON-lines protocol on stdin/stdout.

``client.py`` is the harness's side (an adapter object that forwards each call to the process),
``serve.py`` the runtime's side for Python adapters, ``messages.py`` the message helpers shared by
both, ``schema.json`` the JSON Schema of every message (``wireconf exec-schema`` prints it).
"""

PROTOCOL_VERSION = 1
