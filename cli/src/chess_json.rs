//! Chess values in reconchess's JSON shapes (its `ChessJSONEncoder`), as the
//! server API sends them and `GameHistory` files hold them: squares as
//! python-chess integers (a1 = 0 .. h8 = 63), moves as
//! `{"type": "Move", "value": "e2e4"}`, pieces as
//! `{"type": "Piece", "value": "P"}`, boards as `{"type": "Board", "value": FEN}`,
//! win reasons as `{"type": "WinReason", "value": "KING_CAPTURE"}`, colours as
//! booleans (`true` is white) and "nothing" as `null`.
//!
//! The decoders answer a short message on a bad value; callers add where
//! the value was.

use rbc_core::{Board, Color, Move, Piece, Square};
use serde_json::{Value, json};

/// A square (`int` or `null`).
pub fn square_from_json(v: &Value) -> Result<Option<Square>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => n
            .as_u64()
            .and_then(|i| Square::try_index(usize::try_from(i).ok()?))
            .map(Some)
            .ok_or_else(|| format!("{n} is not a square (0..63)")),
        other => Err(format!("expected a square or null, got {other}")),
    }
}

/// A square as reconchess sends it.
pub fn square_to_json(sq: Option<Square>) -> Value {
    sq.map_or(Value::Null, |s| json!(s.index()))
}

/// The `value` of a `{"type": kind, "value": ...}` object, or `None` for `null`.
fn typed<'v>(v: &'v Value, kind: &str) -> Result<Option<&'v str>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Object(map) => {
            let ty = map.get("type").and_then(Value::as_str);
            if ty != Some(kind) {
                return Err(format!("expected a {kind}, got {v}"));
            }
            map.get("value")
                .and_then(Value::as_str)
                .map(Some)
                .ok_or_else(|| format!("{kind} without a string value: {v}"))
        }
        other => Err(format!("expected a {kind} or null, got {other}")),
    }
}

/// `{"type": kind, "value": value}`, or `null` for no value.
fn typed_to_json(kind: &str, value: Option<String>) -> Value {
    value.map_or(Value::Null, |v| json!({"type": kind, "value": v}))
}

/// A move (`{"type": "Move", "value": "e2e4"}` or `null`; python-chess's
/// null move `0000` is read as no move).
pub fn move_from_json(v: &Value) -> Result<Option<Move>, String> {
    match typed(v, "Move")? {
        None | Some("0000") => Ok(None),
        Some(uci) => uci
            .parse()
            .map(Some)
            .map_err(|_| format!("bad move {uci:?}")),
    }
}

/// A move as reconchess sends it.
pub fn move_to_json(mv: Option<Move>) -> Value {
    typed_to_json("Move", mv.map(|m| m.to_string()))
}

/// A piece (`{"type": "Piece", "value": "P"}` or `null`).
pub fn piece_from_json(v: &Value) -> Result<Option<Piece>, String> {
    match typed(v, "Piece")? {
        None => Ok(None),
        Some(s) => s.parse().map(Some).map_err(|_| format!("bad piece {s:?}")),
    }
}

/// A piece as reconchess sends it.
pub fn piece_to_json(piece: Option<Piece>) -> Value {
    typed_to_json("Piece", piece.map(|p| p.char().to_string()))
}

/// A board (`{"type": "Board", "value": FEN}`).
pub fn board_from_json(v: &Value) -> Result<Board, String> {
    let fen = typed(v, "Board")?.ok_or("expected a board, got null")?;
    fen.parse().map_err(|e| format!("bad FEN {fen:?}: {e}"))
}

/// A colour (`true` is white) or `null`.
pub fn color_from_json(v: &Value) -> Result<Option<Color>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Bool(true) => Ok(Some(Color::White)),
        Value::Bool(false) => Ok(Some(Color::Black)),
        other => Err(format!(
            "expected a colour (true/false) or null, got {other}"
        )),
    }
}

/// A colour as reconchess sends it.
pub fn color_to_json(color: Option<Color>) -> Value {
    color.map_or(Value::Null, |c| Value::Bool(c == Color::White))
}

/// A win reason's name (`{"type": "WinReason", "value": "KING_CAPTURE"}` or `null`).
pub fn win_reason_from_json(v: &Value) -> Result<Option<String>, String> {
    Ok(typed(v, "WinReason")?.map(str::to_string))
}

/// A win reason (by its name) as reconchess sends it.
pub fn win_reason_to_json(name: Option<&str>) -> Value {
    typed_to_json("WinReason", name.map(str::to_string))
}

/// A sense result: `[[square, piece or null], ...]`.
pub fn sense_result_from_json(v: &Value) -> Result<Vec<(Square, Option<Piece>)>, String> {
    let items = v
        .as_array()
        .ok_or_else(|| format!("expected a list, got {v}"))?;
    items
        .iter()
        .map(|item| match item.as_array().map(Vec::as_slice) {
            Some([sq, piece]) => Ok((
                square_from_json(sq)?.ok_or("null square in a sense result")?,
                piece_from_json(piece)?,
            )),
            _ => Err(format!("expected [square, piece], got {item}")),
        })
        .collect()
}

