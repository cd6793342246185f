//! Why a stored game could not be read back or folded.

use thiserror::Error;

use crate::log::{self, Rejection};
use crate::referee::SetupError;

#[derive(Debug, Error)]
pub enum Error {
    /// The log refused the read (an unknown game).
    #[error("{0}")]
    Rejected(#[from] Rejection),
    /// The log failed (storage error or detected corruption).
    #[error("{0}")]
    Log(#[from] log::Error),
    /// The stored header cannot start a game with this build's referee.
    #[error("header: {0}")]
    Setup(#[from] SetupError),
    /// A stored record could not be read back as a header or an event: the store holds
    /// something this build cannot interpret.
    #[error("game \"{game}\" seq {seq}: stored record unreadable: {message}")]
    Unreadable {
        game: String,
        seq: u64,
        message: String,
    },
}

impl Error {
    pub fn unreadable(game: &str, seq: u64, message: &str) -> Error {
        Error::Unreadable {
            game: game.to_string(),
            seq,
            message: message.to_string(),
        }
    }
}
