"""Which actions a message asks for, read from what it says rather than from one verb.

A written lexicon per action ("money back", "reverse the charge", "billed twice" ask for a refund; "wipe",
"get rid of", "shut down" an account ask for a deletion), record ids in any spelling (``inv 1003``,
``INV1004``, ``invoice #1005``, ``invoice no. 1004``, ``ACC\u20112001`` with any dash), negation ("don't
delete"), someone else's idea or a request taken back ("my colleague said we should close ACC-2002, but we're
keeping it"), questions and hypotheticals about an action ("how do refunds work?", "if I deleted ACC-2001,
...") that ask for nothing, several requests in one message, and a request that could mean more than one record
("refund INV-1001 or INV-1002"), which is asked about instead of guessed.

Every model path gets the same reading: the stub proposes from it, the schema and tools offered to a real
model name the records in their canonical spelling, and ``generate_answer`` holds any model's proposal to
it (an id in another spelling is read as the record it names; an ambiguous request is asked about).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Final

import msgspec

__all__ = (
    "DELETE",
    "REFUND",
    "ActionRequest",
    "RecordMention",
    "Requests",
    "canonical_arguments",
    "canonical_record_id",
    "find_records",
    "read_requests",
)

REFUND: Final = "issue_refund"
DELETE: Final = "delete_account"

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d_"), "-")
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_QUOTES = {ord("\u2019"): "'", ord("\u2018"): "'", ord("`"): "'"}

_INVOICE_ID = re.compile(
    r"\b(?:inv(?:oice)?s?)(?:\s*(?:no\.?|number|num|nr\.?|id)\b)?\s*[-#:.]?\s*#?\s*(?P<digits>\d{4})(?!\d)"
)
_ACCOUNT_ID = re.compile(
    r"\b(?:acc(?:oun)?t?s?|acct)(?:\s*(?:no\.?|number|num|nr\.?|id)\b)?\s*[-#:.]?\s*#?\s*(?P<digits>\d{4})(?!\d)"
)
_KINDS: Final = {"invoice": ("INV", _INVOICE_ID), "account": ("ACC", _ACCOUNT_ID)}


class RecordMention(msgspec.Struct, frozen=True):
    kind: str
    """``invoice`` or ``account``."""
    record_id: str
    """Canonical: ``INV-1001``, ``ACC-2001``."""
    start: int
    end: int


class _Trigger(msgspec.Struct, frozen=True):
    action: str
    record: str | None
    """The kind of record it acts on; None for an action on no record of ours (a plan, a subscription)."""
    start: int
    end: int


class ActionRequest(msgspec.Struct, frozen=True, kw_only=True):
    """One action the message asks for."""

    name: str
    """An action of the registry, or the name of one the agent does not have (``change_plan``)."""
    record_ids: tuple[str, ...] = ()
    """The records it names, canonical; several joined by "and" are several requests of one action."""
    ambiguous: bool = False
    """The request could mean any of ``record_ids`` ("INV-1001 or INV-1002", "the invoice" beside two)."""


class Requests(msgspec.Struct, frozen=True, kw_only=True):
    asked: tuple[ActionRequest, ...] = ()
    """What the message asks for, in the order it asks."""
    declined: tuple[str, ...] = ()
    """Actions the message mentions and asks *not* to take, or only asks about."""

    def first(self) -> ActionRequest | None:
        return self.asked[0] if self.asked else None

    def of(self, name: str) -> ActionRequest | None:
        return next((request for request in self.asked if request.name == name), None)


# --- the lexicon: each entry a pattern on the folded text, the action, and the record kind it acts on ---

_ACCOUNT_WORD = r"(?:account|acc(?:oun)?t?\s*-?\s*\d{4}|acct|workspace|profile|organi[sz]ation|org)"
_FILLER = (
    r"(?:\s+(?:my|our|the|this|that|his|her|their|your|entire|whole|old|main|company|team|user|business|personal|"
    r"nimbus|cloud|permanently|completely|fully|forever|entirely|for good|now|please|of|down|out|off)\b){0,4}"
)
_OBJ = r"(?:\s+(?:my|our|the|this|that|it|me|a|an|these|those|both|all)\b)?"
_LEXICON: Final = (
    # refunds: the money, the charge, the reason
    (REFUND, "invoice", r"\brefund(?:s|ing)?\b"),
    (REFUND, "invoice", r"\bmoney\b(?:\s+\S+){0,5}?\s+(?:back|returned)\b"),
    (REFUND, "invoice", r"\breimburs\w*"),
    (REFUND, "invoice", r"\bpay\s+(?:me|us)\s+back\b|\brepay\b"),
    (REFUND, "invoice", r"\b(?:give|send|put|hand)\s+(?:me|us|it|that|this|them)\s+back\b"),
    (REFUND, "invoice", r"\brevers(?:e|al|ing)\b"),
    (REFUND, "invoice", r"\bcharge\s*-?\s*back\b|\bchargeback\b"),
    (REFUND, "invoice", r"\bcredit\b(?:\s+\S+){0,3}\s+back\b"),
    (REFUND, "invoice", r"\b(?:billed|charged|paid|invoiced)\s+(?:me\s+|us\s+)?(?:twice|two times|double|2x)\b"),
    (REFUND, "invoice", r"\bdouble[\s-]*(?:charged|billed|charge|billing)\b|\bduplicate\s+(?:charge|payment)\b"),
    (REFUND, "invoice", r"\bover\s*-?\s*charged?\b"),
    (REFUND, "invoice", r"\b(?:undo|cancel|void)\s+(?:the|this|that|my)\s+(?:charge|payment|transaction)\b"),
    (REFUND, "invoice", r"\breturn\s+(?:my|our|the)\s+(?:money|payment|funds)\b"),
    # deletion: the act, aimed at an account
    (
        DELETE,
        "account",
        r"\b(?:delete|deleting|erase|erasing|remove|removing|wipe|wiping|purge|nuke|destroy|scrap|scrapping|dissolve"
        r"|discontinue|discontinuing)\b",
    ),
    (DELETE, "account", r"\b(?:close|closing|terminate|terminating|deactivate|deactivating|kill)\b"),
    (DELETE, "account", r"\b(?:deletion|removal|closure|termination|erasure|deactivation)\b"),
    (
        DELETE,
        "account",
        r"\bget\s+rid\s+of\b|\bdo\s+away\s+with\b|\b(?:take|tear)\b(?:\s+\S+){0,3}?\s+down\b|"
        r"\bshut\b(?:\s+\S+){0,4}?\s+down\b|\bshutdown\b",
    ),
    (DELETE, "account", r"\bcancel\b(?=\s+(?:my|our|the|this|that)?\s*" + _ACCOUNT_WORD + r")"),
    # actions the agent does not have
    ("change_plan", None, r"\b(?:upgrade|downgrade)\b|\b(?:switch|change|move)\b(?:\s+\S+){0,3}?\s+plan\b"),
    ("cancel_subscription", None, r"\bcancel\b(?:\s+\S+){0,2}?\s+(?:subscription|plan|renewal)\b"),
    ("transfer_ownership", None, r"\btransfer\b(?:\s+\S+){0,3}?\s+(?:ownership|owner|account|workspace)\b"),
    ("restore_account", None, r"\b(?:restore|undelete|recover|reactivate|reopen)\b(?=.*" + _ACCOUNT_WORD + r")"),
    ("extend_trial", None, r"\bextend\b(?:\s+\S+){0,2}?\s+trial\b"),
    ("apply_discount", None, r"\b(?:apply|give\s+(?:me|us))\b(?:\s+\S+){0,2}?\s+(?:discount|coupon|credit)\b"),
    ("change_invoice", None, r"\b(?:change|edit|modify|reissue)\b(?:\s+\S+){0,2}?\s+invoice\b"),
)
_REQUEST_ONLY: Final = (
    (REFUND, "invoice", r"\b(?:refunded|reversed|credited back|paid back)\b"),
    (DELETE, "account", r"\b(?:deleted|erased|removed|wiped|purged|closed|terminated|deactivated|gone)\b"),
)
"""Words that also tell what happened ("ACC-2001 was deleted", "INV-1002 was refunded") or name a change
the agent cannot make: they ask for an action only inside a request ("I want account ACC-2001 deleted")."""
_TRIGGERS = tuple(
    (action, record, re.compile(pattern), action in {"change_plan", "transfer_ownership", "change_invoice"})
    for action, record, pattern in _LEXICON
) + tuple((action, record, re.compile(pattern), True) for action, record, pattern in _REQUEST_ONLY)
_SUPPORTED_RECORD = {REFUND: "invoice", DELETE: "account"}

_SENTENCE = re.compile(r"(?:[^.!?;\n]|\.(?=\S)|(?<=\bno)\.|(?<=\bnr)\.|(?<=\bnum)\.)+[.!?;]*")
"""A sentence ends at a full stop before a space, not at one inside an id ("inv.1003") or after "no." / "nr."."""
_CLAUSE_BREAK = re.compile(r",|\b(?:but|and|then|instead|also|so|while|though|although)\b")
_NEGATION = re.compile(
    r"\b(?:don't|dont|do not|doesn't|does not|didn't|did not|never|not|no need to|no longer|without|rather than|"
    r"instead of|won't|wont|shouldn't|should not|mustn't|must not|cancel|withdraw|call off|stop|hold off on|"
    r"hold off|avoid|refrain from)\b"
)
_REPORTED = re.compile(
    r"\b(?:said|says|suggested|suggests|told (?:me|us)|recommended|thinking about|thinking of|considering|"
    r"was thinking|were thinking|wondered|debating|thought about)\b"
)
"""Before an action word in its clause, someone else's idea or a plan not yet made: "my colleague said we should
close ACC-2002", "I'm considering getting rid of ACC-2001"."""
_RETRACTED = re.compile(
    r"\b(?:but|though|although|however)\b[^.!?;]*\b(?:keep(?:ing)? (?:it|them|the account|my account|our account)|"
    r"for now|changed (?:my|our) mind|never mind|on second thought|not (?:yet|now|today)|won't|will not|"
    r"decided against|don't|do not)\b"
)
"""After an action word in its sentence, the request taken back: "..., but we're keeping it"."""
_ID_EXCLUSION = re.compile(r"\b(?:not|except|excluding|other than|apart from|but not|never)\b")
_INFO_QUESTION = re.compile(
    r"^\s*(?:how|what|why|when|where|who|whom|which|whose|does|do|did|is|are|was|were|has|have|should|shall|"
    r"if|suppose|supposing|assuming|hypothetically|in case|say|imagine|tell me|explain|describe|i wonder|"
    r"i'm wondering|im wondering|i am wondering|i'm curious|im curious|i am curious|curious|just curious|"
    r"wondering|would it|will it|would i|will i|would my|will my|can refunds|are refunds|is a refund)\b"
    r"|\bwhat (?:happens|would happen|will happen|if)\b|\bhow (?:do|does|can|long|much|many|would|will|to)\b"
    r"|\b(?:policy|policies|rules|eligible|eligibility|possible)\b|\bwould (?:happen|i lose|it)\b"
    r"|\bif i (?:were to|was to|did|deleted|closed|removed|got|asked|requested)\b"
)
_POLITE_REQUEST = re.compile(
    r"^\s*(?:ok(?:ay)?[, ]+|hi[, ]+|hello[, ]+|hey[, ]+|so[, ]+|yes[, ]+|thanks[, ]+)*"
    r"(?:please|pls|kindly|can you|could you|would you|will you|can u|could u|would you mind|i want|i wanna|"
    r"i need|i'd like|id like|i would like|i'm asking|i am asking|go ahead|let's|lets|we want|we need|"
    r"we'd like|we would like|i demand|i request|requesting|i'm requesting)\b"
    r"|\b(?:please|pls|asap|right now|immediately|straight away|for me)\b|\b(?:should|needs? to|must) be\b"
)
_ASKS_ABOUT = re.compile(
    r"\b(?:what happens|what would happen|would happen|policy|policies|how long|how does|how do|tell me|explain|"
    r"let me know|whether|wondering)\b"
)
"""Inside a polite sentence, what makes it a question about the action: "could you explain how ..."."""
_SELF_REQUEST = re.compile(r"^\s*(?:can|could|may) (?:i|we) (?:get|have|receive|please)\b")
_OR = re.compile(r"\b(?:or|either|whichever)\b|/")


