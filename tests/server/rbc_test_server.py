#!/usr/bin/env python3
"""A local stand-in for the reconchess server, for testing `rbc connect` and
`rbc play-remote`.

It serves the HTTP API that reconchess 1.6.9's `RemoteGame` and `rc-connect`
use (paths, methods, bodies and answer fields as they send and read them),
with reconchess's own `LocalGame` as the arbiter and reconchess's bots
(RandomBot, AttackerBot) as the opponents, each opponent on its own thread.
Values are encoded with reconchess's `ChessJSONEncoder` (game histories with
`GameHistoryEncoder`), so the client sees exactly what reconchess would send.

It listens on loopback only, checks HTTP basic auth (a wrong password gets
401; `/api/version` needs none), and can inject faults into a fraction of
the requests: answer 500, answer slowly, close the connection without an
answer, or hang past the client's time-out and then close. Faults strike
before a request is processed, so a retried request is never applied twice.

It stops by itself once every game is over and done with (its invitation
finished or, for a game without one, its history fetched), or after
--max-runtime seconds, and then prints (and with --results writes) a
JSON summary: each game's result as LocalGame recorded it, the most games
that ran at once, the settings the client posted and the faults injected.

The first line on stdout is JSON: {"port": P, "invitations": [...], "games": [...]}.
"""

import argparse
import base64
import json
import random
import socket
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import chess
from reconchess import ChessJSONDecoder, ChessJSONEncoder, GameHistoryEncoder, LocalGame, WinReason, play_turn
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot

OPPONENTS = {"random": RandomBot, "attacker": AttackerBot}
RECONCHESS_VERSION = "1.6.9"


class BadRequest(Exception):
    """Answered with 400 and the message, as the real server refuses a request."""


class NotFound(Exception):
    """Answered with 404."""


def color_name(color):
    return None if color is None else ("white" if color == chess.WHITE else "black")


