//! Who may do what: bearer tokens with roles, issued by the CLI and stored hashed.
//!
//! - a **board** token is bound to one game and one side (or both sides of one board) and may
//!   only append that side's events to that game, and read that game;
//! - an **arbiter** token covers a tournament — the games whose id starts with its prefix —
//!   and may create games, append `arbiter` events and read them;
//! - an **auditor** token reads every game and writes nothing.
//!
//! A token may carry an expiry, and is revoked by a line appended to the token file; both
//! refuse it with `UNAUTHENTICATED` saying since when.
//!
//! The store keeps only each token's SHA-256, so a copy of the data directory does not leak
//! usable tokens. Access control is on as soon as one token has been issued, and stays on
//! (a marker file records it) until `referee token off`: emptying or deleting the token file
//! revokes every token, it does not open the server to everyone.

pub mod expiry;
mod marker;
mod owner;
mod shared;
mod stamp;
mod store;
mod token;

pub use marker::MARKER_FILE;
pub use shared::{SHARE_EVERY, SharedTokens};
pub use store::{Access, Issued, Revoked, SERVER_RECHECK, TOKEN_FILE, TokenStore, TurnedOff};
pub use token::{Grant, Role, SideScope, State};

use std::path::PathBuf;

use thiserror::Error;

/// Why a request was refused by access control.
#[derive(Debug, Error, PartialEq)]
pub enum Denied {
    /// No token, or one the store does not know.
    #[error("{0}")]
    Unauthenticated(String),
    /// A known token asked for something outside its role or scope.
    #[error("{0}")]
    PermissionDenied(String),
}

/// Why the token store could not do what was asked.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The token file, the marker or the data directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A line of the token file is not a grant. Every call is then refused: the file could
    /// hold the very tokens someone meant to revoke.
    #[error("{}: line {line}: {message}", path.display())]
    Unreadable {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// The token file (or the marker) could not be read for lack of permission: written by
    /// another user than the one running this command.
    #[error(
        "{}: {source} (it belongs to {owner}): the server and `referee token` must run as one \
         user, the data directory's owner: run the command as that user (`sudo -u USER referee \
         token ...`), or give the file to it (`chown USER`)",
        path.display()
    )]
    Permission {
        path: PathBuf,
        owner: String,
        source: std::io::Error,
    },
    /// `issue` run as a user other than the data directory's owner (and not root, who gives
    /// the files to the owner): the server, running as the owner, could not read them.
    #[error(
        "{} belongs to {owner}, who runs the server, and this command runs as {me}: the token \
         file would be unreadable to the server; run it as that user (`sudo -u {owner} referee \
         token ...`) or as root",
        dir.display()
    )]
    NotOwner {
        dir: PathBuf,
        owner: String,
        me: String,
    },
    /// `issue` named an id that an issued token has already (revoked ones included: the id
    /// names the writer of every event the token appended).
    #[error("a token with id \"{0}\" exists already")]
    IdTaken(String),
    /// `revoke` named an id that no issued token has.
    #[error("no token with id \"{0}\" was issued")]
    UnknownId(String),
    /// `turn_off` while the token file holds tokens: they would stay valid for nobody to
    /// check, and emptying the file could no longer revoke them.
    #[error(
        "{} still holds {} valid token(s) ({}): access control stays on while any token is \
         valid; revoke them first (`referee token revoke ID`, or empty the file), then run \
         `referee token off` again",
        path.display(),
        ids.len(),
        ids.join(", ")
    )]
    TokensRemain { path: PathBuf, ids: Vec<String> },
}
