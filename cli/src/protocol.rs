//! The JSON-lines protocol of `rbc track` (documented in `docs/protocol.md`).
//!
//! Every input line is one JSON object with either an `"event"` (an
//! observation that updates the belief) or a `"query"` (a question that
//! leaves it alone). [`parse`] turns a line into a [`Request`] of checked
//! core types, or into a message that names what is wrong; every reply is a
//! [`Reply`], serialized as one JSON line.
//!
//! Parsing goes in three steps: the line must be a JSON object with exactly
//! one string tag (`event` or `query`) that names a known kind; the object is
//! then deserialized into that kind's wire struct (unknown fields are
//! ignored; a missing or wrongly typed field is reported by name); last, the
//! strings of the wire struct are converted into squares, pieces, moves and
//! boards, again reporting the field of any bad value.

use rbc_core::rules::Move;
use rbc_core::{Board, Color, Piece, Square};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The longest input line accepted, in bytes (without its newline).
pub const MAX_LINE: usize = 1 << 20;

/// Seconds per side when `game_start` gives none.
pub const DEFAULT_SECONDS: f64 = 900.0;
/// Increment per turn when `game_start` gives none.
pub const DEFAULT_INCREMENT: f64 = 5.0;
/// Boards listed by the `boards` query when it gives no limit.
pub const DEFAULT_BOARDS_LIMIT: usize = 100;

/// The reasons reconchess gives for the end of a game.
pub const END_REASONS: [&str; 5] = [
    "KING_CAPTURE",
    "TIMEOUT",
    "RESIGN",
    "TURN_LIMIT",
    "MOVE_LIMIT",
];

const EVENTS: [&str; 5] = [
    "game_start",
    "opponent_move",
    "sense_result",
    "move_result",
    "game_end",
];
const QUERIES: [&str; 6] = ["sense", "move", "count", "contains", "boards", "stats"];

// ---- requests --------------------------------------------------------------

/// One parsed, checked input line.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// An observation.
    Event(Event),
    /// A question.
    Query(Query),
}

/// An observation, in core types.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A game begins.
    GameStart {
        /// Our colour.
        color: Color,
        /// The true starting position.
        board: Board,
        /// Seconds on each clock.
        seconds: f64,
        /// Seconds added per turn.
        increment: f64,
    },
    /// The opponent moved; where it captured one of our pieces, if it did.
    OpponentMove {
        /// The capture square.
        capture: Option<Square>,
    },
    /// What our sense showed.
    SenseResult {
        /// Every sensed square with its piece.
        result: Vec<(Square, Option<Piece>)>,
    },
    /// Our move's result.
    MoveResult {
        /// The request as sent (`None`: pass).
        requested: Option<Move>,
        /// The move played (`None`: pass or failed).
        taken: Option<Move>,
        /// Where we captured, if we did.
        capture: Option<Square>,
    },
    /// The game is over.
    GameEnd {
        /// The winner, if any.
        winner: Option<Color>,
        /// Why it ended (one of [`END_REASONS`]), if known.
        reason: Option<String>,
    },
}

impl Event {
    /// The event's name on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            Event::GameStart { .. } => "game_start",
            Event::OpponentMove { .. } => "opponent_move",
            Event::SenseResult { .. } => "sense_result",
            Event::MoveResult { .. } => "move_result",
            Event::GameEnd { .. } => "game_end",
        }
    }
}

/// A question, in core types.
#[derive(Clone, Debug, PartialEq)]
pub enum Query {
    /// Where to sense.
    Sense {
        /// Our clock (infinite when not given).
        seconds_left: f64,
    },
    /// What to move.
    Move {
        /// Our clock (infinite when not given).
        seconds_left: f64,
    },
    /// How many boards.
    Count,
    /// Whether a board is among the hypotheses.
    Contains {
        /// The board asked about.
        board: Board,
        /// The true positions before each logged observation, if given:
        /// then the reply also says whether the truth waits in the stash.
        history: Option<Vec<Board>>,
    },
    /// Some of the active boards.
    Boards {
        /// At most this many.
        limit: usize,
    },
    /// Counters, memory and timings.
    Stats,
}

impl Query {
    /// The query's name on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            Query::Sense { .. } => "sense",
            Query::Move { .. } => "move",
            Query::Count => "count",
            Query::Contains { .. } => "contains",
            Query::Boards { .. } => "boards",
            Query::Stats => "stats",
        }
    }
}

// ---- wire structs ------------------------------------------------------------

