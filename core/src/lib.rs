//! # rbc-core
//!
//! The engine of rbc, a Reconnaissance Blind Chess player: `#![no_std]`, no
//! allocation, no I/O.
//!
//! - [`Square`], [`Bitboard`], [`attacks`]: the board geometry, with attack
//!   tables built at compile time.
//! - [`Board`]: a full position with FEN in and out, and [`rules`]: what a
//!   player may request, how the arbiter revises it, what it captures.
//! - [`belief`]: every opponent position consistent with what we observed, in a
//!   pool over caller-provided memory, with uniform sampling when full and
//!   recovery from the earliest stash.
//! - [`sense`]: choosing the 3x3 window that best splits the belief.
//! - [`eval`]: a small built-in evaluator for choosing moves without an engine.
//!
//! Data flows one way: observations (opponent capture, sense result, our move
//! result) update the [`belief::Belief`]; the sense and move choosers read it.
#![no_std]
// One `unsafe` call, in `prefetch`, issues a cache prefetch instruction.
#![deny(unsafe_code)]
#![deny(missing_docs)]

// Unit tests that need private items and the standard library
// live in core/unit/, included with `#[path]`; nothing under core/src uses
// the standard library or an allocator.

pub mod attacks;
pub mod belief;
pub mod bitboard;
pub mod board;
pub mod eval;
pub mod movegen;
pub mod piece;
mod prefetch;
pub mod rng;
pub mod rules;
pub mod sense;
pub mod square;

pub use bitboard::Bitboard;
pub use board::{Board, Castling, FenError};
pub use piece::{Piece, PieceKind};
pub use rules::{Move, MoveResult};
pub use square::{Color, File, ParseError, Rank, Square};
