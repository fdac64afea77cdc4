"""The agent's errors: one base, ``AgentError``, so a caller can tell the agent's failures from a bug.

AgentError
├── ConfigError (ValueError)           agent.config: a setting that cannot be used; the message names it
│   ├── EncryptionKeyError             agent.stores.key_check: a key that does not fit the stores
│   │   └── PlainValuesError           plain values where a key is set
│   ├── GraphLoadError                 agent.graphs: registered graphs that do not import or compile
│   └── GraphFailure                   one of them, as the summary's line names it
├── StoreUnavailable (RuntimeError)    agent.stores: a shared store cannot be reached
├── StoreError (ValueError)            agent.stores.graph_store: the long-term store cannot do what it was asked
│   └── StoreIndexUnconfigured, StoreIndexFailed, StoreReservedField, StoreOutsideRun
├── SealError (RuntimeError)           agent.sealing: a stored value that must be sealed does not open
│   └── PlainValueError, UnknownKeyError, TamperedError
├── LLMError                           agent.llm.errors: a provider failed (``code``, ``retryable``)
│   └── ProviderUnavailable, ProviderStreamFailed, ProviderRejected
├── LocalServerError (RuntimeError)    agent.llm.local_server: the bundled model's server did not start
└── DatasetError, ReportError, GateConfigError, CaptureError, CalibrationError (ValueError)   agent.evaluation
"""

from __future__ import annotations

__all__ = ("AgentError",)


class AgentError(Exception):
    """Raised by the agent for a failure it knows how to name; anything else is a bug."""
