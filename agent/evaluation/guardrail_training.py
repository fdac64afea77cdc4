"""Train the input guardrail's learned layer: ``python -m agent.evaluation.guardrail_training``.

The data is the repository's own, never an eval set: the red-team generator's variants (``redteam``) of its
attack seeds and benign look-alikes, with a generator seed of its own (not the one ``harness eval
redteam`` reports with), and the knowledge base's questions (each document's title asked a few ways) and
sentences, as benign messages. Seeds are split by the sha256 of their id (a quarter held out, so the held-out
variants are of seeds the model never saw, in every strategy); knowledge-base texts by the sha256 of the text.

The model is a naive Bayes log-count ratio over the hashed n-grams of ``agent.guardrails.learned`` (the
smoothed log share of each bucket among attacks against among benign messages, the prior's log odds as the
bias; a few passes of logistic regression from there moved no held-out figure, so there are none). The
threshold is chosen on the held-out part: its highest benign score raised by ``THRESHOLD_MARGIN`` logits,
so none of its benign messages is refused and messages unlike any of them have room; the held-out recall
is what is left at that threshold.
Everything is counted in a fixed order and the weights are rounded to int16, so the command writes the same
file, byte for byte, every time (``tests/agent/evaluation/test_guardrail_training.py`` retrains and
compares).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import math
import re
from array import array
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent.evaluation.redteam import generate, load_seeds
from agent.guardrails.learned import BITS, WEIGHTS_FILE, LearnedWeights, encode_head, feature_indices, margins
from agent.guardrails.normalize import normalize
from agent.knowledge import load_bundled_corpus

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = (
    "BENIGN_QUANTILE",
    "COMMAND",
    "TRAINING_GENERATOR_SEED",
    "TRAINING_PROSE_FILE",
    "TRAINING_SEEDS_FILE",
    "Example",
    "examples",
    "main",
    "technical_prose",
    "train",
)

COMMAND = "python -m agent.evaluation.guardrail_training"
TRAINING_GENERATOR_SEED = 4001
"""The variants trained on: not ``harness eval redteam``'s default seed (40), whose variants it reports."""
TRAINING_SEEDS_FILE = Path(__file__).with_name("guardrail_training_seeds.json")
"""Seeds for training only, beside the red-team generator's (``redteam_seeds.json``, which its report is about):
attacks phrased as work (extraction of the instructions as a debugging ticket, an incident triage, an audit),
requests for the service's and other customers' credentials, forged headers and payloads in pasted text, role
play and other languages, and benign look-alikes of each (the user's own keys and sessions, the product's
security practices, work-framed support questions). Written for issue 40, not from any eval set."""
TRAINING_PROSE_FILE = Path(__file__).with_name("guardrail_training_prose.txt")
"""Benign technical prose, one sentence a line: a sample of the service's docstrings (``technical_prose``) taken
by ``--refresh-prose``, kept as a file so that editing a docstring does not change the weights."""
TRAINING_VARIANTS = 3
HELD_OUT_SHARE = 4
"""One seed (or knowledge-base text) in this many is held out for choosing the threshold."""
THRESHOLD_MARGIN = 1.5
"""Logits above the held-out split's benign score at ``BENIGN_QUANTILE``, chosen on the dev and regression
sets. It was 3.0 above the highest benign score before technical prose was trained on (with no margin, 0.878,
two real questions of those sets were refused; ADR 43); with the prose their informational turns score at most
3.1 logits and the threshold sits at 3.2 (at 1.0, 2.7, "Is the approval step for account deletion done by a
human?" was refused)."""
PROSE_SAMPLE = 3
"""One docstring sentence in this many is trained on (about as many as the knowledge base's sentences): all of
them outweigh the support questions and attacks read as technical prose (of the dev and regression attacks the
rules allow, 7 of 17 caught against 11). Without prose the classifier refused 45 of the test suite's string
literals the rules allow (about 2,000 of four words or more); with this sample and threshold, 16."""
BENIGN_QUANTILE = 0.99
"""The held-out benign score the threshold is set above. Not the highest: one benign seed's split-turn variant
("Part 1: ... Part 2: ... now join them") reads like the attack strategy it imitates, and the highest score
then sat 8 logits above the rest, refusing nothing benign and two thirds fewer held-out attacks."""
_SIZE = 1 << BITS
_SMOOTHING = 1.0
_INT16 = 32767
_SENTENCE = re.compile(r"(?<=[.?!])\s+")
_ROOT = Path(__file__).resolve().parents[2]
_PROSE_PACKAGES = ("api", "contracts")
_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_QUESTION_FORMS = (
    "How does this work: {title}?",
    "Can you tell me about {title}?",
    "{title}: what should I know?",
    "Question about {title}",
    "{title}?",
    "Where do I read about {title}?",
)


