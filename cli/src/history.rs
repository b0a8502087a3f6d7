//! Game records in reconchess's `GameHistory` JSON format.
//!
//! `GameHistory.save` (reconchess 1.6.9, `history.py`) writes one object:
//!
//! ```text
//! {"type": "GameHistory", "white_name": ..., "black_name": ...,
//!  "senses": {"true": [...], "false": [...]}, "sense_results": {...},
//!  "requested_moves": {...}, "taken_moves": {...}, "capture_squares": {...},
//!  "fens_before_move": {...}, "fens_after_move": {...},
//!  "winner_color": true | false | null, "win_reason": {"type": "WinReason", "value": "KING_CAPTURE"} | null}
//! ```
//!
//! Every per-side field maps `"true"` (white) and `"false"` (black) to one
//! entry per turn of that side. Squares are python-chess integers (a1 = 0,
//! h8 = 63); moves are `{"type": "Move", "value": "e2e4"}`; pieces are
//! `{"type": "Piece", "value": "P"}`; a sense result is a list of
//! `[square, piece or null]` pairs in the arbiter's order (the window's top
//! row first, left to right). FENs are python-chess's `fen(en_passant="fen")`
//! (the en-passant square after every double step). [`GameHistory::to_json`]
//! writes the same text `json.dump` does (`", "` and `": "` separators), so
//! `reconchess.GameHistory.from_file` loads it; [`GameHistory::from_json`]
//! reads files written by either.

use crate::arbiter::WinReason;
use crate::chess_json::{
    color_from_json, color_to_json, move_from_json, move_to_json, sense_result_from_json,
    sense_result_to_json, square_from_json, square_to_json, win_reason_from_json,
    win_reason_to_json,
};
use anyhow::{Context, Result, anyhow, bail};
use rbc_core::{Color, Move, Piece, Square};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// One side's squares, pieces and moves per turn, indexed by [`Color::index`].
pub type PerSide<T> = [Vec<T>; 2];

/// A sense result: each square of the window with what stands on it.
pub type SenseResult = Vec<(Square, Option<Piece>)>;

/// The record of one game, as reconchess's `GameHistory` keeps it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameHistory {
    /// White's name.
    pub white_name: String,
    /// Black's name.
    pub black_name: String,
    /// Sense squares (`None`: no sense).
    pub senses: PerSide<Option<Square>>,
    /// Sense results.
    pub sense_results: PerSide<SenseResult>,
    /// Requested moves as sent (`None`: pass).
    pub requested_moves: PerSide<Option<Move>>,
    /// Moves taken (`None`: pass or failed).
    pub taken_moves: PerSide<Option<Move>>,
    /// Squares where the mover captured a piece.
    pub capture_squares: PerSide<Option<Square>>,
    /// The true board before each move.
    pub fens_before_move: PerSide<String>,
    /// The true board after each move.
    pub fens_after_move: PerSide<String>,
    /// The winner (`None`: no winner).
    pub winner_color: Option<Color>,
    /// Why the game ended (`None` if it has not).
    pub win_reason: Option<WinReason>,
}

/// One turn of a history, in game order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// Who played it.
    pub color: Color,
    /// The side's turn number, from 0.
    pub number: usize,
}

impl GameHistory {
    /// An empty history for the two named players.
    pub fn new(white_name: &str, black_name: &str) -> GameHistory {
        GameHistory {
            white_name: white_name.to_string(),
            black_name: black_name.to_string(),
            ..GameHistory::default()
        }
    }

    /// The name of `color`'s player.
    pub fn name(&self, color: Color) -> &str {
        match color {
            Color::White => &self.white_name,
            Color::Black => &self.black_name,
        }
    }

    /// Turns (senses) played by `color`.
    pub fn num_turns(&self, color: Color) -> usize {
        self.senses[color.index()].len()
    }

    /// Every turn in game order, as reconchess's `GameHistory.turns()` lists
    /// them: white 0, black 0, white 1, ... up to the last sense.
    pub fn turns(&self) -> Vec<Turn> {
        let (w, b) = (self.num_turns(Color::White), self.num_turns(Color::Black));
        let mut out = Vec::with_capacity(w + b);
        for number in 0..w.max(b) {
            for color in Color::ALL {
                if number < self.num_turns(color) {
                    out.push(Turn { color, number });
                }
            }
        }
        out
    }

    /// Whether `turn` has a move (a game that ended by time may stop after a sense).
    pub fn has_move(&self, turn: Turn) -> bool {
        turn.number < self.requested_moves[turn.color.index()].len()
    }

    /// Records a sense.
    pub fn store_sense(&mut self, color: Color, square: Option<Square>, result: SenseResult) {
        self.senses[color.index()].push(square);
        self.sense_results[color.index()].push(result);
    }

