"""The single-page app: ``GET /`` with a strict Content-Security-Policy, its modules under ``/spa``."""

from __future__ import annotations

from pathlib import Path

from litestar import Response, get
from litestar.static_files import create_static_files_router

__all__ = ("CONTENT_SECURITY_POLICY", "SPA_DIR", "index", "spa_files")

SPA_DIR = Path(__file__).resolve().parents[2] / "spa"

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


@get("/", include_in_schema=False, cache=False)
async def index() -> Response[bytes]:
    return Response(
        (SPA_DIR / "index.html").read_bytes(),
        media_type="text/html; charset=utf-8",
        headers=_SECURITY_HEADERS,
    )


spa_files = create_static_files_router(path="/spa", directories=[SPA_DIR], include_in_schema=False)
