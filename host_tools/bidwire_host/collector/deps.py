"""What the routes need, as FastAPI dependencies: the collector service the app factory made (server.py).

A route names `service: Service` and gets it; no route reads the app's state itself. A store reader is not a
dependency: it is the calling thread's connection (store.py), and FastAPI may resolve a dependency on another
thread than the one a route runs on.
"""
from typing import Annotated

from fastapi import Depends, Request

from bidwire_host.collector.service import Service as CollectorService


async def get_service(request: Request) -> CollectorService:
    return request.app.state.service


Service = Annotated[CollectorService, Depends(get_service)]
