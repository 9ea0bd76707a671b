"""Mail: composing each mail from its facts (``mails``, pure), the outbox in Redis
delivered once by SMTP or to files, the single-use tokens of mailed links, and move
reminders (a commit hook). It never imports accounts (they send through it); what
reminders need of an account is a small protocol that ``app.py`` fills."""

from brandubh.hub.mail import mails
from brandubh.hub.mail.outbox import MailSettingsError, Outbox, transport_for
from brandubh.hub.mail.reminders import PRESENCE_EVERY_S, Reminders
from brandubh.hub.mail.tokens import TOKEN_RE, Holder, Tokens

__all__ = [
    "PRESENCE_EVERY_S",
    "TOKEN_RE",
    "Holder",
    "MailSettingsError",
    "Outbox",
    "Reminders",
    "Tokens",
    "mails",
    "transport_for",
]
