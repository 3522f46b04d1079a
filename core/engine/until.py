"""A view's updates until it is asked to stop (SIGINT, SIGTERM, a reader gone): `until_stopped`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TypeVar

T = TypeVar("T")


async def until_stopped(updates: AsyncIterator[T], stop: asyncio.Event) -> AsyncGenerator[T, None]:
    """The items of ``updates`` until ``stop`` is set (or they end); the one awaited when
    ``stop`` is set is cancelled."""
    stopping = asyncio.ensure_future(stop.wait())
    try:
        while True:
            step = asyncio.ensure_future(anext(updates))
            await asyncio.wait({step, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                step.cancel()
                with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                    await step
                return
            try:
                update = step.result()
            except StopAsyncIteration:
                return
            yield update
    finally:
        stopping.cancel()
