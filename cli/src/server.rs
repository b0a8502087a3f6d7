//! A small blocking client for the reconchess server API (what
//! `reconchess.RemoteGame` and `rc-connect` speak, as of reconchess 1.6.9).
//!
//! Every request carries HTTP basic auth and a time-out. Answers are JSON
//! objects; chess values travel in reconchess's `ChessJSONEncoder` shape
//! (see [`crate::chess_json`]).
//!
//! Failures are sorted the way reconchess sorts them: a 5xx answer, a
//! connection that fails, resets or closes without an answer, a time-out and
//! a body that is not JSON are retried (reconchess waits 0.5 s each time and
//! never gives up; this client backs off from 0.5 s to 8 s and gives up after
//! a configurable time); 401 is fatal ([`ApiError::Unauthorized`]); any other
//! 4xx is the server refusing the request ([`ApiError::Rejected`]).

use crate::chess_json::{
    board_from_json, color_from_json, move_from_json, move_to_json, sense_result_from_json,
    square_from_json, square_to_json, win_reason_from_json,
};
use base64::Engine as _;
use rbc_core::{Board, Color, Move, Piece, Square};
use serde_json::{Value, json};
use std::fmt;
use std::time::{Duration, Instant};

/// The reconchess version whose protocol this client speaks.
pub const PROTOCOL_VERSION: &str = "1.6.9";

/// The public server.
pub const DEFAULT_SERVER: &str = "https://rbc.jhuapl.edu";

// ---- credentials ------------------------------------------------------------------

/// A user name and password. `Debug` never shows the password.
#[derive(Clone)]
pub struct Credentials {
    username: String,
    password: String,
}

impl Credentials {
    /// Credentials for `username`.
    pub fn new(username: &str, password: &str) -> Credentials {
        Credentials {
            username: username.to_string(),
            password: password.to_string(),
        }
    }

    /// The user name.
    pub fn username(&self) -> &str {
        &self.username
    }

    /// The `Authorization` header value.
    fn header(&self) -> String {
        let raw = format!("{}:{}", self.username, self.password);
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(raw)
        )
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .field("password", &"<hidden>")
            .finish()
    }
}

// ---- retry policy -----------------------------------------------------------------

/// How failed requests are retried: waits of `first_delay`, doubling up to
/// `max_delay`, until `give_up_after` has passed since the first attempt.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// The wait after the first failure (reconchess's constant wait).
    pub first_delay: Duration,
    /// The longest wait between two attempts.
    pub max_delay: Duration,
    /// Stop retrying once this much time has passed (`None`: never).
    pub give_up_after: Option<Duration>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            first_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            give_up_after: Some(Duration::from_secs(600)),
        }
    }
}

impl RetryPolicy {
    /// The wait after the `failures`-th failure in a row (1-based).
    pub fn delay(&self, failures: u32) -> Duration {
        let shift = failures.saturating_sub(1).min(20);
        self.first_delay
            .saturating_mul(1u32 << shift)
            .min(self.max_delay)
    }

    /// The wait before the next attempt, or `None` to give up, after
    /// `failures` failures in a row that started `elapsed` ago.
    pub fn next_wait(&self, failures: u32, elapsed: Duration) -> Option<Duration> {
        let wait = self.delay(failures);
        match self.give_up_after {
            Some(limit) if elapsed + wait > limit => None,
            _ => Some(wait),
        }
    }
}

/// What an HTTP status means for the request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StatusClass {
    /// 2xx: the answer.
    Success,
    /// 5xx: try again.
    Retry,
    /// 401: wrong user name or password.
    Unauthorized,
    /// Any other status: the server refused the request.
    Rejected,
}

/// Sorts a status code.
pub fn classify_status(status: u16) -> StatusClass {
    match status {
        200..=299 => StatusClass::Success,
        401 => StatusClass::Unauthorized,
        500..=599 => StatusClass::Retry,
        _ => StatusClass::Rejected,
    }
}

