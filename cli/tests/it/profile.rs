//! `--profile FILE` on `rbc track` and `rbc play`: the lines written, their
//! fields and their order; no assertion depends on how long anything took.

use crate::rbc;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh directory under the system's temporary directory.
fn scratch_dir(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = std::env::temp_dir().join(format!(
        "rbc-it-profile-{tag}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(rbc())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rbc runs");
    let mut stdin = child.stdin.take().unwrap();
    // A failed start closes stdin early; ignore that.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("wait")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every line of a profile, parsed.
fn profile_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

const TURN: [&str; 5] = [
    "opponent_move",
    "sense",
    "sense_result",
    "move",
    "move_result",
];

/// The checks every line of `rbc play --profile` passes.
fn check_play_line(v: &Value) {
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    for key in [
        "game",
        "player",
        "color",
        "turn",
        "phase",
        "ms",
        "boards",
        "stashed",
        "dropped",
        "seconds_left",
    ] {
        assert!(keys.contains(&key), "{key} missing: {v}");
    }
    assert!(v.get("line").is_none() && v.get("ok").is_none(), "{v}");
    assert!(v["game"].as_u64().unwrap() >= 1, "{v}");
    assert!(v["turn"].as_u64().unwrap() >= 1, "{v}");
    assert!(TURN.contains(&v["phase"].as_str().unwrap()), "{v}");
    assert!(
        ["white", "black"].contains(&v["color"].as_str().unwrap()),
        "{v}"
    );
    assert!(v["ms"].as_f64().unwrap() >= 0.0, "{v}");
    assert!(v["boards"].as_u64().unwrap() >= 1, "{v}");
    assert!(v["stashed"].as_u64().is_some() && v["dropped"].as_u64().is_some());
    // The clock is known exactly when a decision was asked for.
    let decision = matches!(v["phase"].as_str(), Some("sense" | "move"));
    assert_eq!(v["seconds_left"].is_f64(), decision, "{v}");
}

/// The lines of one side of a game: five a turn, in order, turns from 1.
/// Returns the number of turns.
fn check_turns(lines: &[&Value]) -> usize {
    assert_eq!(lines.len() % 5, 0, "whole turns: {}", lines.len());
    for (i, v) in lines.iter().enumerate() {
        assert_eq!(v["phase"], TURN[i % 5], "{v}");
        assert_eq!(v["turn"], i / 5 + 1, "{v}");
        assert_eq!(v["color"], lines[0]["color"], "{v}");
    }
    lines.len() / 5
}

/// The turns of `color` in a game of `turns` half-moves, white first.
fn turns_of(color: &str, turns: u64) -> usize {
    (if color == "white" {
        turns.div_ceil(2)
    } else {
        turns / 2
    }) as usize
}

#[test]
fn track_writes_a_line_for_every_line_it_answers() {
    let dir = scratch_dir("track");
    let path = dir.join("track.jsonl");
    // A white game prefix (the 100-board fixture), with the sense and move
    // queries a bot sends in each turn, then a count, a bad line, a blank
    // line, the end, and a second game.
    let fixture = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/data/belief-100.jsonl"),
    )
    .unwrap();
    let mut input = String::new();
    for line in fixture.lines() {
        input.push_str(line);
        input.push('\n');
        if line.contains("\"opponent_move\"") {
            input.push_str("{\"query\":\"sense\",\"seconds_left\":60}\n");
        } else if line.contains("\"sense_result\"") {
            input.push_str("{\"query\":\"move\"}\n");
        }
    }
    input.push_str("{\"query\":\"count\"}\nnot json\n\n{\"event\":\"game_end\"}\n");
    input.push_str("{\"event\":\"game_start\",\"color\":\"black\"}\n");
    input.push_str("{\"event\":\"opponent_move\",\"capture_square\":null}\n");

    let out = run(
        &[
            "track",
            "--engine",
            "builtin",
            "--capacity",
            "50000",
            "--profile",
            path.to_str().unwrap(),
        ],
        input.as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let replies = String::from_utf8(out.stdout).unwrap();
    let lines = profile_lines(&path);
    assert_eq!(lines.len(), replies.lines().count(), "one line per reply");

    let input_lines: Vec<&str> = input.lines().collect();
    let mut turn = 1;
    let mut move_results = 0;
    for v in &lines {
        let number = v["line"].as_u64().unwrap() as usize;
        let text = input_lines[number - 1];
        assert!(!text.trim().is_empty(), "blank lines are not profiled: {v}");
        let phase = v["phase"].as_str().unwrap();
        assert!(v["ms"].as_f64().unwrap() >= 0.0, "{v}");
        if phase == "invalid" {
            assert_eq!(text, "not json");
            assert_eq!(v["ok"], false);
            continue;
        }
        assert!(text.contains(&format!("\"{phase}\"")), "{phase} for {text}");
        assert_eq!(v["ok"], true, "{v}");
        assert!(v["boards"].as_u64().unwrap() >= 1, "{v}");
        assert_eq!(v["stashed"], 0, "{v}");
        assert_eq!(v["dropped"], 0, "{v}");
        if v["game"] == 2 {
            assert_eq!(v["color"], "black");
            assert_eq!(v["turn"], 1, "a new game starts at turn 1: {v}");
            continue;
        }
        assert_eq!(v["game"], 1, "{v}");
        assert_eq!(v["color"], "white");
        assert_eq!(v["turn"], turn, "{v}");
        match phase {
            "sense" => assert_eq!(v["seconds_left"], 60.0),
            _ => assert!(v["seconds_left"].is_null(), "{v}"),
        }
        if phase == "move_result" {
            turn += 1;
            move_results += 1;
        }
    }
    assert_eq!(move_results, 3);
    let phases: Vec<&str> = lines.iter().map(|v| v["phase"].as_str().unwrap()).collect();
    assert_eq!(
        phases[..6],
        [
            "game_start",
            "opponent_move",
            "sense",
            "sense_result",
            "move",
            "move_result"
        ]
    );
    assert_eq!(
        phases[phases.len() - 5..],
        [
            "count",
            "invalid",
            "game_end",
            "game_start",
            "opponent_move"
        ]
    );
    // Black's first opponent move expands the start position by white's
    // twenty first moves and the pass.
    assert_eq!(lines.last().unwrap()["boards"], 21);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn track_profile_lines_are_written_as_the_lines_are_answered() {
    let dir = scratch_dir("track-flush");
    let path = dir.join("live.jsonl");
    let mut child = Command::new(rbc())
        .args(["track", "--engine", "builtin", "--capacity", "2000"])
        .arg("--profile")
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut reply = String::new();
        stdout.read_line(&mut reply).unwrap();
        reply
    };
    ask(r#"{"event":"game_start","color":"white"}"#);
    // The profile line of a request is written right after its reply, so
    // once the second reply is in, the first line is in the file.
    ask(r#"{"query":"count"}"#);
    let first = profile_lines(&path);
    assert!(!first.is_empty(), "the process is still running");
    assert_eq!(first[0]["phase"], "game_start");
    ask(r#"{"query":"sense"}"#);
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(profile_lines(&path).len(), 3);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn play_writes_five_lines_for_each_of_rbcs_turns() {
    let dir = scratch_dir("play");
    let path = dir.join("game.jsonl");
    let out = run(
        &[
            "play",
            "--opponent",
            "random",
            "--engine",
            "builtin",
            "--capacity",
            "100000",
            "--seed",
            "3",
            "--quiet",
            "--profile",
            path.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // "Result: rbc (white) wins by KING_CAPTURE after 29 turns"
    let result = String::from_utf8(out.stdout).unwrap();
    let half_moves: u64 = result
        .trim_end()
        .strip_suffix(" turns")
        .and_then(|r| r.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a result line: {result}"));
    let lines = profile_lines(&path);
    lines.iter().for_each(check_play_line);
    assert!(lines.iter().all(|v| v["game"] == 1 && v["player"] == "rbc"));
    assert!(
        lines.iter().all(|v| v["color"] == "white"),
        "rbc is white in game 1"
    );
    let turns = check_turns(&lines.iter().collect::<Vec<_>>());
    assert_eq!(turns, turns_of("white", half_moves));
    // White's first turn: the start position, known exactly.
    assert!(lines[..5].iter().all(|v| v["boards"] == 1));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_profiled_match_writes_each_game_in_one_piece() {
    let dir = scratch_dir("match");
    let path = dir.join("match.jsonl");
    let out = run(
        &[
            "play",
            "--opponent",
            "random",
            "--engine",
            "builtin",
            "--games",
            "3",
            "--jobs",
            "2",
            "--capacity",
            "100000",
            "--seed",
            "8",
            "--json",
            "--profile",
            path.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines = profile_lines(&path);
    lines.iter().for_each(check_play_line);
    // Games come in the order they finish, each as one block.
    let mut blocks: Vec<u64> = Vec::new();
    for v in &lines {
        let g = v["game"].as_u64().unwrap();
        if blocks.last() != Some(&g) {
            assert!(!blocks.contains(&g), "game {g} is split");
            blocks.push(g);
        }
    }
    blocks.sort();
    assert_eq!(blocks, [1, 2, 3]);
    for result in summary["results"].as_array().unwrap() {
        let game = result["game"].as_u64().unwrap();
        let color = if result["white"] == "rbc" {
            "white"
        } else {
            "black"
        };
        let side: Vec<&Value> = lines.iter().filter(|v| v["game"] == game).collect();
        assert!(side.iter().all(|v| v["color"] == color), "game {game}");
        let half_moves = result["turns"].as_u64().unwrap();
        assert_eq!(
            check_turns(&side),
            turns_of(color, half_moves),
            "game {game}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn both_rbc_players_are_profiled_and_told_apart() {
    let dir = scratch_dir("self");
    let path = dir.join("self.jsonl");
    let out = run(
        &[
            "play",
            "--white",
            "rbc",
            "--black",
            "rbc",
            "--engine",
            "builtin",
            "--capacity",
            "50000",
            "--seed",
            "2",
            "--json",
            "--profile",
            path.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let half_moves = summary["results"][0]["turns"].as_u64().unwrap();
    let lines = profile_lines(&path);
    lines.iter().for_each(check_play_line);
    let mut sides: BTreeMap<(String, String), Vec<&Value>> = BTreeMap::new();
    for v in &lines {
        let key = (v["player"].to_string(), v["color"].to_string());
        sides.entry(key).or_default().push(v);
    }
    let keys: Vec<_> = sides.keys().cloned().collect();
    assert_eq!(
        keys,
        [
            ("\"rbc#1\"".to_string(), "\"white\"".to_string()),
            ("\"rbc#2\"".to_string(), "\"black\"".to_string())
        ]
    );
    for ((_, color), side) in &sides {
        let color = color.trim_matches('"');
        assert_eq!(check_turns(side), turns_of(color, half_moves));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn profiling_changes_no_game() {
    // With the built-in evaluator and a full clock, no decision comes near
    // its time budget, so rbc's games follow from the seed alone.
    let dir = scratch_dir("same");
    let games = |tag: &str, profile: bool| -> Vec<(String, Vec<u8>)> {
        let history = dir.join(tag);
        let profile_path = dir.join(format!("{tag}.jsonl"));
        let mut args = vec![
            "play",
            "--opponent",
            "random",
            "--engine",
            "builtin",
            "--games",
            "2",
            "--capacity",
            "100000",
            "--seed",
            "21",
            "--quiet",
            "--history-dir",
            history.to_str().unwrap(),
        ];
        if profile {
            args.extend(["--profile", profile_path.to_str().unwrap()]);
        }
        let out = run(&args, b"");
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(profile_path.exists(), profile);
        let mut files: Vec<_> = std::fs::read_dir(&history)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files
            .iter()
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(p).unwrap())
            })
            .collect()
    };
    let plain = games("plain", false);
    let profiled = games("profiled", true);
    assert_eq!(plain.len(), 2);
    assert!(plain == profiled, "the same seed plays the same games");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_profile_that_cannot_be_created_fails_at_start() {
    let dir = scratch_dir("bad");
    let bad = dir.join("no-such-dir").join("p.jsonl");
    let bad = bad.to_str().unwrap();
    let out = run(
        &["track", "--engine", "builtin", "--profile", bad],
        b"{\"event\":\"game_start\",\"color\":\"white\"}\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "no input is read");
    assert!(
        stderr(&out).contains("--profile: cannot create"),
        "{}",
        stderr(&out)
    );
    let out = run(
        &[
            "play",
            "--opponent",
            "random",
            "--engine",
            "builtin",
            "--profile",
            bad,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "no game is played");
    assert!(
        stderr(&out).contains("--profile: cannot create"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).ok();
}
