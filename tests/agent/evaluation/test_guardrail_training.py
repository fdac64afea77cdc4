"""The learned guardrail's weights are what the training command makes: retraining reproduces them exactly."""

from __future__ import annotations

from agent.evaluation.guardrail_training import BENIGN_QUANTILE, COMMAND, encode, examples, train
from agent.guardrails.learned import WEIGHTS_FILE, LearnedWeights


def test_retraining_reproduces_the_committed_weights_byte_for_byte() -> None:
    weights = train(examples())

    assert encode(weights) == WEIGHTS_FILE.read_bytes(), f"run `{COMMAND}` and commit {WEIGHTS_FILE.name}"


def test_the_weights_file_is_small_and_names_its_command() -> None:
    import msgspec

    weights = msgspec.json.decode(WEIGHTS_FILE.read_bytes(), type=LearnedWeights)

    assert WEIGHTS_FILE.stat().st_size < 2_000_000
    assert weights.command == COMMAND
    held_out_benign = weights.figures["held_out_messages"] - weights.figures["held_out_attacks"]
    assert weights.figures["held_out_false_refusals"] <= (1 - BENIGN_QUANTILE) * held_out_benign
    assert 0.5 < weights.threshold < 1


def test_the_held_out_part_shares_no_seed_with_the_training_part() -> None:
    data = examples()
    by_text = {"knowledge_base", "technical_prose"}
    held = {e.seed for e in data if e.held_out and e.seed not in by_text}

    assert held
    assert not held & {e.seed for e in data if not e.held_out}
    assert not {e.text for e in data if e.held_out and e.seed in by_text} & {
        e.text for e in data if not e.held_out and e.seed in by_text
    }