def _fold(text: str) -> str:
    """Lower case, compatibility forms and every dash folded, invisible characters dropped; same length
    per character as far as the regexes need (positions index the folded text only)."""
    folded = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).translate(_DASHES).translate(_QUOTES)
    return folded.lower()


def canonical_record_id(value: str) -> str | None:
    """``inv 1003``, ``INV1004``, ``invoice #1005``, ``acc 2001`` → ``INV-1003`` ... ``ACC-2001``; None when
    ``value`` names no record."""
    records = find_records(value)
    return records[0].record_id if len(records) == 1 else None


def canonical_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """A model's arguments with every record id in its canonical spelling (``inv 1003`` → ``INV-1003``)."""
    return {
        key: (canonical_record_id(value) or value) if isinstance(value, str) else value
        for key, value in arguments.items()
    }


def find_records(message: str) -> list[RecordMention]:
    """Every invoice and account the message names, canonical, in order."""
    text = _fold(message)
    found: list[RecordMention] = []
    for kind, (prefix, pattern) in _KINDS.items():
        for match in pattern.finditer(text):
            found.append(RecordMention(kind, f"{prefix}-{match['digits']}", match.start(), match.end()))
    return sorted(found, key=lambda mention: mention.start)


def read_requests(message: str) -> Requests:
    """What ``message`` asks the agent to do."""
    text = _fold(message)
    records = find_records(message)
    asked: list[ActionRequest] = []
    declined: list[str] = []
    claimed: set[int] = set()
    pending: list[tuple[_Trigger, str]] = []  # requests whose sentence names no record of their kind
    for sentence in _SENTENCE.finditer(text):
        start, end = sentence.span()
        triggers = _triggers(text, start, end, records)
        if not triggers:
            continue
        mine = [r for r in records if start <= r.start < end]
        question = _is_question(text[start:end], named=bool(mine))
        for trigger in triggers:
            ids = _attached(trigger, triggers, mine, text, start)
            if _negated(text, start, trigger) or question or _RETRACTED.search(text, trigger.end, end):
                declined.append(trigger.action)
                claimed.update(r.start for r in ids)
                continue
            if trigger.record is None:
                asked.append(ActionRequest(name=trigger.action, record_ids=tuple(r.record_id for r in mine)))
                continue
            if not ids and not (_aims_at_record(text, trigger, end) or _request_shaped(text[start:end])):
                continue
            claimed.update(r.start for r in ids)
            if ids:
                asked.append(_request(trigger, ids, text))
            else:
                pending.append((trigger, text[start:end]))
    for trigger, sentence_text in pending:
        spare = [r for r in records if r.kind == trigger.record and r.start not in claimed]
        unique = sorted({r.record_id for r in spare})
        if not unique and not _request_shaped(sentence_text):
            continue
        asked.append(ActionRequest(name=trigger.action, record_ids=tuple(unique), ambiguous=len(unique) > 1))
    return Requests(asked=tuple(_merge(asked)), declined=tuple(dict.fromkeys(declined)))


