from __future__ import annotations

import base64

import pytest
from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

from agent.config import AgentConfig, ConfigError
from agent.encryption import EncryptionKey, checkpoint_serde, parse_key
from agent.sealing import PlainValueError, Sealer

SECRET = bytes(range(32))


@pytest.mark.parametrize(
    "written",
    [
        SECRET.hex(),
        SECRET.hex().upper(),
        base64.b64encode(SECRET).decode(),
        base64.urlsafe_b64encode(SECRET).decode().rstrip("="),
        f"  {base64.b64encode(SECRET).decode()}\n",
    ],
)
def test_a_key_is_32_bytes_in_hex_or_base64(written: str) -> None:
    assert parse_key(written) == EncryptionKey(SECRET)


@pytest.mark.parametrize(
    "written", ["hunter2-hunter2", SECRET.hex()[:-2], base64.b64encode(SECRET[:16]).decode(), "x" * 64]
)
def test_a_malformed_key_is_a_config_error_that_never_repeats_it(written: str) -> None:
    with pytest.raises(ConfigError, match="HARNESS_ENCRYPTION_KEY must be 32 bytes") as raised:
        AgentConfig.from_env({"HARNESS_ENCRYPTION_KEY": written})
    assert written not in str(raised.value)


def test_no_key_means_no_encryption_and_a_key_never_shows_in_a_repr() -> None:
    assert AgentConfig.from_env({}).encryption_key is None
    assert AgentConfig.from_env({"HARNESS_ENCRYPTION_KEY": " "}).encryption_key is None
    assert checkpoint_serde(None) is None
    config = AgentConfig.from_env({"HARNESS_ENCRYPTION_KEY": SECRET.hex()})
    assert SECRET.hex() not in repr(config)
    assert "EncryptionKey(<hidden>)" in repr(config)


def test_the_serializer_seals_values_reads_those_of_earlier_versions_and_refuses_plain_ones() -> None:
    serde = checkpoint_serde(Sealer(EncryptionKey(SECRET)))
    assert serde is not None
    value_type, sealed = serde.dumps_typed({"text": "How do I reset my password?"})

    assert value_type == "msgpack+aesgcm"
    assert b"reset my password" not in sealed
    assert serde.loads_typed((value_type, sealed)) == {"text": "How do I reset my password?"}
    earlier = EncryptedSerializer.from_pycryptodome_aes(key=SECRET).dumps_typed({"text": "sealed by LangGraph"})
    assert earlier[0] == "msgpack+aes"
    assert serde.loads_typed(earlier) == {"text": "sealed by LangGraph"}
    plain = serde.serde.dumps_typed({"text": "written before the key"})
    with pytest.raises(PlainValueError):
        serde.loads_typed(plain)
