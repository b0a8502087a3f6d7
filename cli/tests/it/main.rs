//! Integration tests: drive the built `rbc` binary.

mod play;
mod profile;
mod track;

/// The path of the built binary.
pub fn rbc() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_BIN_EXE_rbc"))
}
