"""A pytest plugin for benchmarks only: the process runner starts no case early (``-p no_run_ahead``
with ``benchmarks/`` on the path), so that a run with and without the run-ahead can be timed alike."""

from wireconf.pytest_plugin.runners import ForkedRunner


def pytest_configure(config: object) -> None:
    ForkedRunner.AHEAD = 0
