//! One module per subcommand.

pub mod bench;
pub mod connect;
pub mod play;
pub mod play_remote;
pub mod replay;
pub mod rules;
pub mod track;