    /// Records a move with the boards around it.
    #[allow(clippy::too_many_arguments)]
    pub fn store_move(
        &mut self,
        color: Color,
        requested: Option<Move>,
        taken: Option<Move>,
        capture: Option<Square>,
        fen_before: String,
        fen_after: String,
    ) {
        let i = color.index();
        self.requested_moves[i].push(requested);
        self.taken_moves[i].push(taken);
        self.capture_squares[i].push(capture);
        self.fens_before_move[i].push(fen_before);
        self.fens_after_move[i].push(fen_after);
    }

    /// The JSON text reconchess's `GameHistory.save` writes.
    pub fn to_json(&self) -> String {
        let mut s = String::with_capacity(4096 + 600 * self.turns().len());
        s.push_str("{\"type\": \"GameHistory\", \"white_name\": ");
        json_string(&mut s, &self.white_name);
        s.push_str(", \"black_name\": ");
        json_string(&mut s, &self.black_name);
        per_side(&mut s, "senses", &self.senses, |sq| square_to_json(*sq));
        per_side(&mut s, "sense_results", &self.sense_results, |r| {
            sense_result_to_json(r)
        });
        per_side(&mut s, "requested_moves", &self.requested_moves, |m| {
            move_to_json(*m)
        });
        per_side(&mut s, "taken_moves", &self.taken_moves, |m| {
            move_to_json(*m)
        });
        per_side(&mut s, "capture_squares", &self.capture_squares, |sq| {
            square_to_json(*sq)
        });
        per_side(&mut s, "fens_before_move", &self.fens_before_move, |f| {
            Value::from(f.as_str())
        });
        per_side(&mut s, "fens_after_move", &self.fens_after_move, |f| {
            Value::from(f.as_str())
        });
        s.push_str(", \"winner_color\": ");
        dump(&mut s, &color_to_json(self.winner_color));
        s.push_str(", \"win_reason\": ");
        dump(
            &mut s,
            &win_reason_to_json(self.win_reason.map(WinReason::name)),
        );
        s.push('}');
        s
    }

    /// Writes the history to `path` (as `GameHistory.save` does).
    pub fn save(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_json())
            .with_context(|| format!("cannot write game history {}", path.display()))
    }

    /// Reads a history written by [`GameHistory::save`] or by reconchess.
    pub fn load(path: &Path) -> Result<GameHistory> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read game history {}", path.display()))?;
        GameHistory::from_json(&text)
            .with_context(|| format!("{} is not a reconchess game history", path.display()))
    }

    /// Parses the JSON of a `GameHistory`.
    pub fn from_json(text: &str) -> Result<GameHistory> {
        let v: Value = serde_json::from_str(text).context("invalid JSON")?;
        let obj = v.as_object().ok_or_else(|| anyhow!("not a JSON object"))?;
        if obj.get("type").and_then(Value::as_str) != Some("GameHistory") {
            bail!("the object's \"type\" is not \"GameHistory\"");
        }
        let name = |key: &str| -> Result<String> {
            match obj.get(key) {
                Some(Value::String(s)) => Ok(s.clone()),
                Some(Value::Null) | None => Ok(String::new()),
                Some(_) => bail!("{key} is not a string"),
            }
        };
        let mut h = GameHistory::new(&name("white_name")?, &name("black_name")?);
        h.senses = read_per_side(obj, "senses", square_from_json)?;
        h.sense_results = read_per_side(obj, "sense_results", sense_result_from_json)?;
        h.requested_moves = read_per_side(obj, "requested_moves", move_from_json)?;
        h.taken_moves = read_per_side(obj, "taken_moves", move_from_json)?;
        h.capture_squares = read_per_side(obj, "capture_squares", square_from_json)?;
        let fen = |v: &Value| -> Result<String, String> {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| "not a FEN string".to_string())
        };
        h.fens_before_move = read_per_side(obj, "fens_before_move", fen)?;
        h.fens_after_move = read_per_side(obj, "fens_after_move", fen)?;
        let field = |key: &str| obj.get(key).unwrap_or(&Value::Null);
        h.winner_color =
            color_from_json(field("winner_color")).map_err(|e| anyhow!("winner_color: {e}"))?;
        h.win_reason = match win_reason_from_json(field("win_reason"))
            .map_err(|e| anyhow!("win_reason: {e}"))?
        {
            None => None,
            Some(name) => Some(
                WinReason::from_name(&name)
                    .ok_or_else(|| anyhow!("unknown win reason {name:?}"))?,
            ),
        };
        for c in Color::ALL {
            let i = c.index();
            let n = h.requested_moves[i].len();
            if h.sense_results[i].len() != h.senses[i].len()
                || h.taken_moves[i].len() != n
                || h.capture_squares[i].len() != n
                || h.fens_before_move[i].len() != n
                || h.fens_after_move[i].len() != n
                || n > h.senses[i].len()
            {
                bail!("the per-turn lists of {c} have inconsistent lengths");
            }
        }
        Ok(h)
    }
}

