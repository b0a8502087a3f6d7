"""rbc as a reconchess bot file, for `rc-bot-match`, `rc-play` and `rc-connect`:

    rc-bot-match bridge/python/rbc_bot.py reconchess.bots.random_bot
    rc-connect <username> bridge/python/rbc_bot.py

reconchess's loader imports this file and takes the one Player subclass defined
in it (`get_player` names it explicitly). The binary and its options come from
the environment: RBC_BIN, RBC_ARGS (e.g. "--engine builtin --memory 1GiB"),
RBC_SECONDS and RBC_INCREMENT (the clock, default 900 + 5).
"""

import os
import sys

# Importable without `pip install`: the package sits next to this file.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rbc_reconchess  # noqa: E402  (imported as a module so that only RbcBot is a Player here)


class RbcBot(rbc_reconchess.RbcPlayer):
    """The rbc engine with its settings taken from the environment."""


def get_player():
    return RbcBot