/// Whether a transport error is worth another attempt: time-outs, failed,
/// reset or closed connections, garbled answers and name look-ups (networks
/// come back), but not bad URLs or TLS failures.
fn is_transient(err: &ureq::Error) -> bool {
    matches!(
        err,
        ureq::Error::Io(_)
            | ureq::Error::Timeout(_)
            | ureq::Error::ConnectionFailed
            | ureq::Error::HostNotFound
            | ureq::Error::Protocol(_)
    )
}

// ---- errors -----------------------------------------------------------------------

/// A request that did not produce an answer.
#[derive(Debug)]
pub enum ApiError {
    /// 401: the server refused the credentials.
    Unauthorized {
        /// The user name sent.
        username: String,
        /// The server's explanation.
        body: String,
    },
    /// A status other than 2xx, 401 and 5xx.
    Rejected {
        /// `GET` or `POST`.
        method: &'static str,
        /// The path asked for.
        path: String,
        /// The status code.
        status: u16,
        /// The server's explanation.
        body: String,
        /// Earlier attempts failed: one of them may have been applied, and
        /// this refusal may be of a repeat.
        after_retry: bool,
    },
    /// Retrying stopped (the policy's time ran out, or the error cannot be retried).
    Failed {
        /// `GET` or `POST`.
        method: &'static str,
        /// The path asked for.
        path: String,
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        last: String,
    },
    /// The answer lacked a field or had the wrong shape.
    BadReply {
        /// The path asked for.
        path: String,
        /// What was wrong.
        detail: String,
    },
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiError::Unauthorized { username, body } => {
                write!(
                    f,
                    "authentication failed (HTTP 401) for user {username:?}: check the user name and RBC_PASSWORD"
                )?;
                let body = body.trim();
                if !body.is_empty() {
                    write!(f, " (server said: {})", clip(body))?;
                }
                Ok(())
            }
            ApiError::Rejected {
                method,
                path,
                status,
                body,
                after_retry,
            } => write!(
                f,
                "{method} {path}: the server answered HTTP {status}{}: {}",
                if *after_retry { " to a retry" } else { "" },
                clip(body.trim())
            ),
            ApiError::Failed {
                method,
                path,
                attempts,
                last,
            } => write!(
                f,
                "{method} {path}: giving up after {attempts} attempt(s): {last}"
            ),
            ApiError::BadReply { path, detail } => write!(f, "{path}: unexpected answer: {detail}"),
        }
    }
}

impl std::error::Error for ApiError {}

fn clip(s: &str) -> String {
    const MAX: usize = 300;
    if s.len() <= MAX {
        s.to_string()
    } else {
        let mut end = MAX;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &s[..end])
    }
}

/// Whether `err` (anywhere in its chain) is a 401.
pub fn is_unauthorized(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        matches!(
            e.downcast_ref::<ApiError>(),
            Some(ApiError::Unauthorized { .. })
        )
    })
}

/// Whether `err` (anywhere in its chain) is the server refusing a request.
pub fn is_rejected(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        matches!(
            e.downcast_ref::<ApiError>(),
            Some(ApiError::Rejected { .. })
        )
    })
}

impl ApiError {
    /// Whether this is the server refusing a request that had to be retried:
    /// a failed attempt may have reached it and been applied (the answer was
    /// lost), so the refusal may only say "done already".
    pub fn is_refused_repeat(&self) -> bool {
        matches!(
            self,
            ApiError::Rejected {
                after_retry: true,
                ..
            }
        )
    }
}

// ---- the API's own JSON values (chess values: crate::chess_json) -------------

/// A move result: `[requested, taken, capture square]`.
pub fn move_result_from_json(v: &Value) -> Result<MoveOutcome, String> {
    match v.as_array().map(Vec::as_slice) {
        Some([req, taken, cap]) => Ok(MoveOutcome {
            requested: move_from_json(req)?,
            taken: move_from_json(taken)?,
            capture: square_from_json(cap)?,
        }),
        _ => Err(format!("expected [requested, taken, capture], got {v}")),
    }
}

/// An invitation or game id as it appears in a URL (the server sends integers).
pub fn id_from_json(v: &Value) -> Result<String, String> {
    match v {
        Value::Number(n) => Ok(n.to_string()),
        Value::String(s) if !s.is_empty() && !s.contains(['/', '?', '#']) => Ok(s.clone()),
        other => Err(format!("expected an id, got {other}")),
    }
}

