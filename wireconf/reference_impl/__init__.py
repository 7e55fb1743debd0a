"""The reference implementation: every rule of the corpus as plain functions.

It imports nothing from the harness; the harness reaches it only through its adapter
(``wireconf.reference_impl.adapter:ReferenceAdapter``, entry point ``reference``), like any other runtime.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("wireconf")
except PackageNotFoundError:
    __version__ = "0.0.0+unknown"
