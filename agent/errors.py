"""The agent's errors: one base, ``AgentError``, so a caller can tell the agent's failures from a bug.

AgentError
├── ConfigError (ValueError)           agent.config: a setting that cannot be used; the message names it
│   ├── EncryptionKeyError             agent.stores.key_check: a key that does not fit the stores
│   │   └── PlainValuesError           plain values where a key is set
│   └── GraphLoadError                 agent.graphs: a registered graph that does not import or compile
├── StoreUnavailable (RuntimeError)    agent.stores: a shared store cannot be reached
├── SealError (RuntimeError)           agent.sealing: a stored value that must be sealed does not open
│   ├── PlainValueError, UnknownKeyError, TamperedError
├── LLMError                           agent.llm.errors: a provider failed (``code``, ``retryable``)
│   ├── ProviderUnavailable, ProviderStreamFailed, ProviderRejected
├── LocalServerError (RuntimeError)    agent.llm.local_server: the bundled model's server did not start
└── DatasetError, ReportError, GateConfigError (ValueError)   agent.evaluation
"""

from __future__ import annotations

__all__ = ("AgentError",)


class AgentError(Exception):
    """Raised by the agent for a failure it knows how to name; anything else is a bug."""