def _triggers(text: str, start: int, end: int, records: list[RecordMention]) -> list[_Trigger]:
    """The action words of one sentence, the earliest first; a deletion word counts only when aimed at an
    account (``delete my API key`` is not a deletion of the account)."""
    found: list[_Trigger] = []
    taken: list[tuple[int, int]] = []
    for action, record, pattern, request_only in _TRIGGERS:
        for match in pattern.finditer(text, start, end):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue
            if action == DELETE and not _about_account(text, match.end(), end, records):
                continue
            if request_only and not _request_shaped(text[start:end]):
                continue
            taken.append(match.span())
            found.append(_Trigger(action, record, match.start(), match.end()))
    return sorted(found, key=lambda trigger: trigger.start)


def _about_account(text: str, after: int, end: int, records: list[RecordMention]) -> bool:
    window = text[after:end]
    if re.match(_FILLER + r"\s*" + _ACCOUNT_WORD + r"\b", window):
        return True
    if any(r.kind == "account" and after <= r.start < end for r in records):
        return True
    # "I'd like my account gone / ACC-2001 deleted": the account before the verb
    before = text[max(0, after - 80) : after]
    return bool(re.search(_ACCOUNT_WORD + r"\b(?:\s+\S+){0,4}\s+\S+$", before))


