"""How many connections the server serves at once, and which one gives way.

A connection takes a slot before its thread starts, so the threads are bounded. A request
that is still arriving after `EVICT_AFTER_SECONDS` (a slow client, or one sending a byte now
and then on purpose) gives its slot to a new connection when none is free: slow requests
cannot keep pages from being served. A page waiting for a rebuild moves to a slot of its
own kind, so held waits never take a page's place either.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time

MAX_CONNECTIONS = 128
"""Connections served at once, a thread each (pages, files, questions); one more, when no
slow request can give way, is answered 503 at once by the thread that accepts."""
MAX_WAITERS = 32
"""Pages waiting for a rebuild (`ask/changes`) at once, beside those: more are told to come
back (503)."""
MAX_PER_CLIENT = 16
"""Connections one address may hold among those: one client off the network cannot take
them all. Loopback's are not counted (this machine's browser and tools share it)."""
EVICT_AFTER_SECONDS = 1.0
"""A request still arriving this long after its connection was accepted gives way to a new
connection when every slot is taken (a browser's arrives in milliseconds)."""
EVICTION_WAIT_SECONDS = 0.5
"""How long a new connection waits for the slot a slow one gave up."""
CONNECTION, WAITER = "connection", "waiter"


class ConnectionSlots:
    """`connections` slots for pages and questions (`per_client` at most for one address
    other than loopback's) and `waiters` for pages waiting for a rebuild."""

    def __init__(self, connections: int = MAX_CONNECTIONS, waiters: int = MAX_WAITERS, per_client: int = MAX_PER_CLIENT) -> None:
        self._limits = {CONNECTION: connections, WAITER: waiters}
        self._per_client = per_client
        self._held = {CONNECTION: 0, WAITER: 0}
        self._by_client: dict[str, int] = {}
        self._reading: dict[Slot, socket.socket] = {}
        """Connections whose request is still arriving, each with its socket."""
        self._changed = threading.Condition()

    def take(self, client: str, connection: socket.socket) -> Slot | None:
        """A slot for `connection` from the address `client`; when every slot is taken, the
        slowest request still arriving (for `EVICT_AFTER_SECONDS` or more) is cut and its slot
        waited for. None when no slot is free for it."""
        counted = not _is_loopback_address(client)
        with self._changed:
            if counted and self._by_client.get(client, 0) >= self._per_client:
                return None
            if self._held[CONNECTION] >= self._limits[CONNECTION]:
                if not self._evict_slowest():
                    return None
                if not self._changed.wait_for(lambda: self._held[CONNECTION] < self._limits[CONNECTION], EVICTION_WAIT_SECONDS):
                    return None
            self._held[CONNECTION] += 1
            if counted:
                self._by_client[client] = self._by_client.get(client, 0) + 1
            slot = Slot(self, client if counted else "")
            self._reading[slot] = connection
            return slot

    def _evict_slowest(self) -> bool:
        """Cut the connection whose request has been arriving longest, if for long enough."""
        now = time.monotonic()
        slow = [slot for slot in self._reading if now - slot.accepted >= EVICT_AFTER_SECONDS]
        if not slow:
            return False
        victim = min(slow, key=lambda slot: slot.accepted)
        try:  # its thread's read returns at once, and the thread frees the slot
            self._reading.pop(victim).shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        return True

    def _request_read(self, slot: Slot) -> None:
        with self._changed:
            self._reading.pop(slot, None)

    def _to_waiter(self, slot: Slot) -> bool:
        with self._changed:
            if slot.kind == WAITER:
                return True
            if slot.kind is None or self._held[WAITER] >= self._limits[WAITER]:
                return False
            self._leave(slot)
            slot.kind = WAITER
            self._held[WAITER] += 1
            return True

    def _release(self, slot: Slot) -> None:
        with self._changed:
            if slot.kind is not None:
                self._leave(slot)
                slot.kind = None

    def _leave(self, slot: Slot) -> None:
        self._reading.pop(slot, None)
        self._held[slot.kind] -= 1
        if slot.kind == CONNECTION and slot.client:
            left = self._by_client.pop(slot.client) - 1
            if left:
                self._by_client[slot.client] = left
        self._changed.notify_all()


class Slot:
    """The slot one connection holds, released when its thread ends."""

    def __init__(self, slots: ConnectionSlots, client: str) -> None:
        self._slots = slots
        self.client = client
        """Its address, "" when it is not counted (loopback)."""
        self.kind: str | None = CONNECTION
        self.accepted = time.monotonic()

    def request_read(self) -> None:
        """Its request is in: it no longer gives way to a new connection."""
        self._slots._request_read(self)

    def to_waiter(self) -> bool:
        """Trade this slot for a waiter's; False (keeping its own) when none is free."""
        return self._slots._to_waiter(self)

    def release(self) -> None:
        self._slots._release(self)


def _is_loopback_address(client: str) -> bool:
    try:
        return ipaddress.ip_address(client).is_loopback
    except ValueError:
        return False
