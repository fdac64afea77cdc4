"""What an ``@auth.authenticate`` handler returns, as its ``@auth.on`` handlers see it (``ctx.user``) and as the
service sees it (a ``Principal``).

A handler may return a string (the identity), a dict with ``identity`` (required), ``permissions``,
``display_name``, ``is_authenticated`` and any fields of its own, or an object with those attributes (the
``BaseUser`` protocol). The principal's subject is the identity; its roles are the permissions (so
``HARNESS_APPROVER_ROLE=approver`` names the users with the ``approver`` permission); its ``account_id`` is the
field of that name, when there is one. The principal keeps the fields as JSON (kept in a run's record): number
keys become strings, values of other types their ``str``; fields JSON cannot hold (a key that is neither a string
nor a number) are the handler's fault, refused as a result naming no user. Anything else is refused
(``ValueError``): the request is a 401.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import msgspec

from api.auth.principal import Principal

__all__ = ("AuthUser", "user_of")

_SUBJECT_MAX = 200
"""As a tokens file's subjects: an identity is stored with every thread, run and item of its user."""


class AuthUser:
    """The ``BaseUser`` of the Agent Server: attributes and keys alike (``ctx.user.identity``,
    ``ctx.user["org_id"]``)."""

    __slots__ = ("_fields", "_json")

    def __init__(self, fields: dict[str, Any], as_json: dict[str, Any]) -> None:
        self._fields = fields
        self._json = as_json

    @property
    def identity(self) -> str:
        identity: str = self._fields["identity"]
        return identity

    @property
    def display_name(self) -> str:
        return str(self._fields.get("display_name") or self.identity)

    @property
    def is_authenticated(self) -> bool:
        return bool(self._fields.get("is_authenticated", True))

    @property
    def permissions(self) -> Sequence[str]:
        permissions: Sequence[str] = self._fields.get("permissions", ())
        return permissions

    def principal(self) -> Principal:
        account_id = self._fields.get("account_id")
        return Principal(
            subject=self.identity,
            roles=frozenset(self.permissions),
            account_id=str(account_id) if account_id is not None else None,
            user=self._json,
        )

    def dict(self) -> dict[str, Any]:
        return dict(self._fields)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __contains__(self, key: object) -> bool:
        return key in self._fields

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __repr__(self) -> str:
        return f"AuthUser(identity={self.identity!r})"


def user_of(result: object) -> AuthUser:
    """The user a handler's ``result`` describes; ``ValueError`` saying why when it describes none."""
    if isinstance(result, str):
        fields: dict[str, Any] = {"identity": result}
    elif isinstance(result, Mapping):
        fields = dict(result)
    elif hasattr(result, "identity"):
        fields = {
            name: getattr(result, name)
            for name in ("identity", "display_name", "is_authenticated", "permissions")
            if hasattr(result, name)
        }
    else:
        raise ValueError(f"it returned {type(result).__name__}, not a string, a dict or a user with an identity")
    identity = fields.get("identity")
    if not isinstance(identity, str) or not 0 < len(identity) <= _SUBJECT_MAX:
        raise ValueError(f"its identity must be a string of 1 to {_SUBJECT_MAX} characters, not {identity!r}")
    permissions = fields.get("permissions", ())
    if isinstance(permissions, str) or not isinstance(permissions, Sequence | frozenset | set):
        raise ValueError(f"its permissions must be a list of strings, not {permissions!r}")
    fields["permissions"] = [str(permission) for permission in permissions]
    if fields.get("is_authenticated") is False:
        raise ValueError("it returned a user that is not authenticated")
    try:  # kept in the record of each run the user starts: JSON only, checked here rather than failing there
        as_json = msgspec.to_builtins(fields, enc_hook=str, str_keys=True)
    except TypeError as exc:
        raise ValueError(f"its fields do not convert to JSON ({exc})") from None
    return AuthUser(fields, as_json)