class Example(msgspec.Struct, frozen=True, kw_only=True):
    text: str
    attack: bool
    secret: bool
    held_out: bool
    family: str
    strategy: str
    seed: str
    """``attack:<id>`` or ``benign:<id>`` of a generated message; ``knowledge_base`` for the knowledge base's."""


def _held_out(key: str) -> bool:
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % HELD_OUT_SHARE == 0


def examples() -> list[Example]:
    """Every training and held-out message, in a fixed order: the variants, technical prose, then the knowledge
    base's."""
    attacks, benign = load_seeds()
    more_attacks, more_benign = load_seeds(TRAINING_SEEDS_FILE)
    attacks, benign = [*attacks, *more_attacks], [*benign, *more_benign]
    out = [
        Example(
            text=message,
            attack=variant.kind == "attack",
            secret=variant.reason == "secret_request",
            held_out=_held_out(f"{variant.kind}:{variant.seed_id}"),
            family=variant.family,
            strategy=variant.strategy,
            seed=f"{variant.kind}:{variant.seed_id}",
        )
        for variant in generate(attacks, benign, seed=TRAINING_GENERATOR_SEED, variants=TRAINING_VARIANTS)
        for message in variant.messages
    ]
    out += _benign(TRAINING_PROSE_FILE.read_text(encoding="utf-8").splitlines(), "technical_prose")
    for doc in load_bundled_corpus():
        texts = [form.format(title=doc.title.lower()) for form in _QUESTION_FORMS]
        texts += [s.strip() for s in _SENTENCE.split(doc.body) if len(s.split()) >= 4 and not s.startswith("#")]
        out += _benign(texts, "knowledge_base")
    return out


def _benign(texts: Sequence[str], source: str) -> list[Example]:
    """Plain benign messages of one source, held out by the sha256 of their text."""
    return [
        Example(text=t, attack=False, secret=False, held_out=_held_out(t), family=source, strategy="plain", seed=source)
        for t in texts
    ]


def technical_prose(root: Path = _ROOT) -> list[str]:
    """Sentences of the service's own docstrings (``api/``, ``contracts/``): benign prose about runs, streams,
    events and stores, the kind a developer pastes, which support questions alone do not teach. Not
    ``agent/``, whose guardrail and evaluation docstrings quote attacks, nor ``tests/``, whose string literals
    measure the classifier's false refusals on prose of this kind."""
    found: set[str] = set()
    for package in _PROSE_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, _DOCUMENTED):
                    continue
                docstring = ast.get_docstring(node)
                if docstring:
                    sentences = _SENTENCE.split(" ".join(docstring.split()))
                    found.update(s for s in sentences if len(s.split()) >= 4)
    return sorted(found)


