//! `rbc play` and `rbc replay`, driven through the binary.

use crate::rbc;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(rbc()).args(args).output().expect("rbc runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh directory under the system's temporary directory.
fn scratch_dir(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = std::env::temp_dir().join(format!("rbc-it-{tag}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_default_game_is_shown_and_ends_with_a_result() {
    let out = run(&["play", "--seconds", "30", "--seed", "1"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.starts_with("rbc (white) vs random (black) · 30+5 s · seed 1"),
        "{text}"
    );
    assert!(text.contains("Turn 1 · white (rbc)"), "{text}");
    assert!(text.contains("Turn 2 · black (random)"), "{text}");
    // The true board after white's first move, with both sides' belief sizes.
    assert!(text.contains("  8  r n b q k b n r"), "{text}");
    assert!(text.contains("     a b c d e f g h"), "{text}");
    assert!(text.contains("boards    rbc 1 · random -"), "{text}");
    let result = text
        .lines()
        .find(|l| l.starts_with("Result: "))
        .expect("a result line");
    assert!(
        result.contains(" wins by ") || result.contains("draw"),
        "{result}"
    );
    assert!(text.contains("time used: white "), "{text}");
}

#[test]
fn a_quiet_game_prints_only_its_result() {
    let out = run(&[
        "play",
        "--quiet",
        "--seconds",
        "20",
        "--seed",
        "4",
        "--white",
        "attacker",
        "--black",
        "random",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("Result: "), "{text}");
}

fn check_history(path: &Path) {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(v["type"], "GameHistory");
    let white_turns = v["senses"]["true"].as_array().unwrap().len();
    let black_turns = v["senses"]["false"].as_array().unwrap().len();
    assert!(white_turns >= 1 && white_turns - black_turns <= 1);
    assert_eq!(
        v["taken_moves"]["true"].as_array().unwrap().len(),
        white_turns
    );
    assert_eq!(
        v["fens_before_move"]["true"][0],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert!(v["win_reason"]["type"] == "WinReason");
}

#[test]
fn a_parallel_match_reports_json_and_saves_replayable_histories() {
    let dir = scratch_dir("match");
    let out = run(&[
        "play",
        "--games",
        "4",
        "--jobs",
        "2",
        "--json",
        "--seconds",
        "20",
        "--increment",
        "1",
        "--capacity",
        "100000",
        "--opponent",
        "random",
        "--seed",
        "5",
        "--history-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("one JSON object on stdout");
    assert_eq!(v["games"], 4);
    let (w, l, d) = (
        v["wins"].as_u64().unwrap(),
        v["losses"].as_u64().unwrap(),
        v["draws"].as_u64().unwrap(),
    );
    assert_eq!(w + l + d, 4);
    assert_eq!(v["player"], "rbc");
    assert_eq!(v["opponent"], "random");
    assert!(v["score"].as_f64().is_some());
    assert!(v.get("elo").is_some() && v.get("elo_lower").is_some());
    assert!(v["seconds_per_game"]["player"]["max"].as_f64().unwrap() >= 0.0);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["game"], i + 1);
        // Colours alternate: rbc is white in games 1 and 3.
        let rbc_color = if i % 2 == 0 { "white" } else { "black" };
        assert_eq!(r[rbc_color], "rbc", "{r}");
        let path = PathBuf::from(r["history"].as_str().unwrap());
        assert!(path.starts_with(&dir));
        check_history(&path);
    }

    // Every saved game prints with `rbc replay`, rbc's belief re-tracked.
    let first = results[1]["history"].as_str().unwrap();
    let out = run(&["replay", first, "--capacity", "100000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("RandomBot (white) vs rbc (black): "),
        "{text}"
    );
    assert!(text.contains("re-tracking black's belief (rbc)"), "{text}");
    assert!(text.contains("Turn 2 · black (rbc)"), "{text}");
    assert!(
        text.contains("belief    21 boards after white's move"),
        "{text}"
    );
    assert!(text.contains("% of "), "{text}");
    assert!(!text.contains("tracking stopped"), "{text}");
    assert!(text.contains("\nResult: "), "{text}");

    // Another side's view on request.
    let out = run(&["replay", first, "--as", "white", "--capacity", "100000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("re-tracking white's belief (RandomBot)"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_match_table_sums_up_the_games() {
    let out = run(&[
        "play", "--games", "2", "--white", "attacker", "--black", "random", "--seed", "2",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("attacker vs random: 2 games"), "{text}");
    for word in [
        "wins",
        "losses",
        "draws",
        "total",
        "Elo difference",
        "95% interval",
        "lost on time",
    ] {
        assert!(text.contains(word), "{word} missing:\n{text}");
    }
}

#[test]
fn bad_flags_are_errors() {
    for args in [
        &["play", "--games", "0"][..],
        &["play", "--white", "nobody"],
        &["play", "--opponent", "random", "--white", "rbc"],
        &["play", "--seconds", "-5"],
        &["play", "--seconds", "soon"],
        &["play", "--increment", "-1"],
        &["play", "--capacity", "10", "--memory", "1MiB"],
        &["play", "--memory", "12 parsecs"],
        &["play", "--jobs", "0"],
        &["play", "--engine", "deep-blue"],
        &["play", "--frobnicate"],
        &["replay"],
        &["replay", "x.json", "--as", "red"],
    ] {
        let out = run(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(!stderr(&out).is_empty(), "{args:?} gave no message");
    }
    let out = run(&[
        "play",
        "--opponent",
        "trout",
        "--stockfish",
        "/nonexistent/stockfish",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("needs Stockfish"), "{}", stderr(&out));

    let dir = scratch_dir("bad");
    let missing = dir.join("missing.json");
    let out = run(&["replay", missing.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("cannot read game history"),
        "{}",
        stderr(&out)
    );
    let bogus = dir.join("bogus.json");
    std::fs::write(
        &bogus,
        "{\"type\": \"Board\", \"value\": \"8/8/8/8/8/8/8/8 w - - 0 1\"}",
    )
    .unwrap();
    let out = run(&["replay", bogus.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("not a reconchess game history"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).ok();
}
