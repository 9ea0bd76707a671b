"""Personal API tokens (docs/api.md): the closed set of scopes, a token's text and its
SHA-256, creating, listing and revoking an account's tokens, and resolving a request's
bearer token to its account and scopes under the token's rate limit. The tokens live in
PostgreSQL (``brandubh.store``), their rate windows in Redis."""

from brandubh.hub.redis import TokenCheck
from brandubh.hub.tokens.scopes import SCOPES, check_name, check_scopes
from brandubh.hub.tokens.secret import PREFIX
from brandubh.hub.tokens.service import MAX_LIVE, ApiTokens, Bearer, Holder

__all__ = [
    "MAX_LIVE",
    "PREFIX",
    "SCOPES",
    "ApiTokens",
    "Bearer",
    "Holder",
    "TokenCheck",
    "check_name",
    "check_scopes",
]