class Game:
    """One game between the rbc user and a reconchess bot, arbitrated by LocalGame."""

    def __init__(self, server, game_id, invitation_id, rbc_color, opponent):
        self.server = server
        self.game_id = game_id
        self.invitation_id = invitation_id
        self.rbc_color = rbc_color
        self.opponent_kind = opponent
        self.bot = OPPONENTS[opponent]()
        self.opponent_name = type(self.bot).__name__
        args = server.args
        self.local = LocalGame(seconds_per_player=args.seconds, seconds_increment=args.increment,
                               full_turn_limit=args.turn_limit)
        names = {rbc_color: args.username, not rbc_color: self.opponent_name}
        self.local.store_players(names[chess.WHITE], names[chess.BLACK])
        self.bot.handle_game_start(not rbc_color, self.local.board.copy(), args.username)
        self.lock = threading.RLock()
        self.started = False
        self.ended = False
        self.finished = False
        self.history_served = False
        self.error_resigned = False
        self.opponent_error = None
        # rbc's phase in its own turn: "sense", "move", "end_turn", or None off turn.
        self.phase = "sense" if rbc_color == chess.WHITE else None
        self.rbc_turns = 0
        self.winner = None
        self.reason = None
        self.started_at = None
        self.ended_at = None

    # -- life cycle (all under self.lock) ---------------------------------------

    def start(self):
        with self.lock:
            if self.started:
                return
            self.started = True
            self.started_at = time.monotonic()
            self.local.start()
        self.server.game_started(self)
        threading.Thread(target=self.opponent_loop, name=f"opponent-{self.game_id}", daemon=True).start()

    def check_over(self):
        """Ends the game if LocalGame says it is over; True if it is."""
        with self.lock:
            if self.ended:
                return True
            if self.started and self.local.is_over():
                self._end()
                return True
            return False

    def _end(self):
        self.local.end()
        self.ended = True
        self.ended_at = time.monotonic()
        self.winner = self.local.get_winner_color()
        reason = self.local.get_win_reason()
        self.reason = reason.name if reason is not None else None
        try:
            self.bot.handle_game_end(self.winner, reason, self.local.get_game_history())
        except Exception:  # the opponent's problem, not the game's
            traceback.print_exc()
        self.server.game_ended(self)

    def resign_rbc(self):
        with self.lock:
            self.error_resigned = True
            if self.ended:
                return
            if not self.started:
                self.started = True
                self.local.start()
            self.local._resignee = self.rbc_color
            self._end()

    def opponent_loop(self):
        """Plays the bot's turns as they come; ends the game when it is over."""
        while True:
            with self.lock:
                if self.check_over():
                    return
                if self.local.turn != self.rbc_color:
                    try:
                        play_turn(self.local, self.bot, end_turn_last=True)
                    except Exception as e:  # a broken bot resigns
                        traceback.print_exc()
                        self.opponent_error = repr(e)
                        self.local._resignee = not self.rbc_color
                    if not self.check_over():
                        self.phase = "sense"
                    continue
            time.sleep(0.005)

    # -- rbc's side -------------------------------------------------------------

    def my_turn(self):
        return self.started and not self.ended and self.local.turn == self.rbc_color

    def require_phase(self, phase):
        if self.check_over():
            raise BadRequest("the game is over")
        if not self.my_turn():
            raise BadRequest("not your turn")
        if self.phase != phase:
            raise BadRequest(f"expected {self.phase}, got {phase}")

    def seconds_left(self):
        if self.my_turn():
            return self.local.get_seconds_left()
        return self.local.seconds_left_by_color[self.rbc_color]

    def handle(self, method, endpoint, body):
        with self.lock:
            self.check_over()
            if method == "GET":
                if endpoint == "color":
                    return {"color": self.rbc_color}
                if endpoint == "starting_board":
                    return {"board": chess.Board()}
                if endpoint == "opponent_name":
                    return {"opponent_name": self.opponent_name}
                if endpoint == "sense_actions":
                    return {"sense_actions": self.local.sense_actions() if self.my_turn() else []}
                if endpoint == "move_actions":
                    return {"move_actions": self.local.move_actions() if self.my_turn() else []}
                if endpoint == "seconds_left":
                    return {"seconds_left": self.seconds_left()}
                if endpoint == "is_my_turn":
                    return {"is_my_turn": self.my_turn()}
                if endpoint == "opponent_move_results":
                    return {"opponent_move_results": self.local.opponent_move_results() if self.my_turn() else None}
                if endpoint == "game_status":
                    return {"is_over": self.ended, "is_my_turn": self.my_turn()}
                if endpoint == "winner_color":
                    return {"winner_color": self.winner}
                if endpoint == "win_reason":
                    return {"win_reason": WinReason[self.reason] if self.reason else None}
                if endpoint == "game_history":
                    if not self.ended:
                        return {"game_history": None}
                    self.history_served = True
                    self.server.check_done()
                    return {"game_history": self.local.get_game_history()}
                raise NotFound(endpoint)
            if endpoint == "ready":
                start = True
            elif endpoint == "sense":
                self.require_phase("sense")
                if "square" not in body:
                    raise BadRequest("no square")
                result = self.local.sense(body["square"])
                self.phase = "move"
                return {"sense_result": result}
            elif endpoint == "move":
                self.require_phase("move")
                if "requested_move" not in body:
                    raise BadRequest("no requested_move")
                try:
                    result = self.local.move(body["requested_move"])
                except ValueError as e:
                    raise BadRequest(str(e))
                self.phase = "end_turn"
                return {"move_result": result}
            elif endpoint == "end_turn":
                # A move that ends the game (a king capture) is still followed by
                # end_turn, as reconchess's play_turn always sends it.
                if not (self.ended and self.phase == "end_turn"):
                    self.require_phase("end_turn")
                    self.local.end_turn()
                self.rbc_turns += 1
                self.phase = None
                self.check_over()
                return {}
            elif endpoint == "error_resign":
                start = False
                self.resign_rbc()
                return {}
            else:
                raise NotFound(endpoint)
        if start:
            self.start()
            return {}

    def summary(self):
        return {
            "game_id": self.game_id,
            "invitation_id": self.invitation_id,
            "rbc_color": color_name(self.rbc_color),
            "opponent": self.opponent_name,
            "started": self.started,
            "over": self.ended,
            "winner": color_name(self.winner),
            "reason": self.reason,
            "rbc_turns": self.rbc_turns,
            "finished": self.finished,
            "error_resigned": self.error_resigned,
            "opponent_error": self.opponent_error,
            "seconds": None if self.ended_at is None or self.started_at is None
            else round(self.ended_at - self.started_at, 2),
        }


