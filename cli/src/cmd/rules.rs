//! `rbc rules`: the rules oracle for the differential tests.
//!
//! Reads `{"fen": FEN, "requests": [UCI or null, ...]}` per line and answers
//! `{"actions": [...sorted UCI...], "results": [{"requested", "taken",
//! "capture", "fen"}]}` with the position after each request, or
//! `{"error": ...}`.

use anyhow::Result;
use rbc_core::Board;
use rbc_core::rules::{self, Move};
use serde::Deserialize;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Arguments of `rbc rules` (none).
#[derive(clap::Args, Debug)]
pub struct Args {}

#[derive(Deserialize)]
struct Query {
    fen: String,
    #[serde(default)]
    requests: Vec<Option<String>>,
}

fn answer(line: &str) -> Result<Value, String> {
    let q: Query = serde_json::from_str(line).map_err(|e| format!("bad JSON: {e}"))?;
    let board: Board = q.fen.parse().map_err(|e| format!("{e}"))?;
    let mut actions = Vec::new();
    rules::move_actions(&board, |m| {
        actions.push(m.to_string());
        false
    });
    actions.sort();
    let mut results = Vec::with_capacity(q.requests.len());
    for req in &q.requests {
        let mv = match req {
            None => None,
            Some(s) => Some(s.parse::<Move>().map_err(|e| format!("{s}: {e}"))?),
        };
        let r = match rules::arbitrate(&board, mv) {
            Ok(r) => r,
            Err(e) => {
                results.push(json!({"requested": req, "error": e.to_string()}));
                continue;
            }
        };
        let mut after = board;
        after.play(r.taken);
        results.push(json!({
            "requested": req,
            "taken": r.taken.map(|m| m.to_string()),
            "capture": r.capture.map(|s| s.to_string()),
            "fen": after.to_string(),
        }));
    }
    Ok(json!({"actions": actions, "results": results}))
}

/// Runs the oracle until end of input.
pub fn run(_args: Args) -> Result<ExitCode> {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = answer(&line).unwrap_or_else(|e| json!({"error": e}));
        serde_json::to_writer(&mut out, &reply)?;
        out.write_all(b"\n")?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}