/// Field deserializers that put the field's name into type errors
/// (serde alone reports "invalid type: integer `5`, expected a string"
/// without saying where).
mod field {
    use serde::de::{Deserialize, Deserializer, Error};

    fn named<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
        name: &str,
    ) -> Result<T, D::Error> {
        T::deserialize(d).map_err(|e| D::Error::custom(format_args!("field \"{name}\": {e}")))
    }

    macro_rules! named_fields {
        ($($name:ident: $ty:ty),* $(,)?) => {$(
            pub fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                named(d, stringify!($name))
            }
        )*};
    }

    named_fields! {
        color: String,
        fen: Option<String>,
        opponent: Option<String>,
        seconds: Option<f64>,
        increment: Option<f64>,
        capture_square: Option<String>,
        result: Vec<(String, Option<String>)>,
        requested: Option<String>,
        taken: Option<String>,
        winner: Option<String>,
        reason: Option<String>,
        seconds_left: Option<f64>,
        limit: Option<usize>,
        history: Option<Vec<String>>,
    }

    /// The required `fen` of the `contains` query.
    pub fn required_fen<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        named(d, "fen")
    }
}

// A field with `deserialize_with` and no `default` is required even when its
// type is an `Option`: `null` is then the explicit "none", and a misspelt
// field name is an error rather than a silent "none".

#[derive(Deserialize)]
struct GameStartWire {
    #[serde(deserialize_with = "field::color")]
    color: String,
    #[serde(default, deserialize_with = "field::fen")]
    fen: Option<String>,
    #[serde(default, deserialize_with = "field::opponent")]
    #[allow(dead_code)] // checked for type, otherwise informational
    opponent: Option<String>,
    #[serde(default, deserialize_with = "field::seconds")]
    seconds: Option<f64>,
    #[serde(default, deserialize_with = "field::increment")]
    increment: Option<f64>,
}

#[derive(Deserialize)]
struct OpponentMoveWire {
    #[serde(deserialize_with = "field::capture_square")]
    capture_square: Option<String>,
}

#[derive(Deserialize)]
struct SenseResultWire {
    #[serde(deserialize_with = "field::result")]
    result: Vec<(String, Option<String>)>,
}

#[derive(Deserialize)]
struct MoveResultWire {
    #[serde(deserialize_with = "field::requested")]
    requested: Option<String>,
    #[serde(deserialize_with = "field::taken")]
    taken: Option<String>,
    #[serde(deserialize_with = "field::capture_square")]
    capture_square: Option<String>,
}

#[derive(Deserialize)]
struct GameEndWire {
    #[serde(default, deserialize_with = "field::winner")]
    winner: Option<String>,
    #[serde(default, deserialize_with = "field::reason")]
    reason: Option<String>,
}

#[derive(Deserialize)]
struct ClockWire {
    #[serde(default, deserialize_with = "field::seconds_left")]
    seconds_left: Option<f64>,
}

