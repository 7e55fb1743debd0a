"""OpenAI Chat Completions: §7.1 (request) and §8.1 / §8.6 (processing)."""
