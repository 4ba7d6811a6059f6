"""A middleware that changes a response on its way out, in the sync stack or the async one.

Django runs a middleware in the mode of the stack (``manage.py runserver`` and the tests' client
synchronously, uvicorn's ASGI asynchronously); one that could run in only one would make Django
adapt every request across threads. A subclass says what it does to a response once
(``outward``) and, where the async stack must do it differently (work that reads the database
goes to a thread), ``outward_async``; what it must note of the request before the view runs,
``inward`` (``inward_async``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest
from django.http.response import HttpResponseBase


class Outward:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase | Awaitable[HttpResponseBase]]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponseBase | Awaitable[HttpResponseBase]:
        if self.is_async:
            return self._acall(request)
        self.inward(request)
        response = self.get_response(request)
        assert isinstance(response, HttpResponseBase)
        return self.outward(request, response)

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        await self.inward_async(request)
        response = self.get_response(request)
        assert not isinstance(response, HttpResponseBase)
        return await self.outward_async(request, await response)

    def inward(self, request: HttpRequest) -> None:
        return None

    async def inward_async(self, request: HttpRequest) -> None:
        self.inward(request)

    def outward(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        return response

    async def outward_async(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        return self.outward(request, response)
