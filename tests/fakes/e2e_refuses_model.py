"""An adapter over a runtime that refuses a model missing from its own table before it sends anything
(``tests.fakes.model_table_runtime``)."""

from __future__ import annotations

from tests.fakes.base import FakeAdapter
from tests.fakes.model_table_runtime import context_size


class RefusesModel(FakeAdapter):
    name = "refuses-model"

    def execute(self, api, agent, messages, client):
        context_size(agent["model"]["id"])
        return super().execute(api, agent, messages, client)


adapter = RefusesModel()
