"""The single-page app: ``GET /`` with a strict Content-Security-Policy, its modules and styles under ``/spa``.

Only the app's own top-level ``.js`` and ``.css`` files are served: not its tests, fixtures or notes.
"""

from __future__ import annotations

import re
from pathlib import Path

from litestar import Response, get
from litestar.params import FromPath

from api.exceptions import NotFound

__all__ = ("CONTENT_SECURITY_POLICY", "SPA_DIR", "index", "spa_asset")

SPA_DIR = Path(__file__).resolve().parents[2] / "spa"

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_ASSET = re.compile(r"^[a-z0-9_-]+\.(js|css)$")
_MEDIA_TYPES = {"js": "text/javascript", "css": "text/css"}  # Litestar adds the charset


class AssetNotFound(NotFound):
    code = "not_found"
    title = "Not found"


@get("/", include_in_schema=False, cache=False, public=True)
async def index() -> Response[bytes]:
    return Response((SPA_DIR / "index.html").read_bytes(), media_type="text/html", headers=_HEADERS)


@get("/spa/{name:str}", include_in_schema=False, cache=False, public=True)
async def spa_asset(name: FromPath[str]) -> Response[bytes]:
    match = _ASSET.match(name)
    path = SPA_DIR / name
    if match is None or not path.is_file():
        raise AssetNotFound(f"The app has no file {name!r}.")
    return Response(path.read_bytes(), media_type=_MEDIA_TYPES[match[1]], headers=_HEADERS)
