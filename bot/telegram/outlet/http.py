"""The Bot API's HTTP client: PTB's request interface over aiohttp (CPU per deal).

PTB sends every request through a :class:`telegram.request.BaseRequest`. Its default,
``HTTPXRequest`` (httpx over httpcore, anyio and h11, all pure Python), was most of the event
loop's CPU in a deal (about 100 requests and 35 long polls a deal). :class:`AiohttpRequest` sends
the same requests over aiohttp's client (HTTP parsed in C, one connection pool): about 1 ms of
CPU less per request on this project's machines (``editMessageText`` with a 20-button keyboard
against the fake Bot API: 3.4–3.8 ms with httpx, 2.1–2.6 ms with aiohttp, the server's share
included). PTB still builds every request and reads every answer (errors, 429s and their
``retry_after``); only the transport differs:

- the parameters are sent form-encoded, uploads as ``multipart/form-data``, exactly the parts
  PTB's ``RequestData`` gives (as ``HTTPXRequest`` sends them);
- timeouts are PTB's pool, connect, write and read values (a long poll's read timeout includes
  its ``timeout``, as PTB passes it) or this request's defaults, PTB's own; aiohttp has no write
  timeout, so the whole request may take their sum. An expired one raises
  :class:`telegram.error.TimedOut`, any other failure of the client
  :class:`telegram.error.NetworkError`, as with PTB's request;
- a successful answer to a method in ``unread`` (edits whose message the bot never looks at:
  :data:`UNREAD`) is handed to PTB as ``true`` instead of the edited message, which PTB would
  otherwise parse into a ``Message`` with its keyboard (a hand's caption edit carries about 20
  buttons; about 50 such edits a deal): PTB's edit methods then return ``True``, as they do
  for inline messages. Failures are passed on unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

log = logging.getLogger(__name__)

#: PTB's ``HTTPXRequest`` defaults, seconds (its ``media_write_timeout`` for uploads).
CONNECT_TIMEOUT = READ_TIMEOUT = WRITE_TIMEOUT = 5.0
POOL_TIMEOUT = 1.0
MEDIA_WRITE_TIMEOUT = 20.0
#: Edits whose answer (the edited message) no caller reads: PTB's ``edit_message_caption``,
#: ``edit_message_text`` and ``edit_message_reply_markup`` return ``True`` for them
#: (:class:`AiohttpRequest` ``unread``). Not ``editMessageMedia``: the photo's ``file_id`` in
#: its answer is cached (:mod:`bot.telegram.photos`).
UNREAD = frozenset({"editMessageCaption", "editMessageText", "editMessageReplyMarkup"})
#: The Bot API's answer ``true``, as PTB reads it.
_TRUE = b'{"ok":true,"result":true}'


class AiohttpRequest(BaseRequest):
    """PTB's :class:`~telegram.request.BaseRequest` over one ``aiohttp.ClientSession``.

    Args:
        connection_pool_size: connections kept open at most (PTB's default for the bot's
            requests is 256 with a rate limiter; 1 for the long polls).
        read_timeout, write_timeout, connect_timeout, pool_timeout: seconds (``None``: no
            limit), used when PTB passes none for a request.
        media_write_timeout: ``write_timeout`` of a request that uploads files.
        unread: Bot API methods (as named in the URL) whose successful answer is passed to
            PTB as ``true`` without being parsed (see the module docstring; e.g.
            :data:`UNREAD`); none by default.
    """

    def __init__(self, connection_pool_size: int = 256, *,
                 read_timeout: float | None = READ_TIMEOUT,
                 write_timeout: float | None = WRITE_TIMEOUT,
                 connect_timeout: float | None = CONNECT_TIMEOUT,
                 pool_timeout: float | None = POOL_TIMEOUT,
                 media_write_timeout: float | None = MEDIA_WRITE_TIMEOUT,
                 unread: Collection[str] = ()) -> None:
        self.pool_size = max(1, connection_pool_size)
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._session: aiohttp.ClientSession | None = None
        self._unread = frozenset(unread)

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout, seconds (PTB adds a long poll's own ``timeout`` to it)."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Open the session (again after :meth:`shutdown`)."""
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self.pool_size, limit_per_host=self.pool_size)
            self._session = aiohttp.ClientSession(
                connector=connector, headers={"User-Agent": self.USER_AGENT})

    async def shutdown(self) -> None:
        """Close the session and its connections."""
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """Send one request; ``(HTTP status, body)`` (PTB reads Telegram's answer from it).

        Raises:
            RuntimeError: not initialized.
            telegram.error.TimedOut: a timeout expired.
            telegram.error.NetworkError: the request failed otherwise (connection refused, …).
        """
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data else None
        fields = request_data.json_parameters if request_data else None
        if isinstance(read_timeout, DefaultValue):
            read_timeout = self._read_timeout
        if isinstance(connect_timeout, DefaultValue):
            connect_timeout = self._connect_timeout
        if isinstance(pool_timeout, DefaultValue):
            pool_timeout = self._pool_timeout
        if isinstance(write_timeout, DefaultValue):
            write_timeout = self._media_write_timeout if files else self._write_timeout
        # aiohttp has no write timeout of its own: the whole request gets pool + connect + write
        # + read; taking a connection (from the pool, or a new one) gets pool + connect
        parts = (pool_timeout, connect_timeout, write_timeout, read_timeout)
        total = None if None in parts else sum(float(part or 0) for part in parts)
        taking = None if None in (pool_timeout, connect_timeout) else \
            float(pool_timeout or 0) + float(connect_timeout or 0)
        timeout = aiohttp.ClientTimeout(total=total, connect=taking,
                                        sock_connect=connect_timeout, sock_read=read_timeout)
        body: aiohttp.FormData | dict[str, str] | None = fields
        if files:
            form = aiohttp.FormData()
            for name, value in (fields or {}).items():
                form.add_field(name, value)
            for name, (filename, content, mimetype) in files.items():
                form.add_field(name, content, filename=filename, content_type=mimetype)
            body = form
        try:
            async with session.request(method, url, data=body, timeout=timeout) as response:
                payload = await response.read()
                if 200 <= response.status <= 299 and url.rpartition("/")[2] in self._unread:
                    return response.status, _TRUE
                return response.status, payload
        except TimeoutError as exc:
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{type(exc).__name__}: {exc}") from exc