/// A sense result as reconchess sends it.
pub fn sense_result_to_json(result: &[(Square, Option<Piece>)]) -> Value {
    result
        .iter()
        .map(|&(sq, piece)| json!([square_to_json(Some(sq)), piece_to_json(piece)]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_decode_and_encode() {
        let v: Value = serde_json::from_str(r#"{"type": "Move", "value": "e2e4"}"#).unwrap();
        let m = move_from_json(&v).unwrap().unwrap();
        assert_eq!(m, "e2e4".parse::<Move>().unwrap());
        assert_eq!(move_to_json(Some(m)), v);
        let promo = json!({"type": "Move", "value": "a7a8n"});
        assert_eq!(
            move_from_json(&promo).unwrap().unwrap().to_string(),
            "a7a8n"
        );
        assert_eq!(move_from_json(&Value::Null).unwrap(), None);
        assert_eq!(move_to_json(None), Value::Null);
        assert_eq!(
            move_from_json(&json!({"type": "Move", "value": "0000"})).unwrap(),
            None
        );
        assert!(move_from_json(&json!({"type": "Piece", "value": "P"})).is_err());
        assert!(move_from_json(&json!({"type": "Move", "value": "e2"})).is_err());
        assert!(move_from_json(&json!("e2e4")).is_err());
    }

    #[test]
    fn squares_are_integers_from_a1() {
        assert_eq!(square_from_json(&json!(0)).unwrap(), Some(Square::A1));
        assert_eq!(square_from_json(&json!(63)).unwrap(), Some(Square::H8));
        assert_eq!(square_from_json(&json!(28)).unwrap(), Some(Square::E4));
        assert_eq!(square_from_json(&Value::Null).unwrap(), None);
        assert!(square_from_json(&json!(64)).is_err());
        assert!(square_from_json(&json!(-1)).is_err());
        assert!(square_from_json(&json!("e4")).is_err());
        assert_eq!(square_to_json(Some(Square::E4)), json!(28));
        assert_eq!(square_to_json(None), Value::Null);
    }

    #[test]
    fn pieces_boards_colours_and_reasons() {
        let p = piece_from_json(&json!({"type": "Piece", "value": "q"}))
            .unwrap()
            .unwrap();
        assert_eq!(p, Piece::from_char('q').unwrap());
        assert_eq!(
            piece_to_json(Some(p)),
            json!({"type": "Piece", "value": "q"})
        );
        assert_eq!(piece_from_json(&Value::Null).unwrap(), None);
        assert_eq!(piece_to_json(None), Value::Null);
        assert!(piece_from_json(&json!({"type": "Piece", "value": "qq"})).is_err());
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let b = board_from_json(&json!({"type": "Board", "value": fen})).unwrap();
        assert_eq!(b.to_string(), fen);
        assert!(board_from_json(&Value::Null).is_err());
        assert_eq!(color_from_json(&json!(true)).unwrap(), Some(Color::White));
        assert_eq!(color_from_json(&json!(false)).unwrap(), Some(Color::Black));
        assert_eq!(color_from_json(&Value::Null).unwrap(), None);
        assert!(color_from_json(&json!("white")).is_err());
        for c in [Some(Color::White), Some(Color::Black), None] {
            assert_eq!(color_from_json(&color_to_json(c)).unwrap(), c);
        }
        let reason = json!({"type": "WinReason", "value": "KING_CAPTURE"});
        assert_eq!(
            win_reason_from_json(&reason).unwrap(),
            Some("KING_CAPTURE".to_string())
        );
        assert_eq!(win_reason_to_json(Some("KING_CAPTURE")), reason);
        assert_eq!(win_reason_from_json(&Value::Null).unwrap(), None);
        assert_eq!(win_reason_to_json(None), Value::Null);
    }

    #[test]
    fn sense_results() {
        let v: Value = serde_json::from_str(
            r#"[[56, {"type": "Piece", "value": "r"}], [57, null], [48, {"type": "Piece", "value": "p"}]]"#,
        )
        .unwrap();
        let r = sense_result_from_json(&v).unwrap();
        assert_eq!(
            r,
            vec![
                (Square::A8, Piece::from_char('r')),
                (Square::B8, None),
                (Square::A7, Piece::from_char('p')),
            ]
        );
        assert_eq!(sense_result_to_json(&r), v);
        assert_eq!(sense_result_from_json(&json!([])).unwrap(), vec![]);
        assert!(sense_result_from_json(&json!([[56]])).is_err());
        assert!(sense_result_from_json(&json!([[null, null]])).is_err());
    }
}
