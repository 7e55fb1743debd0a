"""§7.1.1 message conversion and §7.1.2 part conversion."""

from __future__ import annotations

from typing import Any

AUDIO_FORMATS: dict[str, str] = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/mp3": "mp3",
    "audio/mpeg": "mp3",
    "audio/flac": "flac",
    "audio/ogg": "ogg",
}


def map_audio_format(media_type: str | None) -> str:
    """The §7.1.2 table; any other ``audio/*`` loses its prefix; anything else is an error
    (project decision 7.1.2/audio-media-type-required)."""
    if media_type in AUDIO_FORMATS:
        return AUDIO_FORMATS[media_type]
    if isinstance(media_type, str) and media_type.startswith("audio/") and len(media_type) > len("audio/"):
        return media_type[len("audio/") :]
    raise ValueError(f"an audio part needs an audio/* mediaType to choose its format, got {media_type!r}")


def part_to_wire(part: dict[str, Any]) -> dict[str, Any]:
    kind = part.get("kind")
    if kind == "text":
        return {"type": "text", "text": part.get("value")}
    if kind == "image":
        image_url: dict[str, Any] = {"url": part.get("value")}
        if part.get("detail"):  # never an empty or null detail (7.1.2/no-empty-detail)
            image_url["detail"] = part["detail"]
        return {"type": "image_url", "image_url": image_url}
    if kind == "audio":
        return {
            "type": "input_audio",
            "input_audio": {"data": part.get("value"), "format": map_audio_format(part.get("mediaType"))},
        }
    if kind == "file":
        return {"type": "file", "file": {"url": part.get("value")}}
    raise ValueError(f"unknown content part kind {kind!r} (text, image, audio, file)")


def message_to_wire(message: dict[str, Any]) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": message["role"]}
    if message.get("metadata"):
        wire.update(message["metadata"])
    content = message.get("content") or []
    if len(content) == 1 and content[0].get("kind") == "text":
        wire["content"] = content[0].get("value")
    else:
        wire["content"] = [part_to_wire(part) for part in content]
    return wire
