"""Words of a question and of the corpus, reduced to the terms retrieval compares.

Both sides go through the same steps: lower-cased words, stop words dropped, a light suffix stemmer
(``refunds``, ``refunded`` and ``refunding`` are one term). A question's word also brings the corpus's own
words for the same thing (``SYNONYMS``: a user says "log in", the help centre says "sign in"), which count
for less than the word itself.
"""

from __future__ import annotations

import re

__all__ = ("STOPWORDS", "SYNONYMS", "edit_distance", "stem", "words")

_WORD = re.compile(r"[a-z0-9]+")

STOPWORDS = frozenset(
    (
        "a about after again all also am an and any anything are as at be been but by can could did do does doing "
        "for from get gets getting give go good got had has have help how i if in into is it its just know like "
        "look looks me might more much my need new no not now of on one or our out please should so some still "
        "tell that the their them then there these they this to too try us use want was way we well were what "
        "when where which who why will with would you your hi hello hey thanks thank i'm im i've ive it's "
        "am being does doesn't don't dont there's here very really just than only own "
        "same such both each few most other s t d ll m re ve y "
        # what a question asks, not what it is about
        "happen happens happened ask asked asking meant mean explain show shows repeat steps step question "
        "questions possible able allowed okay ok sure exactly actually currently maybe anyone someone something "
        "thing things does doesnt dont cant can't won't wont isn't isnt "
        "he him his she her hers they their theirs yours mine ours many often quickly soon long itself "
        "ignore pretend instructions instruction guide tutorial"
    ).split()
)

