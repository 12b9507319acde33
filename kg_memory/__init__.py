"""kgmem: a bitemporal knowledge-graph memory for AI agents.

Importing this package has no side effects: no environment is read and no
connection is opened until you call :meth:`Memory.open`."""

from .core.models import Entity, Episode, FactVersion, RecallResult
from .core.timeutil import FixedClock, SystemClock
from .errors import (
    ConfigError,
    ExtractionError,
    FlushTimeout,
    InputError,
    KgMemError,
    ModelMissingError,
    NotFoundError,
    SchemaError,
    StoreError,
    UnsafeIdentifierError,
)
from .memory import AsyncMemory, Memory
from .settings import Settings, data_dir, load_settings

__version__ = "0.1.0"
__all__ = [
    "AsyncMemory", "ConfigError", "Entity", "Episode", "ExtractionError", "FactVersion", "FixedClock", "FlushTimeout",
    "InputError", "KgMemError", "Memory", "ModelMissingError", "NotFoundError", "RecallResult", "SchemaError",
    "Settings", "StoreError", "SystemClock", "UnsafeIdentifierError", "data_dir", "load_settings",
]
