"""tools/slow_link: a loopback proxy that adds latency each way and changes nothing else."""

import socket
import threading
import time

from tools.slow_link import SlowLink


def echo_server():
    """A loopback echo server on a free port, serving until its socket closes."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                while data := connection.recv(65536):
                    connection.sendall(data)

    threading.Thread(target=serve, daemon=True).start()
    return server


def round_trip(port, payload):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        started = time.perf_counter()
        client.sendall(payload)
        received = b""
        while len(received) < len(payload):
            received += client.recv(65536)
        return time.perf_counter() - started, received


def test_every_byte_arrives_in_order_one_delay_late_each_way():
    server = echo_server()
    payload = bytes(range(256)) * 4000  # about 1 MB: many chunks, all pipelined
    with SlowLink(server.getsockname()[1], delay=0.05) as link:
        seconds, received = round_trip(link.port, payload)
        small, _ = round_trip(link.port, b"ping")
    server.close()
    assert received == payload
    assert 0.1 <= small < 0.5  # 50 ms there, 50 ms back, and no more than a little over
    assert seconds < 1.0  # latency added, throughput not throttled chunk by chunk


def test_it_listens_on_loopback_only_and_stops_with_its_block(caplog):
    server = echo_server()
    with SlowLink(server.getsockname()[1], delay=0.0) as link:
        port = link.port
        assert link.address == ("127.0.0.1", port)
        open_connection = socket.create_connection(("127.0.0.1", port), timeout=5)
        open_connection.sendall(b"ping")
        assert open_connection.recv(4) == b"ping"
    open_connection.close()  # it was still open when the link stopped: closed without a fuss
    server.close()
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        refused = False
    except OSError:
        refused = True
    assert refused
    assert [r for r in caplog.records if r.name == "asyncio"] == []  # no unhandled errors
