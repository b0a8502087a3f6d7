//! `rbc track`: the JSON-lines belief tracker, driven through its whole
//! contract (docs/protocol.md) as an outside tool would drive it.

use rbc_core::rules::{self, Move};
use rbc_core::{Board, Color, Square};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Output, Stdio};

// ---- the harness -----------------------------------------------------------------

/// A running `rbc track`: send lines, read one reply per non-blank line.
struct Track {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Input lines sent so far (blank ones included): the `line` of an error.
    line: u64,
}

impl Track {
    /// `rbc track --capacity 100000` (small, so it starts fast).
    fn new() -> Track {
        Track::with_args(&[])
    }

    /// `rbc track --capacity 100000` plus `args`.
    fn with_args(args: &[&str]) -> Track {
        let mut child = Command::new(crate::rbc())
            .args(["track", "--capacity", "100000"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn rbc track");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Track {
            child,
            stdin,
            stdout,
            line: 0,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write to rbc track");
        stdin.flush().expect("flush");
    }

    /// The next reply line, parsed.
    fn reply(&mut self) -> Value {
        let mut s = String::new();
        let n = self.stdout.read_line(&mut s).expect("read reply");
        assert!(
            n > 0 && s.ends_with('\n'),
            "expected a reply line, got {s:?}"
        );
        assert_eq!(s.matches('\n').count(), 1);
        serde_json::from_str(&s).unwrap_or_else(|e| panic!("reply is not JSON ({e}): {s:?}"))
    }

    /// Sends raw bytes as one line and returns the reply.
    fn send_bytes(&mut self, bytes: &[u8]) -> Value {
        let mut line = bytes.to_vec();
        line.push(b'\n');
        self.write(&line);
        self.line += 1;
        self.reply()
    }

    /// Sends one line and returns the reply.
    fn send(&mut self, line: &str) -> Value {
        self.send_bytes(line.as_bytes())
    }

    /// Sends every line of a saved game's observations; each must be accepted.
    fn replay(&mut self, events: &str) {
        for line in events.lines() {
            let r = self.send(line);
            assert!(r.get("error").is_none(), "{line}: {r}");
        }
    }

    /// Sends a JSON value as one line and returns the reply.
    fn send_json(&mut self, v: Value) -> Value {
        self.send(&v.to_string())
    }

    /// Sends a blank (or whitespace-only) line, which gets no reply.
    fn blank(&mut self, s: &str) {
        assert!(s.trim().is_empty());
        self.write(format!("{s}\n").as_bytes());
        self.line += 1;
    }

    /// Sends an event that must be accepted; returns the active boards.
    fn ok(&mut self, event: Value) -> u64 {
        let r = self.send_json(event.clone());
        assert_eq!(r["ok"], json!(true), "{event} was refused: {r}");
        assert!(r["stashed"].is_u64(), "{r}");
        r["boards"].as_u64().expect("boards")
    }

    /// Sends a line that must be rejected with a message containing
    /// `needle`, with the right line number and no change of state.
    fn rejected(&mut self, line: &str, needle: &str) {
        self.rejected_bytes(line.as_bytes(), needle);
    }

    fn rejected_bytes(&mut self, line: &[u8], needle: &str) {
        let before = self.snapshot();
        let r = self.send_bytes(line);
        let shown = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
        let error = r["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{shown} was accepted: {r}"));
        assert!(
            error.contains(needle),
            "error for {shown} is {error:?}, expected it to mention {needle:?}"
        );
        assert_eq!(
            r["line"],
            json!(self.line),
            "line number of the error for {shown}"
        );
        assert_eq!(r.as_object().map(|o| o.len()), Some(2), "{r}");
        assert_eq!(
            self.snapshot(),
            before,
            "state changed after the rejected line {shown}"
        );
    }

    /// Everything a query shows about the state (error line numbers removed).
    fn snapshot(&mut self) -> Vec<Value> {
        [
            "{\"query\":\"count\"}",
            "{\"query\":\"boards\",\"limit\":100000}",
        ]
        .iter()
        .map(|q| {
            let mut r = self.send(q);
            if let Some(o) = r.as_object_mut() {
                o.remove("line");
            }
            r
        })
        .collect()
    }

    /// `(boards, stashed, dropped)`.
    fn count(&mut self) -> (u64, u64, u64) {
        let r = self.send(r#"{"query":"count"}"#);
        let n = |k: &str| {
            r[k].as_u64()
                .unwrap_or_else(|| panic!("count reply {r} lacks {k}"))
        };
        (n("boards"), n("stashed"), n("dropped"))
    }

    fn contains(&mut self, fen: &str) -> bool {
        let r = self.send_json(json!({"query": "contains", "fen": fen}));
        r["contains"]
            .as_bool()
            .unwrap_or_else(|| panic!("contains {fen}: {r}"))
    }

    /// The active boards, checked against `count`.
    fn boards(&mut self, limit: usize) -> (u64, Vec<Board>) {
        let r = self.send_json(json!({"query": "boards", "limit": limit}));
        let total = r["total"].as_u64().unwrap_or_else(|| panic!("{r}"));
        let fens = r["fens"].as_array().unwrap_or_else(|| panic!("{r}"));
        assert_eq!(fens.len() as u64, total.min(limit as u64), "{r}");
        let boards = fens
            .iter()
            .map(|f| f.as_str().unwrap().parse::<Board>().expect("a full FEN"))
            .collect();
        (total, boards)
    }

    /// Asks where to sense; checks the answer is a square or null.
    fn sense(&mut self) -> Option<Square> {
        let r = self.send(r#"{"query":"sense","seconds_left":60}"#);
        assert_eq!(r.as_object().map(|o| o.len()), Some(1), "{r}");
        match &r["sense"] {
            Value::Null => None,
            Value::String(s) => Some(
                s.parse()
                    .unwrap_or_else(|_| panic!("sense {s:?} is not a square")),
            ),
            other => panic!("sense reply {other}"),
        }
    }

    /// Asks for a move; checks it is a request reconchess accepts for `us`
    /// on `truth` (a pass, or a move of our pieces with theirs removed).
    fn choose_move(&mut self, truth: &Board, us: Color) -> Option<Move> {
        let r = self.send(r#"{"query":"move","seconds_left":60}"#);
        let mv = match &r["move"] {
            Value::Null => None,
            Value::String(s) => Some(
                s.parse::<Move>()
                    .unwrap_or_else(|_| panic!("move {s:?} is not UCI")),
            ),
            other => panic!("move reply {r}: {other}"),
        };
        if let Some(m) = mv {
            let mut ours = *truth;
            for sq in truth.by_color(us.flip()) {
                ours.remove_piece(sq);
            }
            ours.set_turn(us);
            assert!(
                rules::is_requestable(&ours, m),
                "{m} is not a request of {us} on {truth}"
            );
            assert!(
                rules::arbitrate(truth, mv).is_ok(),
                "the arbiter refuses {m} on {truth}"
            );
        }
        mv
    }

    /// Closes stdin, reads what is left and waits for the exit.
    fn finish(mut self) -> (ExitStatus, Vec<Value>) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        let mut s = String::new();
        while self.stdout.read_line(&mut s).expect("read") > 0 {
            rest.push(serde_json::from_str(&s).expect("JSON"));
            s.clear();
        }
        (self.child.wait().expect("wait"), rest)
    }
}

impl Drop for Track {
    fn drop(&mut self) {
        // Only if a test failed midway: the child is ours, end it by its handle.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs `rbc track` with `args` and `input`, to completion.
fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(crate::rbc())
        .arg("track")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rbc track");
    let mut stdin = child.stdin.take().unwrap();
    // A failed start closes stdin early; ignore that.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("wait")
}

// ---- positions ---------------------------------------------------------------------

fn game_start(color: &str) -> Value {
    json!({"event": "game_start", "color": color})
}

fn opponent_move(capture: Option<Square>) -> Value {
    json!({"event": "opponent_move", "capture_square": capture.map(|s| s.to_string())})
}

fn move_result(requested: Option<&str>, taken: Option<&str>, capture: Option<&str>) -> Value {
    json!({"event": "move_result", "requested": requested, "taken": taken, "capture_square": capture})
}

/// What a sense centred on `center` shows on `truth` (the 3x3 window, cut
/// at the edges, as reconchess reports it).
fn sense_result(truth: &Board, center: Square) -> Value {
    let mut result = Vec::new();
    for dr in [1, 0, -1] {
        for df in [-1, 0, 1] {
            if let Some(sq) = center.offset(df, dr) {
                result.push(json!([
                    sq.to_string(),
                    truth.piece_at(sq).map(|p| p.to_string())
                ]));
            }
        }
    }
    json!({"event": "sense_result", "result": result})
}

/// The start position after `moves` (UCI, `None` for a pass).
fn after(moves: &[Option<&str>]) -> Board {
    let mut b = Board::start();
    for m in moves {
        let mv = m.map(|s| s.parse::<Move>().unwrap());
        let r = rules::arbitrate(&b, mv).expect("a legal request");
        b.play(r.taken);
    }
    b
}

fn fen(b: &Board) -> String {
    b.to_string()
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// ---- games -------------------------------------------------------------------------

#[test]
fn a_white_game_tracks_the_opponent_exactly() {
    // The built-in evaluator whether or not a Stockfish is installed: the
    // `stats` query below names it.
    let mut t = Track::with_args(&["--engine", "builtin"]);
    assert_eq!(t.ok(game_start("white")), 1);
    // reconchess reports "no capture" to white before its first sense: nothing changes.
    assert_eq!(t.ok(opponent_move(None)), 1);
    assert_eq!(t.count(), (1, 0, 0));
    assert!(t.contains(START));

    let truth = Board::start();
    let center = t.sense().unwrap_or(Square::E7);
    assert_eq!(t.ok(sense_result(&truth, center)), 1);
    t.choose_move(&truth, Color::White);
    assert_eq!(t.ok(move_result(Some("e2e4"), Some("e2e4"), None)), 1);

    // Black passes or plays one of its 20 moves: 21 distinct positions.
    assert_eq!(t.ok(opponent_move(None)), 21);
    assert_eq!(t.count(), (21, 0, 0));
    let (total, boards) = t.boards(1000);
    assert_eq!(total, 21);
    for b in &boards {
        assert_eq!(b.turn(), Color::White, "our turn: white to move in {b}");
        assert!(t.contains(&fen(b)), "{b} is listed but not contained");
    }
    assert_eq!(t.boards(5).1.len(), 5);
    assert_eq!(t.boards(0).1.len(), 0);
    // The default limit is 100.
    assert_eq!(
        t.send(r#"{"query":"boards"}"#)["fens"]
            .as_array()
            .unwrap()
            .len(),
        21
    );

    assert!(t.contains(&fen(&after(&[Some("e2e4"), Some("e7e5")]))));
    assert!(t.contains(&fen(&after(&[Some("e2e4"), None]))));
    // Clocks and side to move do not matter.
    assert!(t.contains("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 7 30"));
    // Two black moves, a white pawn still on e2, a lost castling right: impossible.
    assert!(!t.contains(&fen(&after(&[
        Some("e2e4"),
        Some("e7e5"),
        None,
        Some("d7d5")
    ]))));
    assert!(!t.contains(&fen(&after(&[Some("d2d4"), Some("e7e5")]))));
    assert!(!t.contains("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w Qkq - 0 2"));

    // Sensing d5..f7 shows e7 empty and a pawn on e5: only 1...e5 is left.
    let truth = after(&[Some("e2e4"), Some("e7e5")]);
    let boards = t.ok(sense_result(&truth, Square::E6));
    assert_eq!(boards, 1);
    assert!(t.contains(&fen(&truth)));

    let stats = t.send(r#"{"query":"stats"}"#);
    assert_eq!(stats["engine"], json!("builtin"));
    assert_eq!(stats["capacity"], json!(100000));
    assert_eq!(stats["active"], json!(boards));
    for key in [
        "bytes",
        "stashed",
        "dropped",
        "expansions",
        "recoveries",
        "rebuilds",
        "children",
        "overflows",
        "logged",
        "last_move_boards",
        "last_sense_scored",
    ] {
        assert!(stats[key].is_u64(), "stats lacks {key}: {stats}");
    }
    for key in [
        "last_update_seconds",
        "last_sense_seconds",
        "last_move_seconds",
    ] {
        assert!(
            stats[key].as_f64().is_some_and(|s| s >= 0.0),
            "stats lacks {key}: {stats}"
        );
    }
    assert!(stats["bytes"].as_u64().unwrap() > 100_000 * 24);
    assert_eq!(stats["expansions"], json!(1));
    assert_eq!(stats["children"], json!(21));

    assert_eq!(
        t.ok(json!({"event": "game_end", "winner": "white", "reason": "KING_CAPTURE"})),
        boards
    );
    let (status, rest) = t.finish();
    assert!(status.success() && rest.is_empty(), "{status} {rest:?}");
}

#[test]
fn a_black_game_tracks_the_opponent_exactly() {
    let mut t = Track::new();
    assert_eq!(t.ok(game_start("black")), 1);
    // White passes or plays one of its 20 moves.
    assert_eq!(t.ok(opponent_move(None)), 21);
    let truth = after(&[Some("a2a3")]);
    assert!(t.contains(&fen(&truth)));
    // Pawns still on d2, e2, f2 and nothing on d3..f4 leave the pass, the
    // ten a/b/c/g/h pawn moves and Na3, Nc3, Nh3.
    assert_eq!(t.ok(sense_result(&truth, Square::E3)), 14);
    assert!(t.contains(&fen(&truth)));
    assert!(!t.contains(&fen(&after(&[Some("e2e4")]))));
    assert!(!t.contains(&fen(&after(&[Some("g1f3")]))));
    assert!(t.contains(&fen(&after(&[Some("g1h3")]))));
    assert!(t.contains(&fen(&after(&[None]))));
    let (total, boards) = t.boards(100);
    assert_eq!(total, 14);
    assert!(
        boards.iter().all(|b| b.turn() == Color::Black),
        "our turn: black to move"
    );

    t.choose_move(&truth, Color::Black);
    assert_eq!(t.ok(move_result(Some("e7e5"), Some("e7e5"), None)), 14);
    let truth = after(&[Some("a2a3"), Some("e7e5")]);
    assert!(t.contains(&fen(&truth)));
    let (total, boards) = t.boards(100);
    assert_eq!(total, 14);
    assert!(
        boards.iter().all(|b| b.turn() == Color::White),
        "their turn: white to move"
    );

    let n = t.ok(opponent_move(None));
    assert!(n > 14, "{n}");
    assert_eq!(t.count(), (n, 0, 0));
    assert_eq!(t.boards(1_000_000).0, n);
    assert!(t.contains(&fen(&after(&[Some("a2a3"), Some("e7e5"), Some("a3a4")]))));
    // White's second move may be anything, but e2 and d2 stood still on its first.
    assert!(t.contains(&fen(&after(&[Some("a2a3"), Some("e7e5"), Some("e2e4")]))));
    assert!(
        !t.contains(&fen(&after(&[Some("d2d4"), Some("e7e5"), Some("e2e4")]))),
        "d2d4 and e2e4 cannot both have been played"
    );
    let (status, _) = t.finish();
    assert!(status.success());
}

/// A tiny deterministic generator for the opponent's choices.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Plays `turns` turns of a game against a random opponent on the true board,
/// following the engine's sense and move answers, checking after every
/// event that the true board is still believed.
fn play_along(us: Color, turns: usize, seed: u64) {
    let mut t = Track::new();
    let mut rng = Lcg(seed);
    let mut truth = Board::start();
    t.ok(game_start(us.name()));
    for _ in 0..turns {
        // The opponent's turn (white's first report to white is the empty one).
        let capture = if truth.turn() == us {
            None
        } else {
            let mut actions = vec![None];
            rules::move_actions(&truth, |m| {
                actions.push(Some(m));
                false
            });
            let request = actions[rng.below(actions.len())];
            let r = rules::arbitrate(&truth, request).unwrap();
            truth.play(r.taken);
            r.capture
        };
        t.ok(opponent_move(capture));
        if truth.king_captured().is_some() {
            break;
        }
        assert!(t.contains(&fen(&truth)), "lost the true board {truth}");

        let center = t.sense().unwrap_or(Square::D4);
        t.ok(sense_result(&truth, center));
        assert!(
            t.contains(&fen(&truth)),
            "lost the true board {truth} after sensing {center}"
        );

        let request = t.choose_move(&truth, us);
        let r = rules::arbitrate(&truth, request).unwrap();
        let (requested, taken) = (
            request.map(|m| m.to_string()),
            r.taken.map(|m| m.to_string()),
        );
        let capture = r.capture.map(|c| c.to_string());
        t.ok(move_result(
            requested.as_deref(),
            taken.as_deref(),
            capture.as_deref(),
        ));
        truth.play(r.taken);
        if truth.king_captured().is_some() {
            break;
        }
        assert!(
            t.contains(&fen(&truth)),
            "lost the true board {truth} after our move"
        );
        let (boards, stashed, _) = t.count();
        assert!(boards >= 1 && boards + stashed >= 1);
    }
    let winner = truth.king_captured().map(|lost| lost.flip().name());
    let reason = if winner.is_some() {
        "KING_CAPTURE"
    } else {
        "TURN_LIMIT"
    };
    t.ok(json!({"event": "game_end", "winner": winner, "reason": reason}));
    assert!(t.contains(&fen(&truth)));
    let (status, _) = t.finish();
    assert!(status.success());
}

#[test]
fn following_the_engine_keeps_the_true_board_as_white() {
    play_along(Color::White, 8, 1);
}

#[test]
fn following_the_engine_keeps_the_true_board_as_black() {
    play_along(Color::Black, 8, 2);
}

/// A regression from a lost game (run 4 against TroutBot, game 17): the
/// opponent has just captured on f7, beside our king on e8; in about half of
/// the boards the piece there attacks the king. The sense must settle
/// whether it does. It once did not: with king-danger hypotheses weighing
/// four, the expected weight left exceeded the number of boards, and the
/// agent took that for "no sense can help" and sensed its default square.
#[test]
fn a_sense_settles_a_check_the_belief_half_holds() {
    let events = include_str!("../data/check-on-f7.jsonl");
    let truth: Board = "rn1qkb1r/4pPpp/2pn4/pp2N2Q/2B5/2P5/PP3PPP/R1B1K2R b KQkq - 0 12"
        .parse()
        .unwrap();
    let attacked = |fen: &str| {
        let b: Board = fen.parse().unwrap();
        let king = b.king(Color::Black).expect("our king");
        rbc_core::eval::attackers(&b, king, Color::White).any()
    };
    let mut t = Track::with_args(&["--engine", "builtin"]);
    t.replay(events);
    let boards = t.send(r#"{"query":"boards","limit":100000}"#);
    let fens: Vec<&str> = boards["fens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    let danger = fens.iter().filter(|f| attacked(f)).count();
    assert!(
        danger > 0 && danger < fens.len(),
        "{danger} of {}",
        fens.len()
    );
    let sense = t.send(r#"{"query":"sense","seconds_left":100}"#);
    let center: Square = sense["sense"].as_str().unwrap().parse().unwrap();
    t.ok(sense_result(&truth, center));
    let boards = t.send(r#"{"query":"boards","limit":100000}"#);
    let left: Vec<bool> = boards["fens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| attacked(f.as_str().unwrap()))
        .collect();
    assert!(
        left.iter().all(|&a| a),
        "sensing {center} left {} of {} boards safe",
        left.iter().filter(|&&a| !a).count(),
        left.len()
    );
}

/// Run 7, TroutBot game 41: the opponent's engine had died, so it passed
/// every turn, and rbc (black, level in material) shuffled its bishop
/// b1-h7 until the 100 half-move draw, because every pawn move left its king
/// capturable on a few more of the boards. These are the game's
/// observations up to rbc's turn at half-move 97; a move that makes
/// progress must now win over that king danger.
#[test]
fn a_draw_by_the_move_limit_is_not_shuffled_into() {
    let events = include_str!("../data/passive-opponent-draw.jsonl");
    let truth: Board = "8/2p2p2/2p1p2k/4P3/6pP/8/1P3p2/1bK2R2 b - - 97 161"
        .parse()
        .unwrap();
    for seed in ["0", "1", "2"] {
        let mut t = Track::with_args(&["--engine", "builtin", "--seed", seed]);
        t.replay(events);
        let reply = t.send(r#"{"query":"move","seconds_left":60}"#);
        let mv: Move = reply["move"]
            .as_str()
            .expect("a move, not a pass")
            .parse()
            .unwrap();
        // Our own pieces are known exactly: a pawn, or one of the opponent's
        // pieces on the true board (the belief holds it there too).
        let pawn = truth.kind_at(mv.from) == Some(rbc_core::PieceKind::Pawn);
        let capture = truth.piece_at(mv.to).is_some();
        assert!(
            pawn || capture,
            "seed {seed}: {mv} neither pushes a pawn nor captures"
        );
    }
}

#[test]
fn a_new_game_starts_after_game_end_in_the_same_process() {
    let mut t = Track::new();
    t.ok(game_start("black"));
    assert_eq!(t.ok(opponent_move(None)), 21);
    assert_eq!(
        t.ok(json!({"event": "game_end", "winner": null, "reason": null})),
        21
    );

    // Only queries are answered now, and not sense or move.
    t.rejected(
        &opponent_move(None).to_string(),
        "opponent_move after game_end",
    );
    t.rejected(
        &sense_result(&Board::start(), Square::E3).to_string(),
        "sense_result after game_end",
    );
    t.rejected(
        &move_result(None, None, None).to_string(),
        "move_result after game_end",
    );
    t.rejected(
        r#"{"event":"game_end","winner":null,"reason":null}"#,
        "game_end after game_end",
    );
    t.rejected(r#"{"query":"sense"}"#, "sense query after game_end");
    t.rejected(r#"{"query":"move"}"#, "move query after game_end");
    assert_eq!(t.count(), (21, 0, 0));
    assert_eq!(t.boards(3).0, 21);
    assert!(t.contains(&fen(&after(&[Some("e2e4")]))));
    assert!(t.send(r#"{"query":"stats"}"#)["active"] == json!(21));

    assert_eq!(t.ok(game_start("white")), 1);
    assert_eq!(t.count(), (1, 0, 0));
    assert_eq!(t.ok(opponent_move(None)), 1);
    assert!(t.sense().is_some());
    // game_end's fields are optional.
    t.ok(json!({"event": "game_end"}));
    // A game from a given position, with a clock.
    let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    let start = json!({"event": "game_start", "color": "black", "fen": fen, "opponent": "random",
                       "seconds": 60, "increment": 0});
    assert_eq!(t.ok(start), 1);
    assert!(t.contains(fen));
    // The king's four moves, the pawn's two and the pass.
    assert_eq!(t.ok(opponent_move(None)), 7);
    let (status, _) = t.finish();
    assert!(status.success());
}

// ---- errors ------------------------------------------------------------------------

#[test]
fn bad_lines_are_answered_with_errors_and_change_nothing() {
    let mut t = Track::new();
    t.ok(game_start("white"));
    t.ok(opponent_move(None));

    // Not a protocol line at all.
    t.rejected("not json", "invalid JSON");
    t.rejected(r#"{"event":"opponent_move","#, "invalid JSON");
    t.rejected("[1,2]", "expected a JSON object");
    t.rejected("42", "expected a JSON object");
    t.rejected(r#"{"event":"foo"}"#, "unknown event \"foo\"");
    t.rejected(r#"{"query":"foo"}"#, "unknown query \"foo\"");
    t.rejected(r#"{"event":7}"#, "\"event\" must be a string");
    t.rejected(
        r#"{"event":"opponent_move","query":"count","capture_square":null}"#,
        "both",
    );
    t.rejected(r#"{"capture_square":null}"#, "neither");

    // Missing and wrongly typed fields.
    t.rejected(
        r#"{"event":"opponent_move"}"#,
        "missing field `capture_square`",
    );
    t.rejected(
        r#"{"event":"move_result","requested":null,"taken":null}"#,
        "missing field `capture_square`",
    );
    t.rejected(r#"{"event":"sense_result"}"#, "missing field `result`");
    t.rejected(r#"{"event":"game_start"}"#, "missing field `color`");
    t.rejected(r#"{"query":"contains"}"#, "missing field `fen`");
    t.rejected(
        r#"{"event":"opponent_move","capture_square":44}"#,
        "field \"capture_square\"",
    );
    t.rejected(
        r#"{"event":"sense_result","result":"e4"}"#,
        "field \"result\"",
    );
    t.rejected(
        r#"{"event":"sense_result","result":[["e4"]]}"#,
        "field \"result\"",
    );
    t.rejected(
        r#"{"event":"game_start","color":"white","seconds":"long"}"#,
        "field \"seconds\"",
    );
    t.rejected(
        r#"{"event":"game_start","color":"white","seconds":-3}"#,
        "invalid seconds",
    );
    t.rejected(r#"{"query":"boards","limit":-1}"#, "field \"limit\"");
    t.rejected(r#"{"query":"contains","fen":5}"#, "field \"fen\"");
    t.rejected(
        r#"{"query":"sense","seconds_left":"soon"}"#,
        "field \"seconds_left\"",
    );

    // Bad values.
    t.rejected(
        r#"{"event":"opponent_move","capture_square":"z9"}"#,
        "invalid square \"z9\" in capture_square",
    );
    t.rejected(
        r#"{"event":"sense_result","result":[["e9",null]]}"#,
        "invalid square \"e9\" in result[0]",
    );
    t.rejected(
        r#"{"event":"sense_result","result":[["e7","p"],["e8","x"]]}"#,
        "invalid piece \"x\" in result[1]",
    );
    t.rejected(
        r#"{"event":"sense_result","result":[["e7","pp"]]}"#,
        "invalid piece \"pp\"",
    );
    t.rejected(
        &move_result(Some("e2e9"), None, None).to_string(),
        "invalid move \"e2e9\" in requested",
    );
    t.rejected(
        &move_result(Some("e2e4"), Some("e2"), None).to_string(),
        "invalid move \"e2\" in taken",
    );
    t.rejected(
        &move_result(Some("e2e4"), Some("e2e4"), Some("i1")).to_string(),
        "invalid square \"i1\"",
    );
    t.rejected(
        &move_result(Some("e2e5"), Some("e2e5"), None).to_string(),
        "not one we may request",
    );
    t.rejected(
        &move_result(None, Some("e2e4"), None).to_string(),
        "a pass cannot take a move",
    );
    t.rejected(
        r#"{"event":"game_start","color":"green"}"#,
        "invalid color \"green\"",
    );
    t.rejected(
        r#"{"event":"game_start","color":"white","fen":"not a fen"}"#,
        "invalid FEN",
    );
    t.rejected(
        r#"{"event":"game_start","color":"white","fen":"8/8/8 w - - 0 1"}"#,
        "invalid FEN",
    );
    t.rejected(
        r#"{"query":"contains","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x"}"#,
        "invalid FEN",
    );
    t.rejected(
        r#"{"event":"game_end","winner":"nobody"}"#,
        "invalid color \"nobody\" in winner",
    );
    t.rejected(
        r#"{"event":"game_end","reason":"BOREDOM"}"#,
        "invalid reason \"BOREDOM\"",
    );

    // Observations that cannot be: our own pieces misreported, out of order, contradicted.
    t.rejected(
        r#"{"event":"sense_result","result":[["e2",null]]}"#,
        "our piece",
    );
    t.rejected(
        r#"{"event":"sense_result","result":[["e6",null],["e6",null]]}"#,
        "twice",
    );
    t.rejected(&opponent_move(Some(Square::E2)).to_string(), "out of order");
    t.rejected(
        r#"{"event":"sense_result","result":[["e5","n"]]}"#,
        "observation contradicts every hypothesis",
    );
    t.rejected(
        r#"{"event":"sense_result","result":[["e7",null]]}"#,
        "observation contradicts every hypothesis",
    );
    t.rejected(
        &move_result(Some("e2e4"), Some("e2e3"), None).to_string(),
        "contradicts every hypothesis",
    );

    // Every valid line still works as if the bad ones never came.
    assert_eq!(t.count(), (1, 0, 0));
    assert_eq!(t.ok(sense_result(&Board::start(), Square::E7)), 1);
    assert_eq!(t.ok(move_result(Some("e2e4"), Some("e2e4"), None)), 1);
    // Now the opponent moves: we may neither sense nor move.
    t.rejected(
        r#"{"event":"sense_result","result":[["e6",null]]}"#,
        "out of order",
    );
    t.rejected(
        &move_result(Some("d2d4"), Some("d2d4"), None).to_string(),
        "out of order",
    );
    t.rejected(r#"{"query":"sense"}"#, "sense query outside our turn");
    t.rejected(r#"{"query":"move"}"#, "move query outside our turn");
    t.rejected(
        &opponent_move(Some(Square::A1)).to_string(),
        "contradicts every hypothesis",
    );
    t.rejected(
        &opponent_move(Some(Square::E5)).to_string(),
        "capture square holds none of our pieces",
    );
    assert_eq!(t.ok(opponent_move(None)), 21);

    // Unknown extra fields are ignored.
    let r = t.send(r#"{"query":"count","verbose":true,"extra":{"a":[1]}}"#);
    assert_eq!(r, json!({"boards": 21, "stashed": 0, "dropped": 0}));
    let (status, rest) = t.finish();
    assert!(status.success() && rest.is_empty());
}

#[test]
fn everything_before_game_start_is_an_error() {
    let mut t = Track::new();
    t.rejected(r#"{"query":"count"}"#, "count query before game_start");
    t.rejected(r#"{"query":"sense"}"#, "sense query before game_start");
    t.rejected(
        r#"{"query":"move","seconds_left":10}"#,
        "move query before game_start",
    );
    t.rejected(
        &format!(r#"{{"query":"contains","fen":"{START}"}}"#),
        "contains query before game_start",
    );
    t.rejected(r#"{"query":"boards"}"#, "boards query before game_start");
    t.rejected(r#"{"query":"stats"}"#, "stats query before game_start");
    t.rejected(
        &opponent_move(None).to_string(),
        "opponent_move before game_start",
    );
    t.rejected(
        r#"{"event":"sense_result","result":[]}"#,
        "sense_result before game_start",
    );
    t.rejected(
        &move_result(None, None, None).to_string(),
        "move_result before game_start",
    );
    t.rejected(r#"{"event":"game_end"}"#, "game_end before game_start");
    assert_eq!(t.ok(game_start("white")), 1);
    let (status, _) = t.finish();
    assert!(status.success());
}

#[test]
fn game_start_must_agree_with_color() {
    let mut t = Track::with_args(&["--color", "white"]);
    t.rejected(
        &game_start("black").to_string(),
        "disagrees with --color white",
    );
    assert_eq!(t.ok(game_start("white")), 1);
    assert_eq!(t.ok(opponent_move(None)), 1);
    // A mismatching restart leaves the running game alone.
    t.ok(sense_result(&Board::start(), Square::E7));
    t.ok(move_result(Some("e2e4"), Some("e2e4"), None));
    t.ok(opponent_move(None));
    t.rejected(
        &game_start("black").to_string(),
        "disagrees with --color white",
    );
    assert_eq!(t.count(), (21, 0, 0));

    let mut t = Track::with_args(&["--color", "black"]);
    t.rejected(
        &game_start("white").to_string(),
        "disagrees with --color black",
    );
    assert_eq!(t.ok(game_start("black")), 1);
}

#[test]
fn an_over_long_line_is_rejected_and_skipped() {
    let mut t = Track::new();
    t.ok(game_start("black"));
    t.ok(opponent_move(None));
    // 2 MiB, a valid JSON string inside: the length alone is the problem.
    let mut long = br#"{"query":"count","pad":""#.to_vec();
    long.resize(2 << 20, b'x');
    long.extend_from_slice(br#""}"#);
    t.rejected_bytes(&long, "line longer than 1048576 bytes");
    // Just under the limit is fine.
    let mut fits = br#"{"query":"count","pad":""#.to_vec();
    fits.resize((1 << 20) - 2, b'x');
    fits.extend_from_slice(br#""}"#);
    assert_eq!(fits.len(), 1 << 20);
    assert_eq!(t.send_bytes(&fits)["boards"], json!(21));
    assert_eq!(t.ok(sense_result(&after(&[Some("e2e4")]), Square::E3)), 1);
}

#[test]
fn invalid_utf8_is_an_error_line() {
    let mut t = Track::new();
    t.ok(game_start("white"));
    t.rejected_bytes(b"{\"query\":\"count\xff\xfe\"}", "not valid UTF-8");
    t.rejected_bytes(b"\xc3", "not valid UTF-8");
    assert_eq!(t.count(), (1, 0, 0));
}

#[test]
fn blank_lines_get_no_reply_but_are_counted() {
    let mut t = Track::new();
    t.blank("");
    t.blank("   \t ");
    let r = t.send("nonsense");
    assert_eq!(r["line"], json!(3), "{r}");
    t.blank("");
    t.ok(game_start("white"));
    t.blank("\r");
    let r = t.send(r#"{"event":"foo"}"#);
    assert_eq!(r["line"], json!(7), "{r}");
    // A CRLF line is one line.
    let r = t.send("{\"query\":\"count\"}\r");
    assert_eq!(r["boards"], json!(1));
    let r = t.send("{\"query\":\"bar\"}\r");
    assert_eq!(
        r,
        json!({"error": "unknown query \"bar\" (expected one of sense, move, count, contains, boards, stats)", "line": 9})
    );
    // The harness numbers lines the same way.
    assert_eq!(t.line, 9);
    t.rejected("{}", "neither");
}

// ---- the process -------------------------------------------------------------------

#[test]
fn end_of_input_exits_zero_and_a_last_line_without_newline_is_answered() {
    let out = run(&["--capacity", "1000"], b"");
    assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");

    let input = format!("{}\n\n{{\"query\":\"count\"}}", game_start("white"));
    let out = run(&["--capacity", "1000"], input.as_bytes());
    assert!(out.status.success(), "{out:?}");
    let replies: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        replies,
        vec![
            json!({"ok": true, "boards": 1, "stashed": 0}),
            json!({"boards": 1, "stashed": 0, "dropped": 0})
        ]
    );

    // An error on the last line, also without a newline.
    let out = run(&["--capacity", "1000"], b"\n\n{oops");
    assert!(out.status.success());
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reply["line"], json!(3));

    // Through the harness: replies come one per line, as they are sent.
    let mut t = Track::new();
    t.ok(game_start("white"));
    t.write(br#"{"query":"count"}"#);
    let (status, rest) = t.finish();
    assert!(status.success());
    assert_eq!(rest, vec![json!({"boards": 1, "stashed": 0, "dropped": 0})]);
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let mut child = Command::new(crate::rbc())
        .args(["track", "--capacity", "1000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let line = format!("{}\n", game_start("white"));
    for _ in 0..100 {
        if stdin.write_all(line.as_bytes()).is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn capacity_and_memory_conflict() {
    let out = run(&["--capacity", "1000", "--memory", "64MiB"], b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--capacity") && err.contains("--memory"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn memory_sizes_the_belief() {
    let input = format!("{}\n{{\"query\":\"stats\"}}\n", game_start("white"));
    let out = run(&["--memory", "64MiB"], input.as_bytes());
    assert!(out.status.success(), "{out:?}");
    let stats: Value = serde_json::from_str(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .nth(1)
            .unwrap(),
    )
    .unwrap();
    let capacity = stats["capacity"].as_u64().unwrap();
    assert!(capacity > 100_000 && capacity < 64 << 20, "{stats}");
    assert!(stats["bytes"].as_u64().unwrap() <= 64 << 20, "{stats}");

    let out = run(&["--memory", "lots"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid size"));
}

#[test]
fn a_missing_stockfish_fails_at_start() {
    let out = run(
        &[
            "--capacity",
            "1000",
            "--engine",
            "stockfish",
            "--stockfish",
            "/nonexistent",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Stockfish not found") && err.contains("/nonexistent"),
        "{err}"
    );
    assert!(out.stdout.is_empty());

    // auto falls back to the built-in evaluator; builtin never looks.
    for engine in ["auto", "builtin"] {
        let input = format!("{}\n{{\"query\":\"stats\"}}\n", game_start("white"));
        let out = run(
            &[
                "--capacity",
                "1000",
                "--engine",
                engine,
                "--stockfish",
                "/nonexistent",
            ],
            input.as_bytes(),
        );
        assert!(out.status.success(), "{engine}: {out:?}");
        let stats: Value = serde_json::from_str(
            String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .nth(1)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(stats["engine"], json!("builtin"));
    }
}
