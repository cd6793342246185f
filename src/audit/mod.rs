//! Federation audit: a game's log as a signed, self-contained bundle that anyone can check
//! months later — the signature, the hash chain, and every ruling re-derived with this build.

mod bundle;
mod key;
mod replay;
mod tournament;
mod verify;

pub use bundle::export;
pub use key::{KEY_FILE, load_or_create_key, public_key_hex, shared_key};
pub use replay::{Kind, bundle_log, kind};
pub use tournament::{Pairings, TournamentExport, export_tournament, score};
pub use verify::{Report, expected_key, verified_records, verify};

use thiserror::Error;

use crate::quote::quote;

/// Why a bundle could not be written or read at all (a bundle that reads but does not hold
/// up is a [`Report`] with problems, not an error).
#[derive(Debug, Error)]
pub enum Error {
    /// The game is not in the store.
    #[error("unknown game {}", quote(.0))]
    UnknownGame(String),
    /// The store failed or holds something unreadable.
    #[error("{0}")]
    Log(String),
    /// The signing key file cannot be read or written.
    #[error("key file {path}: {message}")]
    Key { path: String, message: String },
    /// A line of the bundle is not what the format says.
    #[error("line {line}: {message}")]
    Malformed { line: usize, message: String },
    /// The public key the bundle must be signed with (`--key`) is not a key at all.
    #[error(
        "key {}: {why}; pass the Ed25519 public key as `referee audit key` prints it",
        quote(.key)
    )]
    PinnedKey { key: String, why: String },
}
