"""hub/README.md's nginx and Caddy examples: HTTPS in front of the hub on 127.0.0.1:8000.

Each example is checked by the real tool (nginx -t, caddy validate), then run on loopback
ports with a self-signed certificate, in front of a stand-in for the hub. Through it, over
TLS: a websocket opens with the browser's Origin (Jupyter's check, so Host is kept), the
hub is told the browser used https, a save twice the size of the largest course notebook
passes, and an event stream's first message arrives before the stream ends. Where a tool
is not installed (Debian: nginx or nginx-light, caddy), its checks are skipped, saying so;
CI (.ci/run installs both) fails instead.
"""

import asyncio
import contextlib
import getpass
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.web import Application, RequestHandler
from tornado.websocket import WebSocketClosedError, WebSocketHandler, websocket_connect

from tests.lab_server import ROOT, free_loopback_port

README = ROOT / "hub" / "README.md"
HUB = "127.0.0.1:8000"  # where `make class` serves the hub
NAME = "class.example.edu"


def example(language: str) -> str:
    [block] = re.findall(rf"```{language}\n(.*?)```", README.read_text(), re.S)
    return block


def largest_notebook_bytes() -> int:
    return max(path.stat().st_size for path in (ROOT / "notebooks").glob("**/*.ipynb"))


