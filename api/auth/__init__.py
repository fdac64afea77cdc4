"""Identity: who a request comes from (bearer tokens), and what that subject may do with runs."""

from __future__ import annotations

from api.auth.config import AuthConfig
from api.auth.policy import AccessPolicy
from api.auth.principal import ANONYMOUS, Principal

__all__ = ("ANONYMOUS", "AccessPolicy", "AuthConfig", "Principal")
