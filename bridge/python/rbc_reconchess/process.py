"""The child process `rbc track` and its JSON-lines pipe (see docs/protocol.md)."""

import atexit
import collections
import json
import os
import shlex
import shutil
import subprocess
import threading
import weakref
from pathlib import Path
from typing import Dict, List, Optional, Sequence

__all__ = [
    "RbcError",
    "RbcPipeError",
    "RbcProcessError",
    "TrackProcess",
    "find_rbc_binary",
    "build_track_args",
]

# Lines of stderr kept for error messages.
STDERR_TAIL_LINES = 40
# Seconds to wait for `rbc track` to exit after its stdin is closed.
CLOSE_TIMEOUT = 5.0


class RbcError(RuntimeError):
    """Any failure of the rbc bridge."""


class RbcPipeError(RbcError):
    """`rbc track` answered a line with ``{"error": ..., "line": K}``.

    ``message`` is the engine's message, ``line`` the input line number it
    reported and ``request`` the object that was sent.
    """

    def __init__(self, message: str, line: Optional[int], request: dict):
        self.message = message
        self.line = line
        self.request = request
        super().__init__(
            "rbc track rejected line {}: {} (request: {})".format(
                line, message, json.dumps(request, separators=(",", ":"))
            )
        )


class RbcProcessError(RbcError):
    """`rbc track` died, closed its output or wrote something that is not a reply."""

    def __init__(self, what: str, returncode: Optional[int], stderr: str):
        self.returncode = returncode
        self.stderr = stderr
        msg = "{} (exit code {})".format(what, returncode)
        if stderr.strip():
            msg += "; stderr tail:\n" + stderr.rstrip()
        super().__init__(msg)


def _repo_binary() -> Optional[Path]:
    """target/release/rbc of the repository this package sits in, if built."""
    here = Path(__file__).resolve()
    # bridge/python/rbc_reconchess/process.py -> the repository root is parents[3]
    if len(here.parents) < 4:
        return None
    candidate = here.parents[3] / "target" / "release" / "rbc"
    if candidate.is_file() and os.access(str(candidate), os.X_OK):
        return candidate
    return None


def find_rbc_binary(explicit: Optional[str] = None) -> str:
    """The `rbc` executable: `explicit`, else $RBC_BIN, else `rbc` on PATH,
    else the repository's target/release/rbc next to this package."""
    for source, value in (("argument", explicit), ("RBC_BIN", os.environ.get("RBC_BIN"))):
        if value:
            path = shutil.which(value) if os.sep not in value else value
            if path is None or not os.path.isfile(path):
                raise RbcError("rbc binary from {} not found: {!r}".format(source, value))
            return os.path.abspath(path)
    on_path = shutil.which("rbc")
    if on_path:
        return on_path
    repo = _repo_binary()
    if repo is not None:
        return str(repo)
    raise RbcError(
        "rbc binary not found: set RBC_BIN, put `rbc` on PATH or run "
        "`cargo build --release -p rbc-cli` in the repository"
    )


# Options of `rbc track` that take one value, and options that exclude each other.
_VALUE_OPTIONS = ("--color", "--capacity", "--memory", "--seed", "--engine", "--stockfish")
_CONFLICTS = {"--capacity": ("--memory",), "--memory": ("--capacity",)}


def _strip_option(args: List[str], option: str) -> List[str]:
    out = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == option:
            skip = True
            continue
        if arg.startswith(option + "="):
            continue
        out.append(arg)
    return out


def build_track_args(
    env_args: Optional[str] = None,
    extra_args: Sequence[str] = (),
    **options: object,
) -> List[str]:
    """Arguments after `rbc track`.

    `env_args` (default: $RBC_ARGS, split like a shell) come first;
    `extra_args` are appended as given; each keyword option that is not None
    (``engine="builtin"``, ``capacity=100000``, ``memory="256MiB"``, ``seed=3``,
    ``stockfish="/usr/games/stockfish"``, ``color="white"``) replaces the same
    option (and a conflicting one: --capacity vs --memory) from the earlier
    sources, since `rbc track` refuses an option given twice.
    """
    if env_args is None:
        env_args = os.environ.get("RBC_ARGS", "")
    args = shlex.split(env_args) + list(extra_args)
    for key, value in options.items():
        if value is None:
            continue
        option = "--" + key.replace("_", "-")
        if option not in _VALUE_OPTIONS:
            raise TypeError("unknown rbc track option {!r}".format(key))
        for drop in (option,) + _CONFLICTS.get(option, ()):
            args = _strip_option(args, drop)
        args += [option, str(value)]
    return args


_LIVE: "weakref.WeakSet[TrackProcess]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for proc in list(_LIVE):
        try:
            proc.close()
        except Exception:  # pragma: no cover - best effort at exit
            pass


class TrackProcess:
    """One `rbc track` child: send a request object, get its reply object."""

    def __init__(self, argv: Sequence[str], env: Optional[Dict[str, str]] = None):
        self.argv = list(argv)
        self._stderr_tail: "collections.deque[str]" = collections.deque(maxlen=STDERR_TAIL_LINES)
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                close_fds=True,
            )
        except OSError as e:
            raise RbcError("cannot start {}: {}".format(" ".join(self.argv), e)) from e
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()
        self.lines_sent = 0
        _LIVE.add(self)

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def returncode(self) -> Optional[int]:
        return self._proc.poll()

    def alive(self) -> bool:
        return self._proc.poll() is None

    def stderr_tail(self) -> str:
        return "".join(self._stderr_tail)

    def _drain_stderr(self) -> None:
        stream = self._proc.stderr
        try:
            for line in stream:
                self._stderr_tail.append(line)
        except (OSError, ValueError):
            pass

    def _died(self, what: str) -> RbcProcessError:
        try:
            code = self._proc.wait(timeout=CLOSE_TIMEOUT)
        except subprocess.TimeoutExpired:
            code = None
        self._stderr_thread.join(timeout=1.0)
        return RbcProcessError(what, code, self.stderr_tail())

    def request(self, obj: dict) -> dict:
        """Send one object and return the reply; raise RbcPipeError on an
        error reply and RbcProcessError if the process is gone."""
        line = json.dumps(obj, separators=(",", ":"))
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died("rbc track is not running (writing {})".format(line)) from None
        self.lines_sent += 1
        reply_line = self._proc.stdout.readline()
        if not reply_line:
            raise self._died("rbc track ended without answering {}".format(line))
        try:
            reply = json.loads(reply_line)
        except ValueError:
            raise RbcProcessError(
                "rbc track wrote a line that is not JSON: {!r}".format(reply_line[:200]),
                self.returncode,
                self.stderr_tail(),
            ) from None
        if not isinstance(reply, dict):
            raise RbcProcessError(
                "rbc track wrote a reply that is not an object: {!r}".format(reply_line[:200]),
                self.returncode,
                self.stderr_tail(),
            )
        if "error" in reply:
            raise RbcPipeError(str(reply["error"]), reply.get("line"), obj)
        return reply

    def close(self, timeout: float = CLOSE_TIMEOUT) -> Optional[int]:
        """End the process (close its input, wait, kill if it hangs); return its exit code."""
        proc = self._proc
        if proc.poll() is None:
            try:
                proc.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        self._stderr_thread.join(timeout=1.0)
        try:
            proc.stderr.close()
        except (OSError, ValueError):
            pass
        _LIVE.discard(self)
        return proc.returncode

    def __del__(self) -> None:
        try:
            if self._proc.poll() is None:
                self.close(timeout=1.0)
        except Exception:
            pass
