"""Runtimes that misuse the SDK client an e2e case hands them, one way each."""

from __future__ import annotations

import openai

from tests.fakes.base import FakeAdapter


class OwnClient(FakeAdapter):
    """Ignores the client it is handed and builds its own (which would reach api.openai.com)."""

    name = "own-client"

    def execute(self, api, agent, messages, client):
        mine = openai.OpenAI(api_key="sk-not-a-real-key", max_retries=0)
        return super().execute(api, agent, messages, mine)


class WrongEndpoint(FakeAdapter):
    """Sends chat requests to the Responses API."""

    name = "wrong-endpoint"

    def execute(self, api, agent, messages, client):
        body = self.build_request(api, agent, messages)
        response = client.responses.create(model=body["model"], input=body["messages"])
        return response.output_text


class Silent(FakeAdapter):
    """Answers without calling the provider at all."""

    name = "silent"

    def execute(self, api, agent, messages, client):
        return "This is a test."


class Twice(FakeAdapter):
    """Sends its request twice and returns the second answer."""

    name = "twice"

    def execute(self, api, agent, messages, client):
        super().execute(api, agent, messages, client)
        return super().execute(api, agent, messages, client)


own_client = OwnClient()
wrong_endpoint = WrongEndpoint()
silent = Silent()
twice = Twice()