#[derive(Deserialize)]
struct ContainsWire {
    #[serde(deserialize_with = "field::required_fen")]
    fen: String,
    #[serde(default, deserialize_with = "field::history")]
    history: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct BoardsWire {
    #[serde(default, deserialize_with = "field::limit")]
    limit: Option<usize>,
}

// ---- parsing -----------------------------------------------------------------

/// Parses one input line (not blank, valid UTF-8, at most [`MAX_LINE`] bytes).
///
/// # Errors
/// A message naming the problem: not JSON, not an object, both or neither
/// tag, an unknown kind, a missing or wrongly typed field, a bad value.
pub fn parse(line: &str) -> Result<Request, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(obj) = value else {
        return Err(format!("expected a JSON object, got {}", kind_of(&value)));
    };
    match (obj.get("event"), obj.get("query")) {
        (Some(_), Some(_)) => {
            Err("line has both \"event\" and \"query\"; send one per line".into())
        }
        (None, None) => Err("line has neither \"event\" nor \"query\"".into()),
        (Some(tag), None) => {
            let name = tag_name(tag, "event", &EVENTS)?;
            parse_event(name, obj)
                .map(Request::Event)
                .map_err(|e| format!("{name}: {e}"))
        }
        (None, Some(tag)) => {
            let name = tag_name(tag, "query", &QUERIES)?;
            parse_query(name, obj)
                .map(Request::Query)
                .map_err(|e| format!("{name} query: {e}"))
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The tag's value, checked against the known names.
fn tag_name(tag: &Value, key: &str, known: &[&'static str]) -> Result<&'static str, String> {
    let Value::String(s) = tag else {
        return Err(format!("\"{key}\" must be a string, got {}", kind_of(tag)));
    };
    known.iter().copied().find(|k| k == s).ok_or_else(|| {
        format!(
            "unknown {key} {} (expected one of {})",
            quote(s),
            known.join(", ")
        )
    })
}

fn wire<T: for<'de> Deserialize<'de>>(obj: Map<String, Value>) -> Result<T, String> {
    serde_json::from_value(Value::Object(obj)).map_err(|e| e.to_string())
}

fn parse_event(name: &str, obj: Map<String, Value>) -> Result<Event, String> {
    Ok(match name {
        "game_start" => {
            let w: GameStartWire = wire(obj)?;
            let color = color(&w.color, "color")?;
            let board = match &w.fen {
                Some(fen) => board(fen, "fen")?,
                None => Board::start(),
            };
            let seconds = non_negative(w.seconds, "seconds")?.unwrap_or(DEFAULT_SECONDS);
            let increment = non_negative(w.increment, "increment")?.unwrap_or(DEFAULT_INCREMENT);
            Event::GameStart {
                color,
                board,
                seconds,
                increment,
            }
        }
        "opponent_move" => {
            let w: OpponentMoveWire = wire(obj)?;
            Event::OpponentMove {
                capture: opt_square(w.capture_square.as_deref(), "capture_square")?,
            }
        }
        "sense_result" => {
            let w: SenseResultWire = wire(obj)?;
            let mut result = Vec::with_capacity(w.result.len());
            for (i, (sq, piece)) in w.result.iter().enumerate() {
                let at = format!("result[{i}]");
                let sq = square(sq, &at)?;
                let piece = match piece {
                    None => None,
                    Some(p) => Some(p.parse::<Piece>().map_err(|_| {
                        format!(
                            "invalid piece {} in {at} (expected one of PNBRQKpnbrqk or null)",
                            quote(p)
                        )
                    })?),
                };
                result.push((sq, piece));
            }
            Event::SenseResult { result }
        }
        "move_result" => {
            let w: MoveResultWire = wire(obj)?;
            Event::MoveResult {
                requested: opt_move(w.requested.as_deref(), "requested")?,
                taken: opt_move(w.taken.as_deref(), "taken")?,
                capture: opt_square(w.capture_square.as_deref(), "capture_square")?,
            }
        }
        "game_end" => {
            let w: GameEndWire = wire(obj)?;
            let winner = w
                .winner
                .as_deref()
                .map(|c| color(c, "winner"))
                .transpose()?;
            if let Some(r) = &w.reason
                && !END_REASONS.contains(&r.as_str())
            {
                return Err(format!(
                    "invalid reason {} (expected one of {} or null)",
                    quote(r),
                    END_REASONS.join(", ")
                ));
            }
            Event::GameEnd {
                winner,
                reason: w.reason,
            }
        }
        _ => unreachable!("tag_name admits only known events"),
    })
}

fn parse_query(name: &str, obj: Map<String, Value>) -> Result<Query, String> {
    Ok(match name {
        "sense" | "move" => {
            let w: ClockWire = wire(obj)?;
            let seconds_left = w.seconds_left.unwrap_or(f64::INFINITY);
            if name == "sense" {
                Query::Sense { seconds_left }
            } else {
                Query::Move { seconds_left }
            }
        }
        "count" => Query::Count,
        "contains" => {
            let w: ContainsWire = wire(obj)?;
            let history = w
                .history
                .map(|fens| {
                    fens.iter()
                        .enumerate()
                        .map(|(i, f)| board(f, &format!("history[{i}]")))
                        .collect::<Result<Vec<_>, _>>()
                })
                .transpose()?;
            Query::Contains {
                board: board(&w.fen, "fen")?,
                history,
            }
        }
        "boards" => {
            let w: BoardsWire = wire(obj)?;
            Query::Boards {
                limit: w.limit.unwrap_or(DEFAULT_BOARDS_LIMIT),
            }
        }
        "stats" => Query::Stats,
        _ => unreachable!("tag_name admits only known queries"),
    })
}

/// `s` in double quotes, shortened if long (messages must stay small).
fn quote(s: &str) -> String {
    const MAX: usize = 80;
    if s.len() <= MAX {
        return format!("{s:?}");
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}...", &s[..end])
}

fn color(s: &str, field: &str) -> Result<Color, String> {
    match s {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        _ => Err(format!(
            "invalid color {} in {field} (expected \"white\" or \"black\")",
            quote(s)
        )),
    }
}

fn square(s: &str, field: &str) -> Result<Square, String> {
    s.parse()
        .map_err(|_| format!("invalid square {} in {field} (expected a1..h8)", quote(s)))
}

fn opt_square(s: Option<&str>, field: &str) -> Result<Option<Square>, String> {
    s.map(|s| square(s, field)).transpose()
}

fn opt_move(s: Option<&str>, field: &str) -> Result<Option<Move>, String> {
    s.map(|s| {
        s.parse().map_err(|_| {
            format!(
                "invalid move {} in {field} (expected UCI such as e2e4 or e7e8q, or null)",
                quote(s)
            )
        })
    })
    .transpose()
}

fn board(fen: &str, field: &str) -> Result<Board, String> {
    fen.parse()
        .map_err(|e| format!("{e} (in {field} {})", quote(fen)))
}

fn non_negative(v: Option<f64>, field: &str) -> Result<Option<f64>, String> {
    match v {
        Some(x) if x < 0.0 => Err(format!(
            "invalid {field} {x} (must be a non-negative number)"
        )),
        _ => Ok(v),
    }
}

// ---- replies -----------------------------------------------------------------

/// One output line.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    /// An event was applied.
    Ack(Ack),
    /// Where to sense.
    Sense(SenseReply),
    /// What to move.
    Move(MoveReply),
    /// Board counts.
    Count(CountReply),
    /// Membership.
    Contains(ContainsReply),
    /// Some boards.
    Boards(BoardsReply),
    /// Counters.
    Stats(StatsReply),
    /// The line was rejected; nothing changed.
    Error(ErrorReply),
}

/// `{"ok":true,"boards":N,"stashed":M}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ack {
    /// Always true.
    pub ok: bool,
    /// Active hypotheses.
    pub boards: usize,
    /// Stashed hypotheses.
    pub stashed: usize,
}

/// `{"sense":"e7"}` or `{"sense":null}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SenseReply {
    /// The centre of the window, or `None` for no sense.
    pub sense: Option<String>,
}

/// `{"move":"e2e4"}` or `{"move":null}` (a pass).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveReply {
    /// The request in UCI, or `None` to pass.
    #[serde(rename = "move")]
    pub mv: Option<String>,
}

/// `{"boards":N,"stashed":M,"dropped":D}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CountReply {
    /// Active hypotheses.
    pub boards: usize,
    /// Stashed hypotheses.
    pub stashed: usize,
    /// Hypotheses dropped for lack of space.
    pub dropped: u64,
}

