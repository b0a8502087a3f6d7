//! Links rbc-core into a program without std or alloc and exercises the
//! rules, the belief and the sense chooser on static storage.
#![no_std]
#![no_main]

use core::panic::PanicInfo;
use rbc_core::belief::{Belief, Hypothesis, LogEntry, Storage};
use rbc_core::rules::{self, Move};
use rbc_core::{Board, Color};

#[panic_handler]
fn panic(_info: &PanicInfo) -> ! {
    loop {}
}

fn run() -> i32 {
    let mut slots = [Hypothesis::EMPTY; 256];
    let mut table = [0u32; 512];
    let mut log = [LogEntry::EMPTY; 16];
    let storage = Storage { hypotheses: &mut slots, table: &mut table, log: &mut log };
    let board = Board::start();
    let Ok(mut belief) = Belief::new(storage, 128, &board, Color::White, 7) else { return 1 };
    let mut count = 0;
    rules::move_actions(&board, |_| {
        count += 1;
        false
    });
    let e4 = Move::new(rbc_core::Square::E2, rbc_core::Square::E4);
    if belief.opponent_move(None).is_err() || belief.move_result(Some(e4), Some(e4), None).is_err() {
        return 2;
    }
    if belief.opponent_move(None).is_err() || belief.len() != 21 || count != 34 {
        return 3;
    }
    0
}

// The C library supplies the program's start-up code and memcpy/memset.
#[link(name = "c")]
unsafe extern "C" {}

/// The precompiled `core` refers to an unwinding personality even though
/// this program aborts on panic; nothing ever calls it.
#[unsafe(no_mangle)]
pub extern "C" fn rust_eh_personality() {}

/// The C entry point: there is no std runtime to call a Rust `main`.
#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    run()
}
