"""The wire form of a notification: ``{"t": topic, "p": payload}`` as compact JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

DEFAULT_CHANNEL = "mine_devil"
MAX_PAYLOAD_BYTES = 7900
"""PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; stay clearly below."""

MAX_TOPIC_LENGTH = 200

Payload = Mapping[str, Any]


class NotifyError(ValueError):
    """A topic or payload the notifier cannot carry (names the problem)."""


def encode(topic: str, payload: Payload | None) -> str:
    """The wire form: ``{"t": topic, "p": payload}`` as compact JSON, size-checked."""
    if not topic or len(topic) > MAX_TOPIC_LENGTH:
        raise NotifyError(f"topic must be 1 to {MAX_TOPIC_LENGTH} characters, got {topic!r:.80}")
    text = json.dumps({"t": topic, "p": dict(payload or {})}, separators=(",", ":"))
    if len(text.encode("utf-8")) > MAX_PAYLOAD_BYTES:
        raise NotifyError(
            f"notification for {topic!r} is {len(text.encode('utf-8'))} bytes, over "
            f"{MAX_PAYLOAD_BYTES}: send what changed (ids, seq), not the change itself"
        )
    return text


def decode(text: str) -> tuple[str, dict[str, Any]] | None:
    """``(topic, payload)`` of a wire message, None for anything else on the channel."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    topic, payload = data.get("t"), data.get("p")
    if not isinstance(topic, str) or not isinstance(payload, dict):
        return None
    return topic, payload