/// Writes `v` as Python's `json.dump` does: `", "` and `": "` between items,
/// keys in the map's order.
fn dump(s: &mut String, v: &Value) {
    match v {
        Value::Null => s.push_str("null"),
        Value::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let _ = write!(s, "{n}");
        }
        Value::String(t) => json_string(s, t),
        Value::Array(items) => {
            s.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                dump(s, x);
            }
            s.push(']');
        }
        Value::Object(map) => {
            s.push('{');
            for (i, (k, x)) in map.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                json_string(s, k);
                s.push_str(": ");
                dump(s, x);
            }
            s.push('}');
        }
    }
}

/// Writes `text` as a JSON string, as Python's `json.dump` does (it escapes
/// everything outside printable ASCII: `ensure_ascii`).
fn json_string(s: &mut String, text: &str) {
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            '\u{8}' => s.push_str("\\b"),
            '\u{c}' => s.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(s, "\\u{unit:04x}");
                }
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

/// Writes `, "key": {"true": [white's items], "false": [black's items]}`.
fn per_side<T>(s: &mut String, key: &str, lists: &PerSide<T>, item: impl Fn(&T) -> Value) {
    let _ = write!(s, ", \"{key}\": {{");
    for (n, color) in Color::ALL.into_iter().enumerate() {
        if n > 0 {
            s.push_str(", ");
        }
        s.push_str(if color == Color::White {
            "\"true\": "
        } else {
            "\"false\": "
        });
        dump(s, &lists[color.index()].iter().map(&item).collect());
    }
    s.push('}');
}

fn read_per_side<T>(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    item: impl Fn(&Value) -> Result<T, String>,
) -> Result<PerSide<T>> {
    let sides = obj
        .get(key)
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("{key} is missing or not an object"))?;
    let mut out: PerSide<T> = [Vec::new(), Vec::new()];
    for (color, label) in [(Color::White, "true"), (Color::Black, "false")] {
        let list = sides
            .get(label)
            .and_then(Value::as_array)
            .ok_or_else(|| anyhow!("{key}.{label} is missing or not a list"))?;
        for (i, v) in list.iter().enumerate() {
            out[color.index()].push(item(v).map_err(|e| anyhow!("{key}.{label}[{i}]: {e}"))?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GameHistory {
        let mut h = GameHistory::new("rbc", "RandomBot");
        h.store_sense(
            Color::White,
            Some(Square::B7),
            vec![
                (Square::A8, Some("r".parse().unwrap())),
                (Square::B8, Some("n".parse().unwrap())),
                (Square::A6, None),
            ],
        );
        h.store_move(
            Color::White,
            Some("e2e4".parse().unwrap()),
            Some("e2e4".parse().unwrap()),
            None,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".into(),
        );
        h.store_sense(Color::Black, None, vec![]);
        h.store_move(
            Color::Black,
            None,
            None,
            None,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".into(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2".into(),
        );
        h.winner_color = Some(Color::White);
        h.win_reason = Some(WinReason::KingCapture);
        h
    }

    #[test]
    fn writes_what_json_dump_writes() {
        let text = sample().to_json();
        assert!(text.starts_with(
            "{\"type\": \"GameHistory\", \"white_name\": \"rbc\", \"black_name\": \"RandomBot\", \
             \"senses\": {\"true\": [49], \"false\": [null]}, \"sense_results\": {\"true\": \
             [[[56, {\"type\": \"Piece\", \"value\": \"r\"}], [57, {\"type\": \"Piece\", \"value\": \"n\"}], \
             [40, null]]], \"false\": [[]]}, \"requested_moves\": {\"true\": [{\"type\": \"Move\", \
             \"value\": \"e2e4\"}], \"false\": [null]}"
        ));
        assert!(text.ends_with(
            "\"winner_color\": true, \"win_reason\": {\"type\": \"WinReason\", \"value\": \"KING_CAPTURE\"}}"
        ));
        let mut s = String::new();
        json_string(&mut s, "é\"x");
        assert_eq!(s, "\"\\u00e9\\\"x\"");
    }

    #[test]
    fn round_trips() {
        let h = sample();
        let back = GameHistory::from_json(&h.to_json()).unwrap();
        assert_eq!(back, h);
        let turns = back.turns();
        assert_eq!(
            turns,
            vec![
                Turn {
                    color: Color::White,
                    number: 0
                },
                Turn {
                    color: Color::Black,
                    number: 0
                }
            ]
        );
    }

    #[test]
    fn rejects_malformed_input() {
        assert!(GameHistory::from_json("[]").is_err());
        assert!(GameHistory::from_json("{\"type\": \"Other\"}").is_err());
        let bad = sample().to_json().replace("\"e2e4\"", "\"e2e9\"");
        assert!(GameHistory::from_json(&bad).is_err());
    }
}