class State:
    """Everything the server knows."""

    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.rng = random.Random(args.seed)
        self.games = {}            # game id -> Game
        self.invitations = {}      # invitation id -> game id or None (not accepted)
        self.active = set()
        self.max_active = 0
        self.max_games_posts = []
        self.ranked_posts = []
        self.version = 0
        self.version_posts = 0
        self.requests = 0
        self.unauthorized = 0
        self.bad_requests = []
        self.faults = {"fail": 0, "drop": 0, "slow": 0, "hang": 0}
        self.done = threading.Event()
        self.next_game_id = 101
        opponents = args.opponents.split(",")
        self.opponent_cycle = [opponents[i % len(opponents)] for i in range(args.games + args.direct_games)]
        self.created = 0

    def _new_game(self, invitation_id):
        gid = self.next_game_id
        self.next_game_id += 1
        index = self.created
        self.created += 1
        color = chess.WHITE if (index % 2 == 0) == (self.args.first_color == "white") else chess.BLACK
        game = Game(self, gid, invitation_id, color, self.opponent_cycle[index])
        self.games[gid] = game
        return game

    def setup(self):
        with self.lock:
            for i in range(self.args.games):
                self.invitations[i + 1] = None
            for _ in range(self.args.direct_games):
                self._new_game(None)

    def game_started(self, game):
        with self.lock:
            self.active.add(game.game_id)
            self.max_active = max(self.max_active, len(self.active))

    def game_ended(self, game):
        with self.lock:
            self.active.discard(game.game_id)
        self.check_done()

    def check_done(self):
        with self.lock:
            if any(gid is None for gid in self.invitations.values()):
                return
            games = list(self.games.values())
        # A game is done for the client once it has finished the invitation
        # or, without one, fetched the history (its last request).
        if all(g.ended and (g.finished if g.invitation_id is not None else g.history_served) for g in games):
            self.done.set()

    def fault(self):
        """The fault to inject into the next request, if any."""
        a = self.args
        with self.lock:
            x = self.rng.random()
            for kind, rate in (("fail", a.fail_rate), ("drop", a.drop_rate), ("slow", a.slow_rate),
                               ("hang", a.hang_rate)):
                if x < rate:
                    self.faults[kind] += 1
                    return kind
                x -= rate
        return None

    def summary(self):
        with self.lock:
            games = sorted(self.games.values(), key=lambda g: g.game_id)
            return {
                "games": [g.summary() for g in games],
                "invitations": {str(k): v for k, v in self.invitations.items()},
                "max_active": self.max_active,
                "max_games_posts": self.max_games_posts,
                "ranked_posts": self.ranked_posts,
                "version": self.version,
                "requests": self.requests,
                "unauthorized": self.unauthorized,
                "bad_requests": self.bad_requests,
                "faults": self.faults,
            }

    # -- the API ------------------------------------------------------------------

    def route(self, method, path, body):
        parts = [p for p in path.split("?")[0].split("/") if p]
        if parts[:1] != ["api"]:
            raise NotFound(path)
        parts = parts[1:]
        if parts == ["version"] and method == "GET":
            return {"version": self.args.server_version}
        if parts[:2] == ["users", "me"]:
            return self.route_me(method, parts[2:], body)
        if parts[:1] == ["invitations"]:
            return self.route_invitations(method, parts[1:])
        if parts[:1] == ["games"] and len(parts) == 3:
            try:
                gid = int(parts[1])
            except ValueError:
                raise NotFound(path)
            game = self.games.get(gid)
            if game is None:
                raise NotFound(path)
            return game.handle(method, parts[2], body)
        raise NotFound(path)

    def route_me(self, method, rest, body):
        with self.lock:
            if rest == ["max_games"] and method == "POST":
                self.max_games_posts.append(body.get("max_games"))
                return {}
            if rest == ["ranked"] and method == "POST":
                self.ranked_posts.append(body.get("ranked"))
                return {}
            if rest == ["version"] and method == "GET":
                return {"version": self.version}
            if rest == ["version"] and method == "POST":
                self.version += 1
                return {"version": self.version}
        raise NotFound("/".join(rest))

    def route_invitations(self, method, rest):
        if not rest and method == "GET":
            with self.lock:
                return {"invitations": sorted(k for k, v in self.invitations.items() if v is None)}
        try:
            inv = int(rest[0])
        except (ValueError, IndexError):
            raise NotFound("invitation")
        with self.lock:
            if inv not in self.invitations:
                raise NotFound("invitation")
            if len(rest) == 1 and method == "POST":
                if self.invitations[inv] is not None:
                    raise BadRequest(f"invitation {inv} was already accepted")
                game = self._new_game(inv)
                self.invitations[inv] = game.game_id
                return {"game_id": game.game_id}
            if rest[1:] == ["finish"] and method == "POST":
                gid = self.invitations[inv]
                if gid is None:
                    raise BadRequest(f"invitation {inv} was not accepted")
                game = self.games[gid]
        if rest[1:] == ["finish"] and method == "POST":
            game.check_over()
            game.finished = True
            self.check_done()
            return {}
        raise NotFound("invitation")


