"""Returns its text as a ``str`` subclass (as LangChain and enum-based runtimes do): still the string it
holds, in every kind."""

from tests.fakes.base import FakeAdapter


class Text(str):
    def __str__(self) -> str:
        return "<Text>"  # a subclass's own __str__ must not change what is judged


def _texts(value):
    if isinstance(value, str):
        return Text(value)
    if isinstance(value, list):
        return [_texts(v) for v in value]
    return value


class Adapter(FakeAdapter):
    name = "str-subclass"

    def process(self, api, agent, response):
        return _texts(super().process(api, agent, response))

    def process_stream(self, api, agent, events):
        for item in super().process_stream(api, agent, events):
            yield _texts(item)


adapter = Adapter()