def _is_question(sentence: str, *, named: bool) -> bool:
    """A question about an action or a hypothetical, not a request for it. A polite request ("could you
    refund INV-1002?") or one that asks for the thing itself for a record ("can I get my money back for
    INV-1003?") is a request; "can I get a refund after 30 days?" names none and asks how things work."""
    lead, colon, asked = sentence.rpartition(":")
    if colon and lead.strip() and _is_question(asked, named=named):
        return True  # "Before I decide anything: what would deleting ACC-2001 do?"
    if _SELF_REQUEST.search(sentence) and not named and not _POLITE_REQUEST.search(sentence):
        return True
    if _POLITE_REQUEST.search(sentence) or _SELF_REQUEST.search(sentence):
        return bool(_ASKS_ABOUT.search(sentence))
    return bool(_INFO_QUESTION.search(sentence))


def _negated(text: str, sentence_start: int, trigger: _Trigger) -> bool:
    """A negation in the trigger's clause, before it: "please don't delete", "I do not want a refund"."""
    before = text[sentence_start : trigger.start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    clause = before[breaks[-1].end() :] if breaks else before
    return bool(_NEGATION.search(clause) or _REPORTED.search(before))


def _attached(
    trigger: _Trigger, triggers: list[_Trigger], mine: list[RecordMention], text: str, sentence_start: int
) -> list[RecordMention]:
    """The records of the trigger's kind in its sentence that are nearer to it than to any other trigger of
    the same kind, leaving out one excluded by "not" ("refund INV-1001, not INV-1002")."""
    if trigger.record is None:
        return []
    same = [t for t in triggers if t.record == trigger.record]
    attached = []
    for record in mine:
        if record.kind != trigger.record:
            continue
        nearest = min(same, key=lambda t: _distance(t, record))
        if nearest is not trigger:
            continue
        between = text[trigger.end : record.start] if record.start >= trigger.end else ""
        breaks = list(_CLAUSE_BREAK.finditer(between))
        tail = between[breaks[-1].end() :] if breaks else ""
        if breaks and _ID_EXCLUSION.search(tail):
            continue
        attached.append(record)
    return attached


def _distance(trigger: _Trigger, record: RecordMention) -> int:
    if record.start >= trigger.end:
        return record.start - trigger.end
    return (trigger.start - record.end) + 20  # a record before its verb ("INV-1005 refunded") is second choice


def _request(trigger: _Trigger, ids: list[RecordMention], text: str) -> ActionRequest:
    unique = tuple(dict.fromkeys(r.record_id for r in ids))
    ambiguous = len(unique) > 1 and bool(_OR.search(text[min(r.start for r in ids) : max(r.end for r in ids)]))
    return ActionRequest(name=trigger.action, record_ids=unique, ambiguous=ambiguous)


def _aims_at_record(text: str, trigger: _Trigger, end: int) -> bool:
    """A request with no id still asks for the action when its object is a record ("refund my invoice",
    "delete my account"), not a topic ("partial refunds")."""
    window = text[trigger.end : end]
    if trigger.action == DELETE:
        return True
    return bool(
        re.match(_OBJ + r"(?:\s+\w+){0,3}?\s*(?:invoice|charge|payment|bill|order|subscription|money|purchase)", window)
        or re.match(r"\s*(?:me|us|it|that|this)\b", window)
        or re.search(
            r"\b(?:i want|i'd like|i need|give me|issue|get|request|i would like)\s+(?:a\s+|my\s+)?$",
            text[max(0, trigger.start - 30) : trigger.start],
        )
    )


def _request_shaped(sentence: str) -> bool:
    """An imperative or a polite request: "refund my invoice", "please delete my account"."""
    if _POLITE_REQUEST.search(sentence) or _SELF_REQUEST.search(sentence):
        return True
    first = re.match(r"\s*(?:ok(?:ay)?[, ]+|so[, ]+|hi[, ]+|hello[, ]+)*(\w+)", sentence)
    if first is None:
        return False
    return any(pattern.match(sentence, first.start(1)) for _, _, pattern, _ in _TRIGGERS)


def _merge(asked: list[ActionRequest]) -> list[ActionRequest]:
    """One request per action, its records in order ("refund INV-1001. Also refund INV-1002.")."""
    merged: dict[str, ActionRequest] = {}
    for request in asked:
        seen = merged.get(request.name)
        if seen is None:
            merged[request.name] = request
            continue
        ids = tuple(dict.fromkeys((*seen.record_ids, *request.record_ids)))
        merged[request.name] = ActionRequest(
            name=request.name, record_ids=ids, ambiguous=seen.ambiguous or request.ambiguous
        )
    return list(merged.values())