def tool(name: str) -> str:
    found = shutil.which(name, path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
    if not found:
        why = f"{name} is not installed (Debian: apt-get install {name})"
        if os.environ.get("CI") == "true":  # .ci/run installs it
            pytest.fail(f"CI must run the reverse-proxy examples: {why}")
        pytest.skip(why)
    return found


@pytest.fixture(scope="module")
def cert(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate and its key for localhost, made by openssl."""
    folder = tmp_path_factory.mktemp("tls")
    crt, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [tool("openssl"), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
         "-keyout", key, "-out", crt],
        check=True, capture_output=True,
    )  # fmt: skip
    return crt, key


def test_the_nginx_example_passes_on_what_the_hub_needs():
    conf = example("nginx")
    for line in [
        f"proxy_pass http://{HUB};",
        "proxy_http_version 1.1;",
        "proxy_set_header Upgrade $http_upgrade;",
        "proxy_set_header Connection $connection_upgrade;",
        "proxy_set_header Host $http_host;",
        "proxy_set_header X-Forwarded-Proto $scheme;",
        "listen 443 ssl;",
        f"server_name {NAME};",
    ]:
        assert line in conf
    [limit] = re.findall(r"client_max_body_size (\d+)m;", conf)
    assert int(limit) << 20 >= 10 * largest_notebook_bytes()


def test_the_caddy_example_proxies_the_hub_with_caddys_defaults():
    """Caddy passes websockets, Host and X-Forwarded-Proto on unless told otherwise."""
    assert example("caddyfile") == f"{NAME} {{\n\treverse_proxy {HUB}\n}}\n"


def nginx_site(cert: tuple[Path, Path], port: int | None = None, hub: int | None = None) -> str:
    """The example with the certificate given; on loopback ports when port is given."""
    crt, key = cert
    site = re.sub(r"ssl_certificate \S+;", f"ssl_certificate {crt};", example("nginx"))
    site = re.sub(r"ssl_certificate_key \S+;", f"ssl_certificate_key {key};", site)
    if port:
        site = site.replace("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;")
        site = site.replace("listen 80;", f"listen 127.0.0.1:{free_loopback_port()};")
        site = site.replace(HUB, f"127.0.0.1:{hub}").replace(NAME, "localhost")
    return site


def nginx_command(folder: Path, site: str) -> list[str]:
    """nginx with the site as its only one, everything it writes in folder."""
    (folder / "site.conf").write_text(site)
    # Run as root, nginx's workers would be `nobody`, who cannot enter pytest's folders.
    user = f"user {getpass.getuser()};" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(
        f"{user}\npid {folder}/nginx.pid;\nevents {{}}\nhttp {{\n  access_log off;\n"
        f"  client_body_temp_path {folder}/body;\n  proxy_temp_path {folder}/proxy;\n"
        f"  include {folder}/site.conf;\n}}\n"
    )
    return [tool("nginx"), "-p", str(folder), "-e", str(folder / "error.log"),
            "-c", str(folder / "nginx.conf")]  # fmt: skip


def caddy_env(folder: Path) -> dict[str, str]:
    """Caddy keeps its data and config under HOME (XDG): here, folder."""
    return {**os.environ, "HOME": str(folder), "XDG_DATA_HOME": str(folder / "data"),
            "XDG_CONFIG_HOME": str(folder / "config")}  # fmt: skip


def caddy_site(cert: tuple[Path, Path], port: int, hub: int) -> str:
    crt, key = cert
    options = (
        f"{{\n\tadmin off\n\tauto_https disable_redirects\n\thttp_port {free_loopback_port()}\n}}\n"
    )
    site = example("caddyfile").replace(f"{NAME} {{\n", f"localhost:{port} {{\n")
    site = site.replace("{\n", f"{{\n\tbind 127.0.0.1\n\ttls {crt} {key}\n", 1)
    return options + site.replace(HUB, f"127.0.0.1:{hub}")


def test_nginx_accepts_the_example(tmp_path, cert):
    done = subprocess.run(
        [*nginx_command(tmp_path, nginx_site(cert)), "-t"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "syntax is ok" in done.stderr and "test is successful" in done.stderr


def test_caddy_accepts_the_example(tmp_path):
    (tmp_path / "Caddyfile").write_text(example("caddyfile"))
    done = subprocess.run(
        [tool("caddy"), "validate", "--adapter", "caddyfile", "--config", tmp_path / "Caddyfile"],
        capture_output=True, text=True, env=caddy_env(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Valid configuration" in done.stdout + done.stderr


class Seen(RequestHandler):
    """What the hub is told of a request: its Host and the browser's scheme."""

    def get(self) -> None:
        headers = self.request.headers
        self.write({"host": headers.get("Host"), "proto": headers.get("X-Forwarded-Proto")})

    def post(self) -> None:  # a notebook saved
        self.write({"received": len(self.request.body)})


class Echo(WebSocketHandler):
    """A kernel's websocket: tornado's check_origin, as Jupyter's, wants Origin's host as Host."""

    def on_message(self, message) -> None:
        self.write_message(message)


class Stream(RequestHandler):
    """An event stream as nbgitpuller's progress: the second message waits for the first
    to reach the browser, and says if it never did."""

    async def get(self) -> None:
        self.set_header("Content-Type", "text/event-stream")
        self.write("data: first\n\n")
        await self.flush()
        try:
            await asyncio.wait_for(self.settings["first_arrived"].wait(), 5)
            self.write("data: second\n\n")
        except TimeoutError:
            self.write("data: held back by the proxy\n\n")


async def through_proxy(port: int, hub: int, crt: Path) -> dict:
    """Stand up the stand-in hub, then talk to it through the proxy on port."""
    first_arrived = asyncio.Event()
    routes = [("/hub/seen", Seen), ("/hub/ws", Echo), ("/hub/stream", Stream)]
    server = Application(routes, first_arrived=first_arrived).listen(hub, "127.0.0.1")
    tls = ssl.create_default_context(cafile=str(crt))
    base = f"https://localhost:{port}"
    client = AsyncHTTPClient(force_instance=True)
    found = {}
    try:
        seen = await client.fetch(HTTPRequest(f"{base}/hub/seen", ssl_options=tls))
        found["seen"] = json.loads(seen.body)
        try:
            ws = await websocket_connect(
                HTTPRequest(f"wss://localhost:{port}/hub/ws", ssl_options=tls,
                            headers={"Origin": base}, connect_timeout=5)
            )  # fmt: skip
            await ws.write_message("ping")
            found["websocket"] = await asyncio.wait_for(ws.read_message(), 5)
            ws.close()
        except (HTTPClientError, WebSocketClosedError) as refused:
            found["websocket"] = f"refused: {refused}"
        body = b"x" * (2 * largest_notebook_bytes())
        saved = await client.fetch(
            HTTPRequest(f"{base}/hub/seen", method="POST", body=body, ssl_options=tls),
            raise_error=False,
        )
        found["saved"] = json.loads(saved.body)["received"] if saved.code == 200 else saved.code
        chunks = []

        def arrived(chunk: bytes) -> None:
            chunks.append(chunk)
            if b"first" in b"".join(chunks):
                first_arrived.set()

        await client.fetch(
            HTTPRequest(f"{base}/hub/stream", streaming_callback=arrived, ssl_options=tls)
        )
        found["stream"] = re.findall(r"data: (.*)", b"".join(chunks).decode())
    finally:
        client.close()
        server.stop()
    return found


def wait_for_port(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the proxy stopped: {log.read_text() if log.exists() else ''}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.1)
    pytest.fail(f"nothing listens on {port}")


@contextlib.contextmanager
def running(command: list[str], port: int, log: Path, env: dict | None = None):
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        wait_for_port(port, process, log)
        yield
    finally:
        process.terminate()
        process.wait(10)


def through_example(proxy: str, folder: Path, cert, site_edit=lambda site: site) -> dict:
    port, hub = free_loopback_port(), free_loopback_port()
    if proxy == "nginx":
        command = [*nginx_command(folder, site_edit(nginx_site(cert, port, hub))), "-g",
                   "daemon off;"]  # fmt: skip
        env = None
    else:
        (folder / "Caddyfile").write_text(caddy_site(cert, port, hub))
        command = [tool("caddy"), "run", "--adapter", "caddyfile",
                   "--config", str(folder / "Caddyfile")]  # fmt: skip
        env = caddy_env(folder)
    with running(command, port, folder / "proxy.log", env):
        return asyncio.run(through_proxy(port, hub, cert[0])), port


@pytest.mark.parametrize("proxy", ["nginx", "caddy"])
def test_the_example_carries_websockets_saves_and_streams_over_tls(proxy, tmp_path, cert):
    found, port = through_example(proxy, tmp_path, cert)
    assert found["seen"] == {"host": f"localhost:{port}", "proto": "https"}
    assert found["websocket"] == "ping"
    assert found["saved"] == 2 * largest_notebook_bytes()
    assert found["stream"] == ["first", "second"]


def test_without_the_upgrade_headers_a_kernels_websocket_fails(tmp_path, cert):
    """The check above has teeth: nginx drops Upgrade unless told to pass it on."""

    def without_upgrade(site: str) -> str:
        return re.sub(r"\n\s*proxy_set_header (Upgrade|Connection) [^;]*;", "", site)

    found, _ = through_example("nginx", tmp_path, cert, without_upgrade)
    assert found["websocket"].startswith("refused")