/// The result of our move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoveOutcome {
    /// The move we asked for.
    pub requested: Option<Move>,
    /// The move made.
    pub taken: Option<Move>,
    /// Where we captured, if we did.
    pub capture: Option<Square>,
}

/// `game_status`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameStatus {
    /// The game is over.
    pub is_over: bool,
    /// It is our turn.
    pub is_my_turn: bool,
}

// ---- the client -------------------------------------------------------------------

/// Client settings.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// The server, e.g. `https://rbc.jhuapl.edu` (a trailing `/` is dropped).
    pub server_url: String,
    /// Who we are.
    pub credentials: Credentials,
    /// The time-out of one request, start to end.
    pub timeout: Duration,
    /// Retries.
    pub retry: RetryPolicy,
    /// Prefix of the retry messages on stderr (e.g. `[game 12] `).
    pub log_prefix: String,
}

/// A connection to the server (cheap to clone; clones share the connection pool).
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    base: String,
    auth: String,
    username: String,
    retry: RetryPolicy,
    log_prefix: String,
}

impl Client {
    /// A client; nothing is sent yet.
    pub fn new(config: ClientConfig) -> Client {
        let agent_config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(config.timeout))
            .timeout_connect(Some(config.timeout.min(Duration::from_secs(10))))
            .user_agent(concat!("rbc/", env!("CARGO_PKG_VERSION")))
            .build();
        Client {
            agent: ureq::Agent::new_with_config(agent_config),
            base: config.server_url.trim_end_matches('/').to_string(),
            auth: config.credentials.header(),
            username: config.credentials.username().to_string(),
            retry: config.retry,
            log_prefix: config.log_prefix,
        }
    }

    /// The same connection with another prefix for its messages.
    pub fn with_log_prefix(&self, prefix: &str) -> Client {
        Client {
            log_prefix: prefix.to_string(),
            ..self.clone()
        }
    }

    /// The server URL.
    pub fn server_url(&self) -> &str {
        &self.base
    }

    /// One attempt: the status and body, or a transport error.
    fn attempt(
        &self,
        method: &'static str,
        url: &str,
        body: Option<&str>,
    ) -> Result<(u16, String), ureq::Error> {
        let mut response = if method == "GET" {
            self.agent
                .get(url)
                .header("Authorization", &self.auth)
                .call()?
        } else {
            let req = self.agent.post(url).header("Authorization", &self.auth);
            match body {
                Some(b) => req.content_type("application/json").send(b)?,
                None => req.send_empty()?,
            }
        };
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string()?;
        Ok((status, text))
    }

    /// Sends a request until it succeeds, fails for good or the retry time runs out.
    fn request(
        &self,
        method: &'static str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, ApiError> {
        let url = format!("{}{}", self.base, path);
        let body = body.map(Value::to_string);
        let start = Instant::now();
        let mut failures = 0u32;
        loop {
            let failure = match self.attempt(method, &url, body.as_deref()) {
                Ok((status, text)) => match classify_status(status) {
                    StatusClass::Success => match serde_json::from_str::<Value>(&text) {
                        Ok(v) => return Ok(v),
                        Err(e) => format!("HTTP {status} with a body that is not JSON ({e})"),
                    },
                    StatusClass::Unauthorized => {
                        return Err(ApiError::Unauthorized {
                            username: self.username.clone(),
                            body: text,
                        });
                    }
                    StatusClass::Rejected => {
                        return Err(ApiError::Rejected {
                            method,
                            path: path.to_string(),
                            status,
                            body: text,
                            after_retry: failures > 0,
                        });
                    }
                    StatusClass::Retry => format!("HTTP {status}"),
                },
                Err(e) if is_transient(&e) => e.to_string(),
                Err(e) => {
                    return Err(ApiError::Failed {
                        method,
                        path: path.to_string(),
                        attempts: failures + 1,
                        last: e.to_string(),
                    });
                }
            };
            failures += 1;
            match self.retry.next_wait(failures, start.elapsed()) {
                Some(wait) => {
                    eprintln!(
                        "{}{method} {path}: {failure}; retrying in {:.1} s",
                        self.log_prefix,
                        wait.as_secs_f64()
                    );
                    std::thread::sleep(wait);
                }
                None => {
                    return Err(ApiError::Failed {
                        method,
                        path: path.to_string(),
                        attempts: failures,
                        last: failure,
                    });
                }
            }
        }
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> Result<Value, ApiError> {
        self.request("GET", path, None)
    }

    /// `POST path` with a JSON body, or with an empty body.
    pub fn post(&self, path: &str, body: Option<&Value>) -> Result<Value, ApiError> {
        self.request("POST", path, body)
    }

    /// `GET path` and the decoded field `key` of the answer.
    fn get_field<T>(
        &self,
        path: &str,
        key: &str,
        decode: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Result<T, ApiError> {
        let answer = self.get(path)?;
        field(&answer, path, key, decode)
    }

    // ---- the lobby (rc-connect's RBCServer) ---------------------------------------

    /// `GET /api/version`: the server's reconchess version.
    pub fn server_version(&self) -> Result<String, ApiError> {
        self.get_field("/api/version", "version", |v| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("expected a string, got {v}"))
        })
    }

    /// `POST /api/users/me/max_games`.
    pub fn set_max_games(&self, max_games: usize) -> Result<(), ApiError> {
        self.post(
            "/api/users/me/max_games",
            Some(&json!({"max_games": max_games})),
        )
        .map(drop)
    }

    /// `POST /api/users/me/ranked`.
    pub fn set_ranked(&self, ranked: bool) -> Result<(), ApiError> {
        self.post("/api/users/me/ranked", Some(&json!({"ranked": ranked})))
            .map(drop)
    }

    /// `GET /api/users/me/version`: our bot's ranked version.
    pub fn bot_version(&self) -> Result<i64, ApiError> {
        self.get_field("/api/users/me/version", "version", |v| {
            v.as_i64()
                .ok_or_else(|| format!("expected an integer, got {v}"))
        })
    }

    /// `POST /api/users/me/version` (empty body): a new bot version.
    pub fn increment_version(&self) -> Result<(), ApiError> {
        self.post("/api/users/me/version", None).map(drop)
    }

    /// `GET /api/invitations/`: the invitations not yet accepted.
    pub fn invitations(&self) -> Result<Vec<String>, ApiError> {
        self.get_field("/api/invitations/", "invitations", |v| {
            v.as_array()
                .ok_or_else(|| format!("expected a list, got {v}"))?
                .iter()
                .map(id_from_json)
                .collect()
        })
    }

    /// `POST /api/invitations/{id}` (empty body): accepts; returns the game id.
    pub fn accept_invitation(&self, invitation: &str) -> Result<String, ApiError> {
        let path = format!("/api/invitations/{invitation}");
        let answer = self.post(&path, None)?;
        field(&answer, &path, "game_id", id_from_json)
    }

    /// `POST /api/invitations/{id}/finish` (empty body).
    pub fn finish_invitation(&self, invitation: &str) -> Result<(), ApiError> {
        self.post(&format!("/api/invitations/{invitation}/finish"), None)
            .map(drop)
    }

    /// `POST /api/games/{id}/error_resign` (empty body): resigns after an error of ours.
    pub fn error_resign(&self, game: &str) -> Result<(), ApiError> {
        self.post(&format!("/api/games/{game}/error_resign"), None)
            .map(drop)
    }

    /// The game `id` (`RemoteGame`).
    pub fn game(&self, id: &str) -> RemoteGame<'_> {
        RemoteGame {
            client: self,
            prefix: format!("/api/games/{id}/"),
        }
    }
}

