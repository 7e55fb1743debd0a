"""wireconf: a record/replay conformance harness for LLM runtimes (the pytest plugin and its tools)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("wireconf")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"
