"""``HostNotifier``: the processes of one host on one SQLite file wake each other."""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
import threading
from contextlib import suppress
from pathlib import Path
from typing import Any

from app.notify.base import Notifier
from app.notify.topics import Subscription
from app.notify.wire import decode, encode


class HostNotifier(Notifier):
    """In-process wake-ups plus a datagram to every other subscribed process of this host.

    ``directory`` names the host-wide group (one per SQLite file): each subscribed process
    binds an abstract UNIX datagram socket and drops a file of the same name there, so a
    publisher knows whom to tell. A peer that died is noticed on the next send (refused)
    and its file removed. A full peer buffer drops the datagram: latency, never data."""

    def __init__(self, directory: Path, poll_seconds: float = 1.0):
        super().__init__()
        self.directory = directory
        self._group = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:16]
        self._name = f"{os.getpid()}-{secrets.token_hex(6)}"
        self._poll = poll_seconds
        self._lock = threading.Lock()
        self._receiver: socket.socket | None = None
        self._sender: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()

    def _address(self, name: str) -> str:
        return f"\0mine-devil-notify-{self._group}-{name}"

    # -- sending --
    def _committed(self, topic: str, payload: dict[str, Any]) -> None:
        self._registry.deliver(topic, payload)
        try:
            peers = [name for name in os.listdir(self.directory) if name != self._name]
        except FileNotFoundError:
            return
        if not peers:
            return
        data = encode(topic, payload).encode("utf-8")
        with self._lock:
            if self._sender is None:
                self._sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                self._sender.setblocking(False)
            sender = self._sender
        for name in peers:
            try:
                sender.sendto(data, self._address(name))
            except (ConnectionRefusedError, FileNotFoundError):
                self._forget(name)  # that process is gone
            except OSError:
                pass  # a full buffer: the peer's waiters fall back on their timeouts

    def _forget(self, name: str) -> None:
        with suppress(FileNotFoundError):
            (self.directory / name).unlink()

    # -- receiving --
    def subscribe(self, topic: str) -> Subscription:
        subscription = super().subscribe(topic)
        self._ensure_receiver()
        return subscription

    def _ensure_receiver(self) -> None:
        with self._lock:
            if self._receiver is not None or self._stopped.is_set():
                return
            receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            receiver.bind(self._address(self._name))
            receiver.settimeout(self._poll)
            self.directory.mkdir(parents=True, exist_ok=True)
            (self.directory / self._name).touch()
            self._receiver = receiver
            self._thread = threading.Thread(
                target=self._run, args=(receiver,), name="notify-host", daemon=True
            )
            self._thread.start()

    def _run(self, receiver: socket.socket) -> None:
        while not self._stopped.is_set():
            try:
                data = receiver.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            message = decode(data.decode("utf-8", "replace"))
            if message is not None:
                self._registry.deliver(*message)

    def close(self) -> None:
        self._stopped.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(self._poll + 2.0)
        with self._lock:
            for sock in (self._receiver, self._sender):
                if sock is not None:
                    sock.close()
            if self._receiver is not None:
                self._forget(self._name)
            self._receiver = self._sender = None
        super().close()
