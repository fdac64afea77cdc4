"""The learned layer of the input guardrail: a linear model over hashed character and word n-grams.

It reads what the rules read (``normalize``: confusables, invisible characters, leetspeak and spacing
undone, base64 runs decoded), plus two readings the rules do not make: hex runs decoded and the whole
message read as ROT13, in the same feature space, so an encoded attack lights up the features its plain
text would. Features are character 3- to 5-grams and word 1- and 2-grams, hashed (CRC-32, the same on any
machine) into ``2**BITS`` buckets; a message's score is the mean weight of its distinct buckets over the
square root of their number (at least ``_MIN_BUCKETS``), plus a bias. Two heads: ``attack`` (an attack
against a benign message) decides, with the threshold stored beside the weights; ``secret`` (a request for
secrets against an injection) names the reason code. Pure Python: the guardrail needs nothing beyond the
standard library.

The weights (``learned_weights.json``) are made by ``python -m agent.evaluation.guardrail_training``
from data the repository makes (the red-team generator's variants of its seeds and look-alikes, and the
knowledge base's own questions and sentences); the threshold was chosen on seeds held out of training. A
refusal says ``layer="classifier"`` and ``rule="classifier"``, so it is never mistaken for a rule's. It is
run by ``check_input`` after the rules, on what they allow (ADR 43).
"""

from __future__ import annotations

import base64
import codecs
import itertools
import math
import re
import sys
import zlib
from array import array
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent.guardrails.normalize import normalize

if TYPE_CHECKING:
    from agent.guardrails.normalize import NormalizedText
    from agent.guardrails.reasons import RefusalReason

__all__ = (
    "BITS",
    "WEIGHTS_FILE",
    "LearnedWeights",
    "decode_head",
    "encode_head",
    "feature_indices",
    "learned_reason",
    "margins",
    "readings",
    "score",
)

BITS = 17
WEIGHTS_FILE = Path(__file__).with_name("learned_weights.json")
_MASK = (1 << BITS) - 1
_CHAR_NGRAMS = (3, 4, 5)
_HEX_RUN = re.compile(r"(?:[0-9a-f]{2}){8,}")
_WORD = re.compile(r"[a-z0-9']+")
_MIN_BUCKETS = 200
"""A message with fewer distinct buckets is scored as if it had this many: one or two words ("orders") would
otherwise be decided by a single heavy n-gram; a message this short is left to the rules."""
_MIN_WORDS = 4
"""The classifier decides only a message with this many words in one of its readings (decoded payloads count):
"configuration", "Earlier answer." or an identifier such as ``output_tokens`` scored above the threshold, and a
message this short is left to the rules."""
_LONG_RUN = re.compile(r"[a-z0-9+/=]{24,}")
"""A run of letters and digits too long for a word: an encoded payload, read through its decoding instead."""


class LearnedWeights(msgspec.Struct, frozen=True, kw_only=True):
    bits: int
    scale: float
    """A weight is its stored int16 times ``scale``."""
    attack: str
    """The attack head's weights: base64 of little-endian int16, one per bucket."""
    attack_bias: float
    secret: str
    secret_bias: float
    threshold: float
    """The attack probability at and above which a message is refused."""
    command: str
    """The command that made this file."""
    figures: dict[str, float] = msgspec.field(default_factory=dict)
    """What the training measured on its held-out split (recall, false-refusal rate, sizes)."""


def readings(text: NormalizedText) -> list[str]:
    """The texts the features are read from: the rules' readings, decoded runs, hex decoded, and ROT13."""
    out = [_LONG_RUN.sub(" ", words) for words in text.words]
    out += text.decoded
    lowered = text.raw.lower()
    for run in _HEX_RUN.findall(lowered):
        data = bytes.fromhex(run)
        if sum(32 <= byte < 127 for byte in data) >= 0.95 * len(data):
            out.extend(normalize(data.decode("ascii", errors="ignore")).words[:1])
    out.append(codecs.decode(out[0], "rot13"))
    return out


def feature_indices(text: NormalizedText) -> frozenset[int]:
    """The distinct buckets of the message's n-grams."""
    buckets: set[int] = set()
    for reading in readings(text):
        data = f" {reading} ".encode()
        for n in _CHAR_NGRAMS:
            buckets.update(zlib.crc32(data[i : i + n]) & _MASK for i in range(len(data) - n + 1))
        words = _WORD.findall(reading)
        buckets.update(zlib.crc32(f"w:{word}".encode()) & _MASK for word in words)
        buckets.update(zlib.crc32(f"b:{a} {b}".encode()) & _MASK for a, b in itertools.pairwise(words))
    return frozenset(buckets)


class _Model(msgspec.Struct, frozen=True):
    attack: array[int]
    attack_bias: float
    secret: array[int]
    secret_bias: float
    scale: float
    threshold: float


def decode_head(encoded: str) -> array[int]:
    """A head's int16 weights from their base64 (little-endian)."""
    head = array("h")
    head.frombytes(base64.b64decode(encoded))
    if sys.byteorder != "little":
        head.byteswap()
    return head


def encode_head(head: array[int]) -> str:
    """A head's int16 weights as base64 (little-endian), as the weights file stores them."""
    data = array("h", head)
    if sys.byteorder != "little":
        data.byteswap()
    return base64.b64encode(data.tobytes()).decode("ascii")


@cache
def _model() -> _Model:
    weights = msgspec.json.decode(WEIGHTS_FILE.read_bytes(), type=LearnedWeights)
    if weights.bits != BITS:
        raise ValueError(f"{WEIGHTS_FILE.name} has {weights.bits} bits, the features {BITS}")
    return _Model(
        decode_head(weights.attack),
        weights.attack_bias,
        decode_head(weights.secret),
        weights.secret_bias,
        weights.scale,
        weights.threshold,
    )


def margins(index: frozenset[int], attack: array[int], secret: array[int], scale: float) -> tuple[float, float]:
    """The two heads' weighted sums over the buckets, before their biases."""
    norm = scale / math.sqrt(max(len(index), _MIN_BUCKETS))
    return sum(attack[i] for i in index) * norm, sum(secret[i] for i in index) * norm


def score(text: NormalizedText) -> tuple[float, float]:
    """The attack probability and the secret-request probability of the message."""
    model = _model()
    attack, secret = margins(feature_indices(text), model.attack, model.secret, model.scale)
    return _sigmoid(attack + model.attack_bias), _sigmoid(secret + model.secret_bias)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def learned_reason(text: NormalizedText) -> RefusalReason | None:
    """The reason to refuse when the attack head reaches the threshold (named by the secret head), else ``None``."""
    if max(len(_WORD.findall(reading)) for reading in readings(text)) < _MIN_WORDS:
        return None
    attack, secret = score(text)
    if attack < _model().threshold:
        return None
    return "secret_request" if secret >= 0.5 else "prompt_injection"