/// `{"contains":true}`, with `"recoverable"` when the query gave a history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContainsReply {
    /// Whether the board is active or stashed.
    pub contains: bool,
    /// Whether the board is active or, as it stood at a stash segment's
    /// time, waits in that segment (see [`Belief::stash_holds`]).
    ///
    /// [`Belief::stash_holds`]: rbc_core::belief::Belief::stash_holds
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recoverable: Option<bool>,
}

/// `{"total":N,"fens":[...]}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardsReply {
    /// Active hypotheses in all.
    pub total: usize,
    /// Up to the limit of them, as full FENs.
    pub fens: Vec<String>,
}

/// Counters, memory and timings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatsReply {
    /// The evaluator scoring moves.
    pub engine: String,
    /// Bytes of belief storage in use.
    pub bytes: usize,
    /// Active capacity.
    pub capacity: usize,
    /// Active hypotheses.
    pub active: usize,
    /// Stashed hypotheses.
    pub stashed: usize,
    /// Hypotheses dropped for lack of space.
    pub dropped: u64,
    /// Opponent-move expansions.
    pub expansions: u64,
    /// Recoveries from the stash.
    pub recoveries: u64,
    /// Rebuilds by search over the log.
    pub rebuilds: u64,
    /// Children generated by expansions (before deduplication).
    pub children: u64,
    /// Expansions that overflowed and sampled.
    pub overflows: u64,
    /// Observations logged.
    pub logged: usize,
    /// Seconds of the last observation update.
    pub last_update_seconds: f64,
    /// Seconds of the last sense decision.
    pub last_sense_seconds: f64,
    /// Seconds of the last move decision.
    pub last_move_seconds: f64,
    /// Boards scored by the last move decision.
    pub last_move_boards: usize,
    /// Hypotheses scored by the last sense decision.
    pub last_sense_scored: usize,
}

