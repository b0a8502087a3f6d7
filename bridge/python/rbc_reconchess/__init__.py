"""reconchess bridge to the rbc engine: `RbcPlayer` runs `rbc track` as a child
process and relays every reconchess callback to it (see docs/protocol.md)."""

from .process import (
    RbcError,
    RbcPipeError,
    RbcProcessError,
    TrackProcess,
    build_track_args,
    find_rbc_binary,
)
from .player import DEFAULT_INCREMENT, DEFAULT_SECONDS, RbcPlayer

__version__ = "0.1.0"

__all__ = [
    "RbcPlayer",
    "RbcError",
    "RbcPipeError",
    "RbcProcessError",
    "TrackProcess",
    "build_track_args",
    "find_rbc_binary",
    "DEFAULT_SECONDS",
    "DEFAULT_INCREMENT",
]