fn field<T>(
    answer: &Value,
    path: &str,
    key: &str,
    decode: impl FnOnce(&Value) -> Result<T, String>,
) -> Result<T, ApiError> {
    let bad = |detail: String| ApiError::BadReply {
        path: path.to_string(),
        detail,
    };
    let v = answer
        .get(key)
        .ok_or_else(|| bad(format!("no field {key:?} in {}", clip(&answer.to_string()))))?;
    decode(v).map_err(|e| bad(format!("{key}: {e}")))
}

/// One game on the server: `/api/games/{id}/...` (reconchess's `RemoteGame`).
pub struct RemoteGame<'c> {
    client: &'c Client,
    prefix: String,
}

impl RemoteGame<'_> {
    fn get<T>(
        &self,
        endpoint: &str,
        decode: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Result<T, ApiError> {
        self.client
            .get_field(&format!("{}{endpoint}", self.prefix), endpoint, decode)
    }

    fn post(&self, endpoint: &str, body: &Value) -> Result<Value, ApiError> {
        self.client
            .post(&format!("{}{endpoint}", self.prefix), Some(body))
    }

    /// `POST endpoint` with `{}`, for a request that only needs to be made
    /// once: a refused repeat counts as done (the lost attempt was applied).
    fn post_once(&self, endpoint: &str) -> Result<(), ApiError> {
        match self.post(endpoint, &json!({})) {
            Err(e) if e.is_refused_repeat() => {
                eprintln!("{}{e} (taken as done)", self.client.log_prefix);
                Ok(())
            }
            r => r.map(drop),
        }
    }

    fn path(&self, endpoint: &str) -> String {
        format!("{}{endpoint}", self.prefix)
    }

    /// `GET color`: our colour.
    pub fn color(&self) -> Result<Color, ApiError> {
        self.get("color", |v| {
            color_from_json(v)?.ok_or_else(|| "null colour".to_string())
        })
    }

    /// `GET starting_board` (field `board`).
    pub fn starting_board(&self) -> Result<Board, ApiError> {
        let answer = self.client.get(&self.path("starting_board"))?;
        field(
            &answer,
            &self.path("starting_board"),
            "board",
            board_from_json,
        )
    }

    /// `GET opponent_name`.
    pub fn opponent_name(&self) -> Result<String, ApiError> {
        self.get("opponent_name", |v| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("expected a string, got {v}"))
        })
    }

    /// `GET sense_actions`.
    pub fn sense_actions(&self) -> Result<Vec<Square>, ApiError> {
        self.get("sense_actions", |v| {
            v.as_array()
                .ok_or_else(|| format!("expected a list, got {v}"))?
                .iter()
                .map(|s| square_from_json(s)?.ok_or_else(|| "null square".to_string()))
                .collect()
        })
    }

    /// `GET move_actions`.
    pub fn move_actions(&self) -> Result<Vec<Move>, ApiError> {
        self.get("move_actions", |v| {
            Ok(v.as_array()
                .ok_or_else(|| format!("expected a list, got {v}"))?
                .iter()
                .map(move_from_json)
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .flatten()
                .collect())
        })
    }

    /// `GET seconds_left`: our clock.
    pub fn seconds_left(&self) -> Result<f64, ApiError> {
        self.get("seconds_left", |v| {
            v.as_f64()
                .ok_or_else(|| format!("expected a number, got {v}"))
        })
    }

    /// `POST ready` with `{}`: we are ready to start. A refused repeat
    /// counts as done (the lost attempt was applied).
    pub fn ready(&self) -> Result<(), ApiError> {
        self.post_once("ready")
    }

    /// `GET is_my_turn` (the game loop reads `game_status` instead, as reconchess does).
    #[allow(dead_code)]
    pub fn is_my_turn(&self) -> Result<bool, ApiError> {
        self.get("is_my_turn", |v| {
            v.as_bool()
                .ok_or_else(|| format!("expected a boolean, got {v}"))
        })
    }

    /// `GET opponent_move_results`: where the opponent captured, if it did.
    pub fn opponent_move_results(&self) -> Result<Option<Square>, ApiError> {
        self.get("opponent_move_results", square_from_json)
    }

    /// `POST sense` with `{"square": int | null}`; field `sense_result`.
    pub fn sense(&self, square: Option<Square>) -> Result<Vec<(Square, Option<Piece>)>, ApiError> {
        let path = self.path("sense");
        let answer = self.post("sense", &json!({"square": square_to_json(square)}))?;
        field(&answer, &path, "sense_result", sense_result_from_json)
    }

    /// `POST move` with `{"requested_move": Move | null}`; field `move_result`.
    pub fn make_move(&self, requested: Option<Move>) -> Result<MoveOutcome, ApiError> {
        let path = self.path("move");
        let answer = self.post("move", &json!({"requested_move": move_to_json(requested)}))?;
        field(&answer, &path, "move_result", move_result_from_json)
    }

    /// `POST end_turn` with `{}`. A refused repeat counts as done (the lost
    /// attempt was applied).
    pub fn end_turn(&self) -> Result<(), ApiError> {
        self.post_once("end_turn")
    }

    /// `GET game_status`: `{"is_over": bool, "is_my_turn": bool}`.
    pub fn game_status(&self) -> Result<GameStatus, ApiError> {
        let path = self.path("game_status");
        let answer = self.client.get(&path)?;
        let flag = |key: &str| {
            field(&answer, &path, key, |v| {
                v.as_bool()
                    .ok_or_else(|| format!("expected a boolean, got {v}"))
            })
        };
        Ok(GameStatus {
            is_over: flag("is_over")?,
            is_my_turn: flag("is_my_turn")?,
        })
    }

    /// `GET winner_color`: `true`, `false` or `null` (a draw).
    pub fn winner_color(&self) -> Result<Option<Color>, ApiError> {
        self.get("winner_color", color_from_json)
    }

    /// `GET win_reason`: a `WinReason` or `null`.
    pub fn win_reason(&self) -> Result<Option<String>, ApiError> {
        self.get("win_reason", win_reason_from_json)
    }

    /// `GET game_history`: the `GameHistory` object, as sent.
    pub fn game_history(&self) -> Result<Value, ApiError> {
        self.get("game_history", |v| Ok(v.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_results() {
        let v = json!([{"type": "Move", "value": "a1a8"}, {"type": "Move", "value": "a1a5"}, 32]);
        let r = move_result_from_json(&v).unwrap();
        assert_eq!(r.requested, Some("a1a8".parse().unwrap()));
        assert_eq!(r.taken, Some("a1a5".parse().unwrap()));
        assert_eq!(r.capture, Some(Square::A5));
        let pass = move_result_from_json(&json!([null, null, null])).unwrap();
        assert_eq!(
            pass,
            MoveOutcome {
                requested: None,
                taken: None,
                capture: None
            }
        );
    }

    #[test]
    fn ids_are_url_safe() {
        assert_eq!(id_from_json(&json!(17)).unwrap(), "17");
        assert_eq!(id_from_json(&json!("abc")).unwrap(), "abc");
        assert!(id_from_json(&json!("../x")).is_err());
        assert!(id_from_json(&Value::Null).is_err());
    }

    #[test]
    fn backoff_doubles_to_a_cap_and_gives_up_in_time() {
        let p = RetryPolicy::default();
        assert_eq!(p.delay(1), Duration::from_millis(500));
        assert_eq!(p.delay(2), Duration::from_secs(1));
        assert_eq!(p.delay(3), Duration::from_secs(2));
        assert_eq!(p.delay(5), Duration::from_secs(8));
        assert_eq!(p.delay(6), Duration::from_secs(8));
        assert_eq!(p.delay(1000), Duration::from_secs(8));
        assert_eq!(
            p.next_wait(1, Duration::ZERO),
            Some(Duration::from_millis(500))
        );
        assert_eq!(p.next_wait(9, Duration::from_secs(595)), None);
        assert_eq!(
            p.next_wait(9, Duration::from_secs(590)),
            Some(Duration::from_secs(8))
        );
        let forever = RetryPolicy {
            give_up_after: None,
            ..p
        };
        assert!(
            forever
                .next_wait(u32::MAX, Duration::from_secs(1 << 40))
                .is_some()
        );
    }

    #[test]
    fn statuses_are_sorted_like_reconchess() {
        assert_eq!(classify_status(200), StatusClass::Success);
        assert_eq!(classify_status(401), StatusClass::Unauthorized);
        assert_eq!(classify_status(400), StatusClass::Rejected);
        assert_eq!(classify_status(404), StatusClass::Rejected);
        assert_eq!(classify_status(500), StatusClass::Retry);
        assert_eq!(classify_status(503), StatusClass::Retry);
        assert!(is_transient(&ureq::Error::ConnectionFailed));
        assert!(is_transient(&ureq::Error::Io(std::io::Error::from(
            std::io::ErrorKind::ConnectionReset
        ))));
        assert!(!is_transient(&ureq::Error::BadUri("x".into())));
    }

    #[test]
    fn credentials_make_a_basic_header_and_hide_the_password() {
        let c = Credentials::new("Aladdin", "open sesame");
        assert_eq!(c.header(), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
        let shown = format!("{c:?}");
        assert!(
            shown.contains("Aladdin") && !shown.contains("sesame"),
            "{shown}"
        );
    }

    /// A one-shot HTTP server on loopback answering each connection with the
    /// next canned reply (`None`: close without answering; `"hang"`: wait past
    /// the client's time-out, then close).
    fn canned_server(replies: Vec<Option<&'static str>>) -> (String, std::thread::JoinHandle<u32>) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let handle = std::thread::spawn(move || {
            let mut served = 0;
            for reply in replies {
                let (mut sock, _) = listener.accept().unwrap();
                let mut buf = [0u8; 4096];
                let mut req = Vec::new();
                while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = sock.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    req.extend_from_slice(&buf[..n]);
                }
                served += 1;
                if reply == Some("hang") {
                    // Past the client's time-out, then close without a word.
                    std::thread::sleep(Duration::from_millis(800));
                    continue;
                }
                if let Some(body) = reply {
                    let (status, body) = body.split_once(' ').unwrap();
                    let msg = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    sock.write_all(msg.as_bytes()).unwrap();
                }
            }
            served
        });
        (url, handle)
    }

    fn test_client(url: &str) -> Client {
        Client::new(ClientConfig {
            server_url: url.to_string(),
            credentials: Credentials::new("u", "p"),
            timeout: Duration::from_millis(300),
            retry: RetryPolicy {
                first_delay: Duration::from_millis(10),
                max_delay: Duration::from_millis(20),
                give_up_after: Some(Duration::from_secs(5)),
            },
            log_prefix: String::new(),
        })
    }

    #[test]
    fn retries_5xx_dropped_connections_and_time_outs_then_succeeds() {
        let (url, server) = canned_server(vec![
            Some("500 oops"),
            None,
            Some("hang"),
            Some("200 not json"),
            Some(r#"200 {"version": "1.6.9"}"#),
        ]);
        let client = test_client(&url);
        assert_eq!(client.server_version().unwrap(), "1.6.9");
        assert_eq!(server.join().unwrap(), 5);
    }

    #[test]
    fn refusals_of_retried_requests_are_marked() {
        let (url, server) = canned_server(vec![
            Some("500 oops"),
            Some("400 not your turn"),
            Some("500 oops"),
            Some("400 already sensed"),
        ]);
        let client = test_client(&url);
        let game = client.game("5");
        // A repeated end_turn refused: the first one went through.
        game.end_turn().unwrap();
        let err = game.sense(Some(Square::E4)).unwrap_err();
        assert!(err.is_refused_repeat(), "{err}");
        assert!(err.to_string().contains("HTTP 400 to a retry"), "{err}");
        assert_eq!(server.join().unwrap(), 4);
    }

    #[test]
    fn unauthorized_and_rejected_are_not_retried() {
        let (url, server) = canned_server(vec![Some("401 bad password")]);
        let err = test_client(&url).server_version().unwrap_err();
        assert!(matches!(err, ApiError::Unauthorized { .. }), "{err}");
        assert!(err.to_string().contains("401"), "{err}");
        assert_eq!(server.join().unwrap(), 1);

        let (url, server) = canned_server(vec![Some(r#"400 {"error": "not your turn"}"#)]);
        let err = test_client(&url).game("3").end_turn().unwrap_err();
        assert!(
            matches!(err, ApiError::Rejected { status: 400, .. }),
            "{err}"
        );
        assert!(!err.is_refused_repeat());
        assert_eq!(server.join().unwrap(), 1);
    }
}