def make_handler(state):
    args = state.args
    expected = "Basic " + base64.b64encode(f"{args.username}:{args.password}".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "rbc-test-server"

        def handle(self):
            try:
                super().handle()
            except OSError:  # the client gave up on a slow answer: its business
                self.close_connection = True

        def log_message(self, fmt, *a):
            if args.verbose:
                sys.stderr.write("server: " + (fmt % a) + "\n")

        def reply(self, status, obj=None, text=None, encoder=ChessJSONEncoder, headers=()):
            data = (json.dumps(obj, cls=encoder) if text is None else text).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json" if text is None else "text/plain")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def drop(self):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def serve(self, method):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            with state.lock:
                state.requests += 1
            path = self.path
            public = path.rstrip("/") == "/api/version"
            if not public and self.headers.get("Authorization") != expected:
                with state.lock:
                    state.unauthorized += 1
                return self.reply(401, text="Invalid username or password.",
                                  headers=[("WWW-Authenticate", 'Basic realm="rbc"')])
            fault = state.fault()
            if fault == "fail":
                return self.reply(500, text="Internal Server Error (injected)")
            if fault == "drop":
                return self.drop()
            if fault == "hang":
                time.sleep(args.hang_seconds)
                return self.drop()
            if fault == "slow":
                time.sleep(args.slow_seconds)
            try:
                body = json.loads(raw, cls=ChessJSONDecoder) if raw.strip() else {}
                if not isinstance(body, dict):
                    raise BadRequest("the body is not a JSON object")
                result = state.route(method, path, body)
            except BadRequest as e:
                with state.lock:
                    state.bad_requests.append(f"{method} {path}: {e}")
                return self.reply(400, text=str(e))
            except NotFound as e:
                return self.reply(404, text=f"not found: {e}")
            except json.JSONDecodeError as e:
                return self.reply(400, text=f"bad JSON: {e}")
            except Exception as e:
                traceback.print_exc()
                return self.reply(500, text=f"server error: {e!r}")
            encoder = GameHistoryEncoder if path.rstrip("/").endswith("game_history") else ChessJSONEncoder
            return self.reply(200, result, encoder=encoder)

        def do_GET(self):
            self.serve("GET")

        def do_POST(self):
            self.serve("POST")

    return Handler


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", choices=["127.0.0.1", "localhost", "::1"],
                   help="loopback only")
    p.add_argument("--port", type=int, default=0, help="0: any free port (reported on stdout)")
    p.add_argument("--username", default="rbc")
    p.add_argument("--password", default="secret")
    p.add_argument("--games", type=int, default=2, help="invitations to send")
    p.add_argument("--direct-games", type=int, default=0, help="games created without invitations")
    p.add_argument("--opponents", default="random,attacker", help="bots to cycle through: random, attacker")
    p.add_argument("--first-color", default="white", choices=["white", "black"], help="rbc's colour in game 1")
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--increment", type=float, default=1.0)
    p.add_argument("--turn-limit", type=int, default=None, help="full turns before a draw")
    p.add_argument("--server-version", default=RECONCHESS_VERSION, help="reported by /api/version")
    p.add_argument("--fail-rate", type=float, default=0.0, help="fraction of requests answered 500")
    p.add_argument("--drop-rate", type=float, default=0.0, help="fraction closed without an answer")
    p.add_argument("--slow-rate", type=float, default=0.0, help="fraction answered after --slow-seconds")
    p.add_argument("--slow-seconds", type=float, default=1.0)
    p.add_argument("--hang-rate", type=float, default=0.0,
                   help="fraction left hanging --hang-seconds, then closed without an answer")
    p.add_argument("--hang-seconds", type=float, default=5.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-runtime", type=float, default=300.0, help="stop after this many seconds regardless")
    p.add_argument("--linger", type=float, default=0.5, help="seconds to keep serving after the last game")
    p.add_argument("--results", default=None, help="write the JSON summary there")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    if args.opponents and any(o not in OPPONENTS for o in args.opponents.split(",")):
        p.error(f"--opponents: choose from {', '.join(OPPONENTS)}")
    random.seed(args.seed)  # the bots use the module's generator

    state = State(args)
    state.setup()
    ThreadingHTTPServer.address_family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    httpd = ThreadingHTTPServer((args.host, args.port), make_handler(state))
    httpd.daemon_threads = True
    port = httpd.server_address[1]
    print(json.dumps({"port": port, "invitations": sorted(state.invitations),
                      "games": sorted(state.games)}), flush=True)

    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    state.check_done()
    finished = state.done.wait(args.max_runtime)
    if finished:
        time.sleep(args.linger)
    httpd.shutdown()
    summary = state.summary()
    summary["completed"] = finished
    text = json.dumps(summary, indent=1)
    if args.results:
        with open(args.results, "w") as f:
            f.write(text)
    print(text, flush=True)
    sys.exit(0 if finished else 1)


if __name__ == "__main__":
    main()
