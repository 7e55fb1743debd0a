"""A runtime's own table of models (as LlamaIndex's ``openai_modelname_to_contextsize``): a model it
does not know is refused before any request is sent."""


def context_size(model: str) -> int:
    known = {"gpt-4o": 128000}
    if model not in known:
        raise ValueError(f"Unknown model {model!r}")
    return known[model]
