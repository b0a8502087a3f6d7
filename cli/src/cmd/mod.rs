//! One module per subcommand.

pub mod connect;
pub mod play;
pub mod play_remote;
pub mod replay;
pub mod rules;
pub mod track;