SYNONYMS: dict[str, tuple[str, ...]] = {
    # signing in and accounts
    "login": ("sign",),
    "logon": ("sign",),
    "log": ("sign", "audit"),
    "logged": ("sign",),
    "logging": ("sign",),
    "signin": ("sign",),
    "logout": ("sign",),
    "register": ("create", "sign"),
    "registration": ("create", "sign"),
    "signup": ("create", "sign"),
    "join": ("create", "invite"),
    "username": ("email",),
    "mail": ("email",),
    "inbox": ("email",),
    "lockout": ("locked",),
    "blocked": ("locked", "block"),
    "unlock": ("locked", "lifted"),
    "hacked": ("exposed", "suspicious", "access"),
    "compromised": ("exposed", "suspicious"),
    "leaked": ("exposed",),
    "stolen": ("exposed",),
    "breach": ("exposed", "breaches"),
    "mfa": ("two-factor", "2fa"),
    "otp": ("two-factor", "code"),
    "totp": ("authenticator", "code"),
    "authenticator": ("two-factor",),
    "sso": ("single", "sign-on"),
    "saml": ("sso",),
    "okta": ("identity", "provider"),
    "idp": ("identity", "provider"),
    "credentials": ("password", "key"),
    "force": ("require", "enforced"),
    "enforce": ("require", "enforced"),
    "mandatory": ("require",),
    # people and roles
    "everyone": ("member",),
    "everybody": ("member",),
    "accountant": ("billing", "contact"),
    "finance": ("billing",),
    "developer": ("api",),
    "developers": ("api",),
    "hand": ("transfer",),
    "handover": ("transfer",),
    "teammate": ("member",),
    "teammates": ("member",),
    "colleague": ("member",),
    "coworker": ("member",),
    "user": ("member",),
    "users": ("member",),
    "seat": ("member",),
    "seats": ("member",),
    "staff": ("member", "support", "agents"),
    "employee": ("member",),
    "administrator": ("admin",),
    "permission": ("role", "access"),
    "permissions": ("role", "access"),
    "rights": ("role", "access"),
    "privileges": ("role", "access"),
    "organization": ("workspace",),
    "organisation": ("workspace",),
    "org": ("workspace",),
    "company": ("workspace",),
    # money
    "reimburse": ("refund",),
    "reimbursement": ("refund",),
    "chargeback": ("refund",),
    "money": ("refund", "charge"),
    "bill": ("invoice", "charge"),
    "bills": ("invoice", "charge"),
    "billed": ("charged",),
    "receipt": ("invoice",),
    "receipts": ("invoice",),
    "price": ("pricing", "cost"),
    "prices": ("pricing", "cost"),
    "fee": ("cost", "charge"),
    "fees": ("cost", "charge"),
    "expensive": ("cost", "pricing"),
    "cheap": ("cost", "pricing"),
    "tier": ("plan",),
    "tiers": ("plan",),
    "subscription": ("plan",),
    "cancel": ("close", "auto-renewal", "cancelled"),
    "yearly": ("annual",),
    "year": ("annual",),
    "declined": ("failed",),
    "bounced": ("failed",),
    "wire": ("bank", "transfer"),
    "paypal": ("payment", "method"),
    "discount": ("save",),
    "euro": ("euros", "eur"),
    "pound": ("pounds", "gbp"),
    "dollar": ("dollars", "usd"),
    "gst": ("tax",),
    "prorate": ("prorated", "proration"),
    "eu": ("vat", "euros"),
    "europe": ("vat", "euros"),
    "european": ("vat", "euros"),
    # data
    "print": ("pdf", "download"),
    "big": ("large",),
    "huge": ("large",),
    "download": ("export",),
    "backup": ("export", "backups"),
    "extract": ("export",),
    "dump": ("export",),
    "archive": ("export",),
    "information": ("data",),
    "info": ("data",),
    "files": ("data", "file"),
    "retain": ("retention", "kept"),
    "keep": ("retention", "kept"),
    "recover": ("restore", "regain"),
    "undo": ("restore", "irreversible"),
    "undelete": ("restore",),
    "remove": ("delete",),
    "erase": ("delete",),
    "wipe": ("delete",),
    "terminate": ("close", "delete"),
    # the API
    "throttle": ("rate", "limit"),
    "throttled": ("rate", "limit"),
    "throttling": ("rate", "limit"),
    "quota": ("limit",),
    "quotas": ("limit",),
    "token": ("key",),
    "tokens": ("key",),
    "paginate": ("pagination", "page"),
    "paging": ("pagination", "page"),
    "backoff": ("retry",),
    "dos": ("denial", "service"),
    "ddos": ("denial", "service"),
    # the product
    "click": ("select",),
    "button": ("select",),
    "tap": ("select",),
    "break": ("affected",),
    "differ": ("different",),
    "accidentally": ("mistake",),
    "respond": ("acknowledge",),
    "github": ("public", "code", "repositories"),
    "gitlab": ("public", "code", "repositories"),
    "repo": ("code", "repositories"),
    "pushed": ("exposed", "public"),
    "committed": ("exposed", "public"),
    # security
    "bug": ("vulnerability",),
    "exploit": ("vulnerability",),
    "cve": ("vulnerability",),
    "bounty": ("vulnerability",),
    "scam": ("phishing",),
    "fraud": ("phishing",),
    "impersonating": ("phishing", "claim"),
    "encrypt": ("encrypted", "encryption"),
    "secure": ("security", "encrypted"),
    "notification": ("alert", "email"),
    "warning": ("alert",),
    "above": ("over",),
    "exceed": ("over", "hit"),
    "exceeded": ("over", "hit"),
    "exceeding": ("over", "hit"),
    "previous": ("older", "past"),
    "earlier": ("older", "past"),
    "old": ("older", "previous"),
    "pick": ("choose",),
    "two": ("2",),
    "three": ("3",),
    "five": ("5",),
    "ten": ("10",),
    "expiry": ("expire",),
    # everyday words for the corpus's own
    "remember": ("forgot",),
    "forget": ("forgot",),
    "forgotten": ("forgot",),
    "stuff": ("data",),
    "content": ("data",),
    "records": ("data", "results"),
    "cap": ("limit",),
    "ceiling": ("limit",),
    "grab": ("download",),
    "fetch": ("download",),
    "wrong": ("failed",),
    "incorrect": ("wrong", "failed"),
    "misspelled": ("wrong", "correct"),
    "typo": ("wrong", "correct"),
    "fix": ("correct", "update"),
    "tries": ("attempts",),
    "reversed": ("refund",),
    "reverse": ("refund",),
    "hole": ("vulnerability",),
    "flaw": ("vulnerability",),
    "weakness": ("vulnerability",),
    "steal": ("exposed",),
    "steals": ("exposed",),
    "country": ("location",),
    "abroad": ("location",),
    "slow": ("rate", "limit", "wait"),
    "generate": ("create",),
    "integration": ("api",),
    "script": ("api",),
    "backend": ("api",),
    "halfway": ("mid", "cycle"),
    "middle": ("mid", "cycle"),
    "activity": ("audit", "log"),
    "renew": ("renewal",),
    "renews": ("renewal",),
    "renewing": ("renewal",),
    "came": ("arrive",),
    "arrived": ("arrive",),
    "shut": ("close",),
    "quit": ("close", "delete"),
    "permanently": ("irreversible", "erased"),
    "migrate": ("export", "import"),
    "tool": ("system",),
    "sterling": ("gbp", "pounds"),
    "strong": ("requirements",),
    "complex": ("requirements",),
    "amex": ("credit", "card"),
    "visa": ("credit", "card"),
    "mastercard": ("credit", "card"),
    "person": ("member",),
    "people": ("member",),
    "contractor": ("viewer",),
    "guest": ("viewer",),
    "azure": ("identity", "provider"),
    "onelogin": ("identity", "provider"),
    "longest": ("longer",),
    "max": ("limit",),
    "maximum": ("limit",),
    "valid": ("expire",),
    "validity": ("expire",),
    "pause": ("wait",),
    "package": ("plan",),
    "packages": ("plan",),
    "bigger": ("upgrade",),
    "smaller": ("downgrade",),
    "pull": ("export", "download"),
    "returned": ("refund",),
    "laptop": ("device",),
    "computer": ("device",),
    "calls": ("requests",),
    "call": ("requests",),
    "scripts": ("api",),
    "directory": ("identity", "provider"),
    "scrambled": ("encrypted",),
    "swap": ("rotate",),
    # everyday words for time, counts and states the help centre words otherwise
    "history": ("audit", "log"),
    "live": ("active",),
    "times": ("attempts",),
    "half": ("30", "minutes"),
    "hour": ("minutes",),
    "hours": ("minutes",),
    "week": ("days",),
    "weeks": ("days",),
    "fortnight": ("14", "days"),
    "greyed": ("managed", "cannot"),
    "disabled": ("cannot", "off"),
    "drop": ("downgrade",),
    "cash": ("refund", "money"),
    "phone": ("authenticator", "recovery"),
    "emailed": ("email", "asks"),
    "address": ("email",),
    "forced": ("enforced", "require"),
}
"""A question's word → the corpus's words for the same thing (every target is a corpus word: a test checks)."""

_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly", "ions", "ion")


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``, in order."""
    return _WORD.findall(text.lower())


def stem(word: str) -> str:
    """``word`` without its inflection, so that a plural, a past tense or a gerund meets its stem.

    A few suffix rules, not Porter: enough for a help centre's words, and the same on both sides.
    """
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "ies":
                word = word[:-3] + "y"
            elif suffix in ("es", "s") and word.endswith(("ss", "us", "is")):
                continue
            elif suffix in ("ations", "ation"):
                word = word[: -len(suffix)] + "at"
            elif suffix in ("ions", "ion"):
                if word[-len(suffix) - 1] not in "ts":
                    continue
                word = word[: -len(suffix)]
            else:
                word = word[: -len(suffix)]
            break
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "slz":
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def edit_distance(first: str, second: str) -> int:
    """Insertions, deletions, substitutions and swaps of two neighbours that turn one word into the other."""
    previous2: list[int] = []
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, 1):
        current = [i]
        for j, b in enumerate(second, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b))
            if i > 1 and j > 1 and a == second[j - 2] and first[i - 2] == b:
                cost = min(cost, previous2[j - 2] + 1)
            current.append(cost)
        previous2, previous = previous, current
    return previous[-1]
