//! One module per subcommand.

pub mod play;
pub mod replay;
pub mod rules;
pub mod track;