/// `{"error":"...","line":K}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorReply {
    /// What was wrong.
    pub error: String,
    /// The input line, counting every line from 1.
    pub line: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(line: &str) -> String {
        parse(line).expect_err(line)
    }

    #[test]
    fn events_and_queries_parse_into_core_types() {
        let r = parse(
            r#"{"event":"move_result","requested":"e7e8","taken":"e7e8q","capture_square":null,"x":1}"#,
        );
        assert_eq!(
            r,
            Ok(Request::Event(Event::MoveResult {
                requested: Some("e7e8".parse().unwrap()),
                taken: Some("e7e8q".parse().unwrap()),
                capture: None,
            }))
        );
        let r = parse(r#"{"event":"sense_result","result":[["e6",null],["e7","p"]]}"#).unwrap();
        let Request::Event(Event::SenseResult { result }) = r else {
            panic!()
        };
        assert_eq!(
            result,
            vec![(Square::E6, None), (Square::E7, Some("p".parse().unwrap()))]
        );
        assert_eq!(
            parse(r#"{"query":"boards"}"#),
            Ok(Request::Query(Query::Boards { limit: 100 }))
        );
        assert_eq!(
            parse(r#"{"query":"move"}"#),
            Ok(Request::Query(Query::Move {
                seconds_left: f64::INFINITY
            }))
        );
        let start = Board::start();
        let fen = start.to_string();
        assert_eq!(
            parse(&format!(r#"{{"query":"contains","fen":"{fen}"}}"#)),
            Ok(Request::Query(Query::Contains {
                board: start,
                history: None
            }))
        );
        assert_eq!(
            parse(&format!(
                r#"{{"query":"contains","fen":"{fen}","history":["{fen}","{fen}"]}}"#
            )),
            Ok(Request::Query(Query::Contains {
                board: start,
                history: Some(vec![start, start])
            }))
        );
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(err("{").starts_with("invalid JSON"));
        assert!(err("[1]").contains("expected a JSON object"));
        assert!(err(r#"{"event":"foo"}"#).starts_with("unknown event \"foo\""));
        assert!(err(r#"{"query":"foo"}"#).starts_with("unknown query \"foo\""));
        assert!(err(r#"{"event":7}"#).contains("\"event\" must be a string"));
        assert!(err(r#"{"event":"opponent_move"}"#).contains("missing field `capture_square`"));
        assert!(
            err(r#"{"event":"opponent_move","capture_square":"z9"}"#)
                .contains("invalid square \"z9\" in capture_square")
        );
        assert!(
            err(r#"{"event":"opponent_move","capture_square":5}"#)
                .contains("field \"capture_square\"")
        );
        assert!(
            err(r#"{"event":"game_start","color":"white","seconds":-1}"#)
                .contains("invalid seconds")
        );
        assert!(
            err(r#"{"event":"game_end","reason":"BORED"}"#).contains("invalid reason \"BORED\"")
        );
        assert!(err(r#"{"query":"contains","fen":"xx w"}"#).contains("invalid FEN"));
        let fen = Board::start().to_string();
        assert!(
            err(&format!(
                r#"{{"query":"contains","fen":"{fen}","history":["{fen}","xx w"]}}"#
            ))
            .contains("in history[1]")
        );
        assert!(
            err(&format!(
                r#"{{"query":"contains","fen":"{fen}","history":"{fen}"}}"#
            ))
            .contains("field \"history\"")
        );
        assert!(err(r#"{"query":"boards","limit":-1}"#).contains("field \"limit\""));
        let long = "x".repeat(500);
        assert!(err(&format!(r#"{{"event":"game_start","color":"{long}"}}"#)).len() < 200);
    }

    #[test]
    fn replies_serialize_as_documented() {
        let s = |r: Reply| serde_json::to_string(&r).unwrap();
        assert_eq!(
            s(Reply::Ack(Ack {
                ok: true,
                boards: 3,
                stashed: 0
            })),
            r#"{"ok":true,"boards":3,"stashed":0}"#
        );
        assert_eq!(s(Reply::Move(MoveReply { mv: None })), r#"{"move":null}"#);
        assert_eq!(
            s(Reply::Error(ErrorReply {
                error: "x".into(),
                line: 4
            })),
            r#"{"error":"x","line":4}"#
        );
        assert_eq!(
            s(Reply::Contains(ContainsReply {
                contains: false,
                recoverable: None
            })),
            r#"{"contains":false}"#
        );
        assert_eq!(
            s(Reply::Contains(ContainsReply {
                contains: false,
                recoverable: Some(true)
            })),
            r#"{"contains":false,"recoverable":true}"#
        );
    }
}
