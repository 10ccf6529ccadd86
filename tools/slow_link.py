"""A slow link on one machine: a loopback TCP proxy that delays every chunk, each way.

    with SlowLink(lab_port, delay=0.05) as link:   # a 100 ms round trip, as on Binder
        page.goto(f"http://127.0.0.1:{link.port}/lab?token=...")

Each chunk read from one side is written to the other `delay` seconds later, in order, so
latency is added but throughput is not limited (a long, wide link). HTTP and WebSocket
traffic pass unchanged. It listens on and connects to 127.0.0.1 only, and stops with its
`with` block.
"""

import asyncio
import threading
from types import TracebackType

LOOPBACK = "127.0.0.1"
CHUNK = 65536


class SlowLink:
    """Forward 127.0.0.1:`port` to 127.0.0.1:`target_port`, `delay` seconds late each way."""

    def __init__(self, target_port: int, delay: float) -> None:
        self.target_port = target_port
        self.delay = delay
        self.port = 0  # chosen by the system when the link opens
        self.address = ("", 0)  # where it listens, once open
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task] = set()

    def __enter__(self) -> "SlowLink":
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._open(), self._loop).result(timeout=10)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    async def _open(self) -> None:
        self._server = await asyncio.start_server(self._connect, LOOPBACK, 0)
        self.address = self._server.sockets[0].getsockname()[:2]
        self.port = self.address[1]

    async def _close(self) -> None:
        self._server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await self._server.wait_closed()

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._connections.add(task)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                LOOPBACK, self.target_port
            )
            await asyncio.gather(
                self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer)
            )
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass  # one side went away, or the link is closing: close the other side too
        finally:
            writer.close()
            self._connections.discard(task)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy reader to writer, each chunk `delay` late; close the writer after the last."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                await asyncio.sleep(max(0.0, due - loop.time()))
                if not chunk:
                    break
                writer.write(chunk)
                await writer.drain()

        delivering = asyncio.create_task(deliver())
        try:
            while chunk := await reader.read(CHUNK):
                queue.put_nowait((loop.time() + self.delay, chunk))
            queue.put_nowait((loop.time() + self.delay, b""))  # the end arrives late too
            await delivering
        finally:
            delivering.cancel()
            writer.close()