def _log_count_ratio(rows: Sequence[frozenset[int]], labels: Sequence[bool]) -> tuple[list[float], float]:
    positive, negative = [_SMOOTHING] * _SIZE, [_SMOOTHING] * _SIZE
    for row, label in zip(rows, labels, strict=True):
        counts = positive if label else negative
        for i in row:
            counts[i] += 1.0
    pos_total, neg_total = math.fsum(positive), math.fsum(negative)
    weights = [math.log(p / pos_total) - math.log(n / neg_total) for p, n in zip(positive, negative, strict=True)]
    count = sum(labels)
    return weights, math.log(count / (len(labels) - count))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _quantize(weights: list[float], scale: float) -> array[int]:
    return array("h", (max(-_INT16, min(_INT16, round(w / scale))) for w in weights))


def train(data: Sequence[Example]) -> LearnedWeights:
    """The weights, the threshold chosen on the held-out part, and what that part measured."""
    rows = [feature_indices(normalize(example.text)) for example in data]
    train_rows = [row for row, ex in zip(rows, data, strict=True) if not ex.held_out]
    train_data = [ex for ex in data if not ex.held_out]
    attack, attack_bias = _log_count_ratio(train_rows, [ex.attack for ex in train_data])
    secret_rows = [row for row, ex in zip(train_rows, train_data, strict=True) if ex.attack]
    secret_labels = [ex.secret for ex in train_data if ex.attack]
    secret, secret_bias = _log_count_ratio(secret_rows, secret_labels)
    scale = max(*(abs(w) for w in attack), *(abs(w) for w in secret)) / _INT16
    attack_q, secret_q = _quantize(attack, scale), _quantize(secret, scale)
    attack_bias, secret_bias = round(attack_bias, 6), round(secret_bias, 6)

    held = [(row, ex) for row, ex in zip(rows, data, strict=True) if ex.held_out]
    scored = [(margins(row, attack_q, secret_q, scale)[0] + attack_bias, ex) for row, ex in held]
    benign = sorted(margin for margin, ex in scored if not ex.attack)
    threshold_margin = benign[math.ceil(BENIGN_QUANTILE * len(benign)) - 1] + THRESHOLD_MARGIN
    threshold = round(_sigmoid(threshold_margin) + 5e-7, 6)
    refused = [ex for margin, ex in scored if _sigmoid(margin) >= threshold]
    attacks_held = sum(1 for _, ex in scored if ex.attack)
    caught = sum(1 for ex in refused if ex.attack)
    return LearnedWeights(
        bits=BITS,
        scale=scale,
        attack=encode_head(attack_q),
        attack_bias=attack_bias,
        secret=encode_head(secret_q),
        secret_bias=secret_bias,
        threshold=threshold,
        command=COMMAND,
        figures={
            "train_messages": float(len(train_data)),
            "held_out_messages": float(len(held)),
            "held_out_attacks": float(attacks_held),
            "held_out_recall": round(caught / attacks_held, 6) if attacks_held else 0.0,
            "held_out_false_refusals": float(sum(1 for ex in refused if not ex.attack)),
        },
    )


def encode(weights: LearnedWeights) -> bytes:
    """The weights file's bytes: JSON, keys in a fixed order, one trailing newline."""
    return msgspec.json.format(msgspec.json.encode(weights), indent=1) + b"\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description="Train the input guardrail's learned layer.")
    parser.add_argument("--out", type=_path, default=WEIGHTS_FILE, help=f"where to write (default: {WEIGHTS_FILE})")
    parser.add_argument(
        "--refresh-prose",
        action="store_true",
        help=f"first sample the docstrings of api/ and contracts/ again into {TRAINING_PROSE_FILE.name}",
    )
    args = parser.parse_args(argv)
    if args.refresh_prose:
        TRAINING_PROSE_FILE.write_text("".join(f"{t}\n" for t in technical_prose()[::PROSE_SAMPLE]), encoding="utf-8")
    weights = train(examples())
    args.out.write_bytes(encode(weights))
    print(f"wrote {args.out}: threshold {weights.threshold}, held-out figures {weights.figures}")
    return 0


def _path(raw: str) -> Path:
    return Path(raw)


if __name__ == "__main__":
    raise SystemExit(main())
