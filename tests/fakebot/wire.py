"""How PTB sends Bot API parameters: JSON, form-urlencoded or multipart form data."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from aiohttp import web

# Form fields PTB sends as plain strings; every other field is JSON-encoded.
STRING_FIELDS = {
    "text",
    "caption",
    "callback_query_id",
    "parse_mode",
    "photo",
    "url",
    "description",
    "short_description",
    "name",
    "language_code",
    "secret_token",
    "action",
    "query",
    "message_effect_id",
    "business_connection_id",
    "emoji",
    "title",
    "file_id",
    "document",
    "ip_address",
    "inline_message_id",
}


@dataclass(frozen=True)
class Upload:
    """A file the bot uploaded in a multipart request."""

    filename: str | None
    content_type: str | None
    data: bytes


def decode(key: str, value: str) -> Any:
    """A form field's value: JSON-decoded unless PTB sends that field as a plain string."""
    if key in STRING_FIELDS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


async def read_params(request: web.Request) -> tuple[dict[str, Any], dict[str, Upload]]:
    """Parameters of a Bot API call sent as JSON, form-urlencoded or multipart form data."""
    params: dict[str, Any] = {key: decode(key, value) for key, value in request.query.items()}
    files: dict[str, Upload] = {}
    if not request.can_read_body:
        return params, files
    if request.content_type == "application/json":
        params.update(await request.json())
        return params, files
    form = await request.post()
    for key, value in form.items():
        if isinstance(value, web.FileField):
            files[key] = Upload(value.filename, value.content_type, value.file.read())
        else:
            params[key] = decode(key, str(value))
    return params, files
